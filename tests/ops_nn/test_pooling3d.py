"""3-D pools (pool3d.yaml): values, indices and gradients against torch, gradcheck of the pools and of their
backward ops (double backward), argument errors, meta shapes, and the nn modules."""
import numpy as np
import pytest

import ember
import ember.nn.functional as F
from ember.autograd import gradcheck, gradgradcheck


def _x(shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


def _e(a, rg=False):
    return ember.tensor(a.tolist(), dtype=ember.float64, requires_grad=rg)


CASES = [   # (name, F call taking (module F, x), input shape)
    ("max", lambda f, x: f.max_pool3d(x, 2), (2, 3, 5, 6, 4)),
    ("max_pad_ceil", lambda f, x: f.max_pool3d(x, 3, stride=2, padding=1, ceil_mode=True), (1, 2, 7, 6, 5)),
    ("max_dilation", lambda f, x: f.max_pool3d(x, (2, 3, 2), stride=(1, 2, 1), dilation=2), (2, 6, 7, 6)),
    ("avg", lambda f, x: f.avg_pool3d(x, 2), (2, 3, 5, 6, 4)),
    ("avg_pad", lambda f, x: f.avg_pool3d(x, 3, 2, 1, ceil_mode=True, count_include_pad=False), (1, 2, 7, 6, 5)),
    ("avg_pad_incl", lambda f, x: f.avg_pool3d(x, 3, 2, 1), (1, 2, 7, 6, 5)),
    ("avg_divisor", lambda f, x: f.avg_pool3d(x, (1, 2, 3), divisor_override=4), (2, 4, 4, 6)),
    ("adaptive_avg", lambda f, x: f.adaptive_avg_pool3d(x, (2, 4, 3)), (2, 3, 5, 6, 7)),
    ("adaptive_avg_up", lambda f, x: f.adaptive_avg_pool3d(x, (7, None, 2)), (1, 2, 5, 3, 4)),
    ("adaptive_max", lambda f, x: f.adaptive_max_pool3d(x, (2, 4, 3)), (2, 3, 5, 6, 7)),
    ("adaptive_max_up", lambda f, x: f.adaptive_max_pool3d(x, 6), (2, 4, 5, 3)),
]


@pytest.mark.parity
@pytest.mark.parametrize("name,call,shape", CASES, ids=[c[0] for c in CASES])
def test_values_and_grads_match_torch(name, call, shape):
    torch = pytest.importorskip("torch")
    a = _x(shape)
    x, tx = _e(a, True), torch.tensor(a, requires_grad=True)
    out, tout = call(F, x), call(torch.nn.functional, tx)
    assert tuple(out.shape) == tuple(tout.shape)
    np.testing.assert_allclose(out.detach().numpy(), tout.detach().numpy(), rtol=1e-12, atol=1e-12)
    g = _x(tuple(tout.shape), seed=7)
    (gx,) = ember.autograd.grad(out, x, _e(g))
    (tgx,) = torch.autograd.grad(tout, tx, torch.tensor(g))
    np.testing.assert_allclose(gx.numpy(), tgx.numpy(), rtol=1e-12, atol=1e-12)


SMALL = {"max": (1, 1, 2, 4, 2), "max_pad_ceil": (1, 1, 3, 4, 3), "max_dilation": (1, 3, 5, 3),
         "avg": (1, 1, 2, 4, 2), "avg_pad": (1, 1, 3, 4, 3), "avg_pad_incl": (1, 1, 3, 4, 3), "avg_divisor": (1, 2, 2, 3),
         "adaptive_avg": (1, 1, 3, 5, 4), "adaptive_avg_up": (1, 1, 3, 2, 3), "adaptive_max": (1, 1, 3, 5, 4),
         "adaptive_max_up": (1, 2, 3, 2)}   # gradcheck inputs: the same windows over fewer elements


@pytest.mark.parametrize("name,call,shape", CASES, ids=[c[0] for c in CASES])
def test_gradcheck_and_double_backward(name, call, shape):
    x = _e(_x(SMALL[name], seed=3), True)
    assert gradcheck(lambda t: call(F, t), [x])
    assert gradgradcheck(lambda t: call(F, t), [x])


@pytest.mark.parity
@pytest.mark.parametrize("call", [
    lambda f, x: f.max_pool3d_with_indices(x, 2),
    lambda f, x: f.max_pool3d_with_indices(x, 3, 2, 1, 1, True),
    lambda f, x: f.adaptive_max_pool3d(x, (2, 3, 4)),
    lambda f, x: f.adaptive_max_pool3d(x[0], (7, 1, 2)),
])
def test_indices_match_torch(call):
    torch = pytest.importorskip("torch")
    a = _x((2, 3, 5, 6, 7))
    a[0, 0, 0, 0, :2] = 5.0           # a tie: the first position wins
    a[1, 1, 1, 1, 1:3] = np.nan       # NaNs win
    (v, i), (tv, ti) = call(ember._nn, _e(a)), call(torch._C._nn, torch.tensor(a))
    np.testing.assert_array_equal(i.numpy(), ti.numpy())
    np.testing.assert_array_equal(v.numpy(), tv.numpy())
    assert i.dtype == ember.int64


@pytest.mark.parity
@pytest.mark.parametrize("call", [
    lambda f, x: f.max_pool3d(x[0, 0], 2),
    lambda f, x: f.max_pool3d(x, 2, padding=2),
    lambda f, x: f.max_pool3d(x, (2, 2)),
    lambda f, x: f.max_pool3d(x, 5),
    lambda f, x: f.max_pool3d(x, 2, stride=0),
    lambda f, x: f.avg_pool3d(x[0, 0], 2),
    lambda f, x: f.avg_pool3d(x, 2, divisor_override=0),
    lambda f, x: f.adaptive_avg_pool3d(x[0, 0], 2),
    lambda f, x: f.adaptive_avg_pool3d(x, (2, 2)),
    lambda f, x: f.adaptive_max_pool3d(x[0, 0], 2),
    lambda f, x: f.adaptive_max_pool3d(x, (2, 2)),
])
def test_errors_match_torch(call):
    torch = pytest.importorskip("torch")
    a = _x((1, 2, 4, 4, 4))
    with pytest.raises(Exception) as te:
        call(torch.nn.functional, torch.tensor(a))
    with pytest.raises(type(te.value)) as ee:
        call(F, _e(a))
    assert str(ee.value) == str(te.value)


@pytest.mark.parametrize("name,call,shape", CASES, ids=[c[0] for c in CASES])
def test_meta_shapes(name, call, shape):
    x = _e(_x(shape))
    out, mout = call(F, x), call(F, x.to("meta"))
    assert mout.device.type == "meta" and tuple(mout.shape) == tuple(out.shape) and mout.dtype == out.dtype


def test_output_indices_not_differentiable():
    x = _e(_x((1, 2, 4, 4, 4)), True)
    for v, i in (ember._nn.max_pool3d_with_indices(x, 2), ember._nn.adaptive_max_pool3d(x, 3)):
        assert v.grad_fn is not None and not i.requires_grad and i.grad_fn is None


@pytest.mark.parity
def test_modules_match_torch():
    torch = pytest.importorskip("torch")
    a = _x((2, 3, 5, 6, 7)).astype(np.float32)
    pairs = [(ember.nn.MaxPool3d(2, return_indices=True), torch.nn.MaxPool3d(2, return_indices=True)),
             (ember.nn.AvgPool3d(3, 2, 1), torch.nn.AvgPool3d(3, 2, 1)),
             (ember.nn.AdaptiveAvgPool3d((2, None, 3)), torch.nn.AdaptiveAvgPool3d((2, None, 3))),
             (ember.nn.AdaptiveMaxPool3d(2), torch.nn.AdaptiveMaxPool3d(2))]
    for em, tm in pairs:
        assert repr(em) == repr(tm)
        out, tout = em(ember.tensor(a)), tm(torch.tensor(a))
        out = out if isinstance(out, tuple) else (out,)
        tout = tout if isinstance(tout, tuple) else (tout,)
        for u, v in zip(out, tout):
            np.testing.assert_allclose(u.numpy(), v.numpy(), rtol=1e-6, atol=1e-6)
