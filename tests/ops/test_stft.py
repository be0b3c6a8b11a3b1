"""torch.stft / torch.istft beyond the op database's samples (complex gradients, round trips, warnings) and
torch.signal.windows: values, dtypes, graphs and errors against torch."""
import warnings

import numpy as np
import pytest

import ember
from ember.autograd import gradcheck, gradgradcheck


def _both(fn, torch):
    out = []
    for lib in (torch, ember):
        try:
            out.append(fn(lib))
        except Exception as e:  # noqa: BLE001  (the exception itself is compared)
            out.append(e)
    return out


WINDOWS = [("bartlett", {}), ("blackman", {}), ("cosine", {}), ("exponential", {}), ("exponential", {"tau": 2.5}),
           ("gaussian", {}), ("gaussian", {"std": 0.4}), ("general_cosine", {"a": [0.5, 0.3, 0.2]}),
           ("general_hamming", {}), ("general_hamming", {"alpha": 0.7}), ("hamming", {}), ("hann", {}),
           ("kaiser", {}), ("kaiser", {"beta": 3.0}), ("nuttall", {})]


@pytest.mark.parity
@pytest.mark.parametrize("name,kw", WINDOWS, ids=[f"{n}-{k}" for n, k in WINDOWS])
@pytest.mark.parametrize("M", [0, 1, 2, 7, 10])
def test_windows(name, kw, M):
    torch = pytest.importorskip("torch")
    for sym in (True, False):
        for dt in ("float32", "float64"):
            t = getattr(torch.signal.windows, name)(M, sym=sym, dtype=getattr(torch, dt), **kw)
            e = getattr(ember.signal.windows, name)(M, sym=sym, dtype=getattr(ember, dt), **kw)
            assert e.dtype == getattr(ember, dt) and tuple(e.shape) == tuple(t.shape)
            np.testing.assert_allclose(e.numpy(), t.numpy(), rtol=2e-6, atol=2e-7)
    assert getattr(ember.signal.windows, name)(M, **kw).dtype == ember.get_default_dtype()


@pytest.mark.parity
def test_windows_exponential_center_and_grad():
    torch = pytest.importorskip("torch")
    t = torch.signal.windows.exponential(9, center=2.0, sym=False, dtype=torch.float64, requires_grad=True)
    e = ember.signal.windows.exponential(9, center=2.0, sym=False, dtype=ember.float64, requires_grad=True)
    np.testing.assert_allclose(e.detach().numpy(), t.detach().numpy())
    assert e.requires_grad and t.requires_grad


@pytest.mark.parity
@pytest.mark.parametrize("call", [
    lambda w, lib: w.hann(-1), lambda w, lib: w.hann(5, dtype=lib.float16), lambda w, lib: w.kaiser(5, beta=-1.0),
    lambda w, lib: w.gaussian(5, std=0.0), lambda w, lib: w.exponential(5, tau=0.0),
    lambda w, lib: w.exponential(5, center=1.0), lambda w, lib: w.general_cosine(5, a=[]),
    lambda w, lib: w.general_cosine(5, a=3), lambda w, lib: w.blackman(5, dtype=lib.int64),
    lambda w, lib: w.bartlett(-2)])
def test_window_errors(call):
    torch = pytest.importorskip("torch")
    t, e = _both(lambda lib: call(lib.signal.windows, lib), torch)
    assert isinstance(t, Exception) and type(e) is type(t) and str(e) == str(t).replace("torch.", "ember.")


def _signal(*shape, seed=0, complex_=False):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape)
    return x + 1j * rng.standard_normal(shape) if complex_ else x


@pytest.mark.parity
@pytest.mark.parametrize("kw", [dict(n_fft=8, return_complex=True), dict(n_fft=8, hop_length=3, win_length=5),
                                dict(n_fft=7, center=False, normalized=True, onesided=False),
                                dict(n_fft=8, pad_mode="replicate", hop_length=8)])
