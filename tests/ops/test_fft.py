"""ember.fft against torch.fft: values, dtypes, shapes, errors and gradients of every transform
(the aten ops of native/fft.yaml and the composites of ember/fft/__init__.py)."""
import numpy as np
import pytest

import ember
from ember.autograd import gradcheck

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.parity

# (function, kwargs, input shape)
CASES = [
    ("fft", {}, (3, 8)), ("fft", {"n": 5, "norm": "ortho"}, (3, 8)), ("fft", {"n": 11, "dim": 0}, (3, 8)),
    ("ifft", {}, (3, 8)), ("ifft", {"norm": "forward"}, (7,)), ("ifft", {"n": 4, "dim": -2}, (3, 5, 2)),
    ("rfft", {}, (3, 8)), ("rfft", {"n": 7, "norm": "ortho"}, (3, 8)), ("rfft", {"dim": 0}, (5, 2)),
    ("irfft", {}, (3, 5)), ("irfft", {"n": 9, "norm": "forward"}, (3, 5)), ("irfft", {"n": 4, "dim": 0}, (6, 2)),
    ("hfft", {}, (3, 5)), ("hfft", {"n": 7, "norm": "ortho"}, (4,)),
    ("ihfft", {}, (3, 8)), ("ihfft", {"n": 5, "norm": "forward"}, (6,)),
    ("fft2", {}, (2, 3, 4)), ("fft2", {"s": (4, 3), "norm": "ortho"}, (3, 5)),
    ("ifft2", {}, (3, 4)), ("ifft2", {"s": (2, -1), "dim": (0, 2)}, (3, 4, 5)),
    ("rfft2", {}, (4, 6)), ("rfft2", {"s": (5, 5)}, (3, 4)),
    ("irfft2", {}, (4, 4)), ("irfft2", {"s": (3, 7), "norm": "forward"}, (4, 4)),
    ("fftn", {}, (2, 3, 4)), ("fftn", {"dim": (0, 2)}, (2, 3, 4)), ("fftn", {"s": (3, 3)}, (2, 3, 4)),
    ("ifftn", {"norm": "ortho"}, (2, 3, 4)),
    ("rfftn", {}, (2, 3, 4)), ("rfftn", {"dim": (1, 0)}, (4, 5)),
    ("irfftn", {}, (2, 3, 4)), ("irfftn", {"s": (2, -1)}, (3, 4)), ("irfftn", {"s": (3, 6), "dim": (0, 1)}, (3, 4)),
    ("hfft2", {}, (3, 4)), ("hfftn", {"s": (4, 5), "norm": "ortho"}, (3, 4)),
    ("ihfft2", {}, (3, 4)), ("ihfftn", {"norm": "forward"}, (2, 3, 4)),
]
DTYPES = ["float32", "float64", "complex64", "complex128", "int64"]


def _input(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape)
    if dtype.startswith("complex"):
        x = x + 1j * rng.standard_normal(shape)
    if dtype == "int64":
        x = np.round(x * 3)
    return x.astype(dtype)


def _run(mod, name, x, kw):
    try:
        return getattr(mod.fft, name)(x, **kw)
    except Exception as e:  # noqa: BLE001  (the error itself is compared)
        return e


def _np(t):
    return t.resolve_conj().detach().numpy()


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name,kw,shape", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_forward_parity(name, kw, shape, dtype):
    x = _input(shape, dtype)
    a, b = _run(ember, name, ember.tensor(x), kw), _run(torch, name, torch.tensor(x), kw)
    if isinstance(b, Exception):
        assert isinstance(a, type(b)), (a, b)
        if "Only supports floating-point" not in str(b):   # torch's ihfftn checks the dtype in another place
            assert str(a) == str(b)
        return
    assert not isinstance(a, Exception), a
    assert str(a.dtype).split(".")[-1] == str(b.dtype).split(".")[-1]
    assert tuple(a.shape) == tuple(b.shape)
    tol = 1e-4 if b.dtype in (torch.float32, torch.complex64) else 1e-10
    np.testing.assert_allclose(_np(a), _np(b), rtol=tol, atol=tol)


def _loss_weights(shape, complex_out, seed=3):
    rng = np.random.default_rng(seed)
    w = rng.standard_normal(shape)
    return w + 1j * rng.standard_normal(shape) if complex_out else w


