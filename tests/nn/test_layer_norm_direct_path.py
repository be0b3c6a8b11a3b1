"""F.layer_norm's direct path (nn/functional/norm.py `_layer_norm_direct`): with nothing for autograd to record it
calls the cpu native_layer_norm's C kernel itself; it must give the general path's result bit for bit and step
aside whenever the dispatcher would do something else (grad, modes, observers, autocast, other dtypes)."""
import sys

import numpy as np
import pytest

import ember
import ember.nn.functional as F
from ember import _ops
from ember._dispatch.modes import TorchDispatchMode

N = sys.modules["ember.nn.functional.norm"]
RNG = np.random.default_rng(5)


def _ln(k, affine, bias, dtype):
    m = ember.nn.LayerNorm(k, elementwise_affine=affine, bias=bias, dtype=dtype)
    if affine:
        with ember.no_grad():
            m.weight.copy_(ember.from_numpy(RNG.standard_normal(k).astype(np.dtype(str(dtype).split(".")[1]))))
            if bias:
                m.bias.copy_(ember.from_numpy(RNG.standard_normal(k).astype(np.dtype(str(dtype).split(".")[1]))))
    m(ember.ones(2, k, dtype=dtype))            # fills the dispatch caches
    with ember.no_grad():
        m(ember.ones(2, k, dtype=dtype))
    return m


def _general(monkeypatch, *args):
    with monkeypatch.context() as mp:
        mp.setattr(N, "_layer_norm_direct", lambda *a: None)
        return F.layer_norm(*args)


@pytest.mark.parametrize("dtype", [ember.float32, ember.float64])
@pytest.mark.parametrize("affine,bias", [(True, True), (True, False), (False, False)])
@pytest.mark.parametrize("shape", [(5, 16), (1, 28, 16), (2, 3, 7, 16), (1, 16)])
def test_direct_path_is_taken_and_bitwise_the_general_path(monkeypatch, dtype, affine, bias, shape):
    m = _ln(16, affine, bias, dtype)
    x = ember.from_numpy(RNG.standard_normal(shape).astype(np.dtype(str(dtype).split(".")[1])) * 3 + 1)
    with ember.no_grad():
        assert N._layer_norm_direct(x, m.normalized_shape, m.weight, m.bias, m.eps) is not None
        fast = m(x)
        ref = _general(monkeypatch, x, m.normalized_shape, m.weight, m.bias, m.eps)
    assert fast.shape == ref.shape == shape and fast.dtype is ref.dtype is dtype
    assert not fast.requires_grad and fast.grad_fn is None and fast.is_contiguous()
    np.testing.assert_array_equal(fast.numpy(), ref.numpy())


@pytest.mark.parity
def test_direct_path_matches_torch():
    torch = pytest.importorskip("torch")
    x = RNG.standard_normal((1, 28, 128)).astype(np.float32)
    w, b = RNG.standard_normal(128).astype(np.float32), RNG.standard_normal(128).astype(np.float32)
    e = ember.from_numpy(x)
    ew, eb = ember.from_numpy(w).requires_grad_(), ember.from_numpy(b).requires_grad_()
    F.layer_norm(e, (128,), ew, eb)             # fills the caches (a recorded call)
    with ember.no_grad():
        assert N._layer_norm_direct(e, (128,), ew, eb, 1e-5) is not None
        out = F.layer_norm(e, (128,), ew, eb)
    ref = torch.nn.functional.layer_norm(torch.from_numpy(x), (128,), torch.from_numpy(w), torch.from_numpy(b))
    np.testing.assert_allclose(out.numpy(), ref.numpy(), rtol=1e-5, atol=1e-5)


def test_grad_mode_with_parameters_takes_the_recorded_path():
    m = _ln(8, True, True, ember.float32)
    x = ember.randn(2, 5, 8)
    assert N._layer_norm_direct(x, m.normalized_shape, m.weight, m.bias, m.eps) is None
    y = m(x)
    assert y.requires_grad and type(y.grad_fn).__name__ == "NativeLayerNormBackward0"
    y.sum().backward()
    assert m.weight.grad.shape == (8,)


def test_declines_other_arguments_and_keeps_their_errors():
    m = _ln(8, True, True, ember.float32)
    x = ember.randn(4, 8)
    with ember.no_grad():
        d = N._layer_norm_direct
        assert d(x, m.normalized_shape, m.weight, m.bias, 1) is None                  # int eps: the binding's
        assert d(x, (4, 2), m.weight, m.bias, 1e-5) is None                           # two normalised dims
        assert d(x.t(), (4,), None, None, 1e-5) is None                               # not contiguous
        assert d(x.half(), (8,), None, None, 1e-5) is None                            # float16
        assert d(x, (8,), m.weight.double(), m.bias, 1e-5) is None                    # mixed dtypes
        assert d(ember.randn(4, 0), (0,), None, None, 1e-5) is None                   # empty
        assert d(x, (8,), "w", None, 1e-5) is None
        with pytest.raises(TypeError, match="weight"):
            F.layer_norm(x, (8,), "w")
        with pytest.raises(RuntimeError, match="normalized_shape"):
            F.layer_norm(x, (5,), None, None)
        np.testing.assert_array_equal(F.layer_norm(x, (8,), m.weight, m.bias, 1).numpy(),
                                      F.layer_norm(x, (8,), m.weight, m.bias, 1.0).numpy())