@pytest.mark.parametrize("batched", [False, True])
def test_stft_istft_round_trip(kw, batched):
    """stft then istft gives the signal back (torch's and ember's agree at each stage); the window is hann."""
    torch = pytest.importorskip("torch")
    x = _signal(2, 33) if batched else _signal(33)
    kw = dict(kw)
    kw.setdefault("return_complex", True)
    inv = {k: v for k, v in kw.items() if k in ("n_fft", "hop_length", "win_length", "center", "normalized",
                                                "onesided")}
    res = []
    for lib in (torch, ember):
        w = lib.hann_window(kw.get("win_length", kw["n_fft"]), dtype=lib.float64) + 0.1
        spec = lib.stft(lib.tensor(x), window=w, **kw)
        back = lib.istft(spec, window=w, length=33, **inv)
        res.append((spec.numpy(), back.numpy()))
    np.testing.assert_allclose(res[1][0], res[0][0], rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(res[1][1], res[0][1], rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(res[1][1], x, rtol=1e-8, atol=1e-8)


@pytest.mark.parity
def test_stft_method_and_aten_overloads():
    torch = pytest.importorskip("torch")
    x = _signal(30)
    t = torch.tensor(x).stft(8, window=torch.hann_window(8, dtype=torch.float64), return_complex=True)
    e = ember.tensor(x).stft(8, window=ember.hann_window(8, dtype=ember.float64), return_complex=True)
    np.testing.assert_allclose(e.numpy(), t.numpy(), atol=1e-12)
    np.testing.assert_allclose(e.istft(8, window=ember.hann_window(8, dtype=ember.float64)).numpy(),
                               t.istft(8, window=torch.hann_window(8, dtype=torch.float64)).numpy(), atol=1e-12)
    for args in ((8, 2, 8, None, False, None, True, None), (8, 2, 8, None, True, "constant", False, None, True, None)):
        over = "default" if len(args) == 8 else "center"
        t = getattr(torch.ops.aten.stft, over)(torch.tensor(x), *args)
        e = getattr(ember.ops.aten.stft, over)(ember.tensor(x), *args)
        np.testing.assert_allclose(e.numpy(), t.numpy(), atol=1e-12)


def test_stft_warnings(monkeypatch):
    """torch warns once per process (TORCH_WARN_ONCE) that no window was given and that real output is
    deprecated."""
    from ember.kernels.decompositions import fft
    monkeypatch.setattr(fft, "_WARNED", set())
    x = ember.tensor(_signal(20))
    for first in (True, False):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            ember.stft(x, 8, return_complex=False)
        msgs = " ".join(str(m.message) for m in w)
        assert ("A window was not provided" in msgs and "return_complex=False is deprecated" in msgs) == first


def test_stft_gradcheck_complex():
    """stft of a complex signal (two-sided, complex output) and its window: first and second derivatives."""
    x = ember.tensor(_signal(14, complex_=True), requires_grad=True)
    w = ember.tensor(np.linspace(0.2, 1.0, 6), requires_grad=True)
    f = lambda x, w: ember.stft(x, 8, 3, 6, window=w, return_complex=True)  # noqa: E731
    assert gradcheck(f, (x, w))
    assert gradgradcheck(f, (x, w))


def test_istft_gradcheck_complex():
    x = _signal(2, 20)
    spec = ember.stft(ember.tensor(x), 8, window=ember.hann_window(8, dtype=ember.float64), return_complex=True)
    s = spec.detach().requires_grad_()
    w = ember.tensor(np.linspace(0.5, 1.0, 8), requires_grad=True)
    assert gradcheck(lambda s, w: ember.istft(s, 8, window=w), (s, w))
    assert gradcheck(lambda s, w: ember.istft(s, 8, window=w, onesided=False, return_complex=True),
                     (ember.fft.fft(ember.tensor(x).unfold(-1, 8, 2), dim=-1).transpose(-1, -2).detach()
                      .requires_grad_(), w))


@pytest.mark.parity
def test_stft_istft_grad_parity():
    torch = pytest.importorskip("torch")
    x = _signal(2, 24)
    grads = []
    for lib in (torch, ember):
        xt = lib.tensor(x, requires_grad=True)
        w = lib.tensor(np.linspace(0.3, 1.0, 6), requires_grad=True)
        spec = lib.stft(xt, 8, 2, 6, window=w, return_complex=True)
        y = lib.istft(spec * (1 + 0.5j), 8, 2, 6, window=w, length=24)
        (y * lib.tensor(np.arange(48.0).reshape(2, 24))).sum().backward()
        grads.append((xt.grad.numpy(), w.grad.numpy()))
    for g_e, g_t in zip(grads[1], grads[0]):
        np.testing.assert_allclose(g_e, g_t, rtol=1e-9, atol=1e-9)