def _grad(mod, name, x, kw, w):
    x = mod.tensor(x, requires_grad=True)
    y = getattr(mod.fft, name)(x, **kw)
    w = mod.tensor(w.astype(np.complex128 if y.dtype.is_complex else np.float64))
    loss = (y * w.conj()).real.sum() if y.dtype.is_complex else (y * w).sum()
    loss.backward()
    return x.grad


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
@pytest.mark.parametrize("name,kw,shape", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_grad_parity(name, kw, shape, dtype):
    x = _input(shape, dtype, seed=1)
    b = _run(torch, name, torch.tensor(x), kw)
    if isinstance(b, Exception):
        pytest.skip("torch refuses this input")
    w = _loss_weights(tuple(b.shape), b.is_complex())
    ga, gb = _grad(ember, name, x, kw, w), _grad(torch, name, x, kw, w)
    assert str(ga.dtype).split(".")[-1] == str(gb.dtype).split(".")[-1]
    np.testing.assert_allclose(_np(ga), _np(gb), rtol=1e-9, atol=1e-9)


def _real_view(y):
    return ember.view_as_real(y.resolve_conj()) if y.dtype.is_complex else y


@pytest.mark.parametrize("name,kw,shape", [c for c in CASES if c[0] in ("fft", "rfft", "irfft", "hfft", "ihfft",
                                                                        "rfft2", "irfftn", "ifftn")][::2])
def test_gradcheck(name, kw, shape):
    """Finite differences on real inputs (and on complex inputs through view_as_complex)."""
    x = ember.tensor(_input(shape, "float64", seed=2), requires_grad=True)
    assert gradcheck(lambda t: _real_view(getattr(ember.fft, name)(t, **kw)), (x,))
    if name in ("rfft", "ihfft", "rfft2"):
        return
    z = ember.tensor(_input(shape + (2,), "float64", seed=4), requires_grad=True)
    assert gradcheck(lambda t: _real_view(getattr(ember.fft, name)(ember.view_as_complex(t), **kw)), (z,))


def test_grad_fn_names():
    x = ember.randn(4, requires_grad=True)
    assert type(ember.fft.rfft(x).grad_fn).__name__ == "FftR2CBackward0"
    assert type(ember.fft.irfft(ember.fft.rfft(x)).grad_fn).__name__ == "FftC2RBackward0"
    assert type(ember.fft.fft(ember.fft.rfft(x)).grad_fn).__name__ == "FftC2CBackward0"


@pytest.mark.parametrize("call", [
    lambda m, x: m.fft.fft(x, norm="foo"), lambda m, x: m.fft.fft(x, n=0), lambda m, x: m.fft.irfft(x[:1]),
    lambda m, x: m.fft.fftn(x, s=(2, 3), dim=(0,)), lambda m, x: m.fft.fftn(x, dim=(0, 0)),
    lambda m, x: m.fft.fft(x, dim=3), lambda m, x: m.fft.fft(x[0]), lambda m, x: m.fft.fft(x.half()),
    lambda m, x: m.fft.fft(x.bfloat16()), lambda m, x: m.fft.rfft(x[:0]), lambda m, x: m.fft.fft2(x, s=(3, 4, 5)),
], ids=["norm", "n0", "irfft-n0", "s-dim-len", "dims-unique", "dim-range", "0-dim", "half", "bfloat16", "empty",
        "s-too-long"])
def test_errors(call):
    x = np.arange(4, dtype=np.float32)
    with pytest.raises(Exception) as te:
        call(torch, torch.tensor(x))
    with pytest.raises(type(te.value)) as ee:
        call(ember, ember.tensor(x))
    assert str(ee.value) == str(te.value)


@pytest.mark.parametrize("n,d,dtype", [(1, 1.0, None), (5, 1.0, None), (8, 0.5, "float64"), (7, 2.0, None)])
def test_fftfreq(n, d, dtype):
    for f in ("fftfreq", "rfftfreq"):
        kw = {} if dtype is None else {"dtype": getattr(ember, dtype)}
        tkw = {} if dtype is None else {"dtype": getattr(torch, dtype)}
        a, b = getattr(ember.fft, f)(n, d, **kw), getattr(torch.fft, f)(n, d, **tkw)
        assert str(a.dtype).split(".")[-1] == str(b.dtype).split(".")[-1]
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-6)


@pytest.mark.parametrize("shape,dim", [((6,), None), ((5,), None), ((3, 4), None), ((3, 5), 1), ((3, 5), (0,))])
def test_fftshift(shape, dim):
    x = np.arange(int(np.prod(shape))).reshape(shape)
    for f in ("fftshift", "ifftshift"):
        a = getattr(ember.fft, f)(ember.tensor(x), dim)
        b = getattr(torch.fft, f)(torch.tensor(x), dim)
        np.testing.assert_array_equal(a.numpy(), b.numpy())


def test_out():
    x = _input((3, 8), "float32")
    out = ember.empty(0, dtype=ember.complex64)
    r = ember.fft.rfft(ember.tensor(x), out=out)
    assert r is out and tuple(out.shape) == (3, 5)
    np.testing.assert_allclose(out.numpy(), torch.fft.rfft(torch.tensor(x)).numpy(), rtol=1e-5, atol=1e-5)


def test_meta_shapes():
    x = ember.empty(3, 8, device="meta")
    assert tuple(ember.fft.rfft(x).shape) == (3, 5) and ember.fft.rfft(x).dtype == ember.complex64
    assert tuple(ember.fft.irfft(ember.fft.rfft(x), n=8).shape) == (3, 8)
    assert ember.fft.fft2(x).dtype == ember.complex64


def test_not_imported_by_import_ember():
    import os
    import subprocess
    import sys
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(ember.__file__)))
    code = "import sys, ember; print('ember.fft' in sys.modules); ember.fft; print('ember.fft' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env=env).stdout.split()
    assert out == ["False", "True"]