class _Log(TorchDispatchMode):
    def __init__(self):
        self.calls = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.calls.append(str(func))
        return func(*args, **(kwargs or {}))


def test_modes_observers_and_autocast_still_see_the_ops():
    m = _ln(8, True, True, ember.float32)
    x = ember.randn(2, 8)
    with ember.no_grad():
        with _Log() as mode:
            m(x)
        assert any("layer_norm" in c for c in mode.calls)
        seen = []
        _ops.set_dispatch_observer(lambda op: seen.append(str(op)))
        try:
            assert N._layer_norm_direct(x, m.normalized_shape, m.weight, m.bias, m.eps) is None
            m(x)
        finally:
            _ops.set_dispatch_observer(None)
        assert "aten.layer_norm.default" in seen and "aten.native_layer_norm.default" in seen
        with ember.autocast("cpu", dtype=ember.bfloat16):
            assert N._layer_norm_direct(x, m.normalized_shape, m.weight, m.bias, m.eps) is None
            assert m(x).dtype is ember.float32 and m(x.bfloat16()).dtype is ember.bfloat16     # as torch


NR = sys.modules["ember.kernels.cpu.norm_rows"]


def _ln_backward(x, k, w, b, g, mask):
    _, mean, rstd = ember.native_layer_norm(x, [k], w, b, 1e-5)
    return ember.ops.aten.native_layer_norm_backward.default(g, x, [k], mean, rstd, w, b, mask)


@pytest.mark.parametrize("dtype", [ember.float32, ember.float64])
@pytest.mark.parametrize("affine,bias", [(True, True), (True, False), (False, False)])
@pytest.mark.parametrize("mask", [[True, True, True], [True, False, True], [False, True, False]])
@pytest.mark.parametrize("shape", [(5, 16), (8, 32, 64), (1, 3)])
def test_backward_last_dim_path_is_bitwise_the_general_path(monkeypatch, dtype, affine, bias, mask, shape):
    """native_layer_norm_backward's one-call path (norm_rows.c_layer_norm_backward_last_dim) against the general
    path (reshapes, chunk closure, partial sums added in Python): the same bits, dtypes and Nones."""
    npdt = np.dtype(str(dtype).split(".")[1])
    k = shape[-1]
    x = ember.from_numpy(RNG.standard_normal(shape).astype(npdt) * 3 + 1)
    g = ember.from_numpy(RNG.standard_normal(shape).astype(npdt))
    w = ember.from_numpy(RNG.standard_normal(k).astype(npdt)) if affine else None
    b = ember.from_numpy(RNG.standard_normal(k).astype(npdt)) if bias else None
    _, mean, rstd = ember.native_layer_norm(x, [k], w, b, 1e-5)
    assert NR.c_layer_norm_backward_last_dim(g, x, [k], mean, rstd, w, b, mask) is not None
    fast = _ln_backward(x, k, w, b, g, mask)
    with monkeypatch.context() as mp:
        mp.setattr(NR, "c_layer_norm_backward_last_dim", lambda *a: None)
        ref = _ln_backward(x, k, w, b, g, mask)
    for f, r in zip(fast, ref):
        assert (f is None) == (r is None)
        if f is not None:
            assert f.dtype is r.dtype is dtype and f.shape == r.shape and f.is_contiguous()
            np.testing.assert_array_equal(f.numpy(), r.numpy())


def test_backward_last_dim_path_declines_broadcast_grads_and_other_dtypes():
    x = ember.randn(4, 8)
    w, b = ember.randn(8), ember.randn(8)
    _, mean, rstd = ember.native_layer_norm(x, [8], w, b, 1e-5)
    mask = [True, True, True]
    assert NR.c_layer_norm_backward_last_dim(ember.ones(()).expand(4, 8), x, [8], mean, rstd, w, b, mask) is None
    assert NR.c_layer_norm_backward_last_dim(ember.ones(4, 8, dtype=ember.float64), x, [8], mean, rstd, w, b,
                                             mask) is None
    assert NR.c_layer_norm_backward_last_dim(ember.ones(4, 8), x, [8], mean, rstd, w, b.double(), mask) is None
    xh = x.half()
    _, mh, rh = ember.native_layer_norm(xh, [8], None, None, 1e-5)
    assert NR.c_layer_norm_backward_last_dim(ember.ones(4, 8).half(), xh, [8], mh, rh, None, None, mask) is None


@pytest.mark.parity
def test_layer_norm_grads_through_the_last_dim_path_match_torch():
    torch = pytest.importorskip("torch")
    xs = RNG.standard_normal((8, 32, 64)).astype(np.float32)
    ws, bs = RNG.standard_normal(64).astype(np.float32), RNG.standard_normal(64).astype(np.float32)
    gs = RNG.standard_normal((8, 32, 64)).astype(np.float32)
    out = []
    for lib in (ember, torch):
        x, w, b = (lib.tensor(a, requires_grad=True) for a in (xs, ws, bs))
        lib.nn.functional.layer_norm(x, (64,), w, b).backward(lib.tensor(gs))
        out.append([t.grad.numpy() for t in (x, w, b)])
    for e, t in zip(*out):
        np.testing.assert_allclose(e, t, rtol=1e-4, atol=1e-4)
