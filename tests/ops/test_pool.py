"""The pools, 1-d to 3-d (max/avg/adaptive, max_unpool): values, indices, grads, meta and errors against torch."""
import numpy as np
import pytest
import ember
import ember.nn.functional as EF
from ._nn_util import DTYPES, arr, close, meta_matches, pair
import ember.nn.functional as F
from ember.autograd import gradcheck, gradgradcheck


@pytest.mark.parity
@pytest.mark.parametrize("dtype", DTYPES)
def test_max_unpool2d(dtype):
    torch = pytest.importorskip("torch")
    x, tx = pair(torch, arr(2, 3, 6, 6, dtype=dtype))
    v, i = EF.max_pool2d(x, 2, return_indices=True)
    tv, ti = torch.nn.functional.max_pool2d(tx, 2, return_indices=True)
    close(EF.max_unpool2d(v, i, 2), torch.nn.functional.max_unpool2d(tv, ti, 2))
    close(EF.max_unpool2d(v, i, 2, output_size=(7, 7)), torch.nn.functional.max_unpool2d(tv, ti, 2, output_size=(7, 7)))




SHAPES = [(2, 0, 4, 4), (0, 3, 4, 4), (0, 4, 4), (3, 0, 4), (2, 0, 4), (0, 4), (2, 3, 0, 4), (3, 4), (2, 3, 4, 4, 4)]


CALLS = {
    "max_pool2d": lambda F, x: F.max_pool2d(x, 2),
    "avg_pool2d": lambda F, x: F.avg_pool2d(x, 2),
    "adaptive_avg_pool2d": lambda F, x: F.adaptive_avg_pool2d(x, 2),
    "adaptive_max_pool2d": lambda F, x: F.adaptive_max_pool2d(x, 2),
    "max_pool1d": lambda F, x: F.max_pool1d(x, 2),
}


def _run(lib, F, name, shape, device="cpu"):
    try:
        return tuple(CALLS[name](F, lib.zeros(shape, device=device)).shape), None
    except (RuntimeError, IndexError) as e:
        return None, f"{type(e).__name__}: {e}"


@pytest.mark.parametrize("device", ["cpu", "meta"])
def test_a_channel_dim_of_zero_is_refused_by_the_2d_pools(device):
    for name in ("max_pool2d", "avg_pool2d"):
        with pytest.raises(RuntimeError, match=r"Expected 3D or 4D \(batch mode\) tensor with optional 0 dim "
                                               r"batch size for input, but got:\[2, 0, 4, 4\]"):
            CALLS[name](F, ember.zeros(2, 0, 4, 4, device=device))
        assert tuple(CALLS[name](F, ember.zeros(0, 3, 4, 4, device=device)).shape) == (0, 3, 2, 2)


@pytest.mark.parity
@pytest.mark.parametrize("name", sorted(CALLS))
@pytest.mark.parametrize("shape", SHAPES)
def test_empty_dims_like_torch(name, shape):
    torch = pytest.importorskip("torch")
    got, err = _run(ember, F, name, shape)
    want, terr = _run(torch, torch.nn.functional, name, shape)
    assert got == want
    assert (err is None) == (terr is None)
    if terr is not None:
        assert err == terr


MAX2D = [
    ((2, 3, 8, 7), dict(kernel_size=2)),
    ((2, 3, 8, 7), dict(kernel_size=3, stride=2, padding=1, ceil_mode=True)),
    ((3, 9, 9), dict(kernel_size=(3, 2), stride=(2, 1), padding=(1, 0), dilation=(2, 1))),
    ((1, 2, 5, 5), dict(kernel_size=2, stride=2, ceil_mode=True)),
    ((1, 1, 6, 6), dict(kernel_size=3, stride=2, padding=1, dilation=1, ceil_mode=False)),
]


AVG2D = [
    ((2, 3, 8, 7), dict(kernel_size=2)),
    ((2, 3, 8, 7), dict(kernel_size=3, stride=2, padding=1, ceil_mode=True)),
    ((2, 3, 8, 7), dict(kernel_size=3, stride=2, padding=1, ceil_mode=True, count_include_pad=False)),
    ((3, 9, 9), dict(kernel_size=(3, 2), stride=(2, 1), padding=(1, 0), divisor_override=4)),
    ((1, 2, 5, 5), dict(kernel_size=2, stride=2, ceil_mode=True, count_include_pad=False)),
]


@pytest.mark.parity
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,kw", MAX2D)
def test_max_pool2d(dtype, shape, kw):
    torch = pytest.importorskip("torch")
    x, tx = pair(torch, arr(*shape, dtype=dtype))
    ev, ei = ember._nn.max_pool2d_with_indices(x, **kw)
    tv, ti = torch.nn.functional.max_pool2d(tx, return_indices=True, **kw)
    close(ev, tv)
    close(ei, ti)
    close(ember.max_pool2d(x, **kw), torch.nn.functional.max_pool2d(tx, **kw))
    meta_matches(ember._nn.max_pool2d_with_indices, x, **kw)


@pytest.mark.parity
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,kw", [((2, 3, 9), dict(kernel_size=2)), ((3, 10), dict(kernel_size=3, stride=2, padding=1,
                                                                                     dilation=2, ceil_mode=True))])
def test_max_pool1d(dtype, shape, kw):
    torch = pytest.importorskip("torch")
    x, tx = pair(torch, arr(*shape, dtype=dtype))
    close(ember.max_pool1d(x, **kw), torch.nn.functional.max_pool1d(tx, **kw))
    for e, t in zip(ember.max_pool1d_with_indices(x, **kw), torch.nn.functional.max_pool1d(tx, return_indices=True, **kw)):
        close(e, t)


def test_max_pool_int_and_nan():
    torch = pytest.importorskip("torch")
    x, tx = pair(torch, np.arange(32, dtype=np.int64).reshape(1, 2, 4, 4))
    close(ember.max_pool2d(x, 2), torch.nn.functional.max_pool2d(tx, 2))
    a = arr(1, 1, 4, 4)
    a[0, 0, 1, 1] = np.nan
    x, tx = pair(torch, a)
    close(ember.max_pool2d(x, 2), torch.nn.functional.max_pool2d(tx, 2))


@pytest.mark.parity
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,kw", AVG2D)
def test_avg_pool2d(dtype, shape, kw):
    torch = pytest.importorskip("torch")
    x, tx = pair(torch, arr(*shape, dtype=dtype))
    close(ember._nn.avg_pool2d(x, **kw), torch.nn.functional.avg_pool2d(tx, **kw))
    meta_matches(ember._nn.avg_pool2d, x, **kw)


@pytest.mark.parity
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("kw", [dict(kernel_size=3), dict(kernel_size=3, stride=2, padding=1, ceil_mode=True,
                                                         count_include_pad=False)])
def test_avg_pool1d(dtype, kw):
    torch = pytest.importorskip("torch")
    x, tx = pair(torch, arr(2, 3, 10, dtype=dtype))
    close(ember.avg_pool1d(x, **kw), torch.nn.functional.avg_pool1d(tx, **kw))


@pytest.mark.parity
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,o", [((2, 3, 7, 9), (3, 4)), ((3, 5, 5), (5, 5)), ((1, 2, 6, 4), (4, 6)),
                                     ((1, 2, 5, 5), (1, 1))])
def test_adaptive_pool2d(dtype, shape, o):
    torch = pytest.importorskip("torch")
    x, tx = pair(torch, arr(*shape, dtype=dtype))
    close(ember._nn.adaptive_avg_pool2d(x, o), torch.nn.functional.adaptive_avg_pool2d(tx, o))
    for e, t in zip(ember._nn.adaptive_max_pool2d(x, o), torch.nn.functional.adaptive_max_pool2d(tx, o, True)):
        close(e, t)
    meta_matches(ember._nn.adaptive_max_pool2d, x, o)
    meta_matches(ember._nn.adaptive_avg_pool2d, x, o)


@pytest.mark.parity
@pytest.mark.parametrize("o", [1, 3, 7])
def test_adaptive_pool1d(o):
    torch = pytest.importorskip("torch")
    x, tx = pair(torch, arr(2, 3, 7))
    close(ember.adaptive_avg_pool1d(x, o), torch.nn.functional.adaptive_avg_pool1d(tx, o))
    for e, t in zip(ember.adaptive_max_pool1d(x, o), torch.nn.functional.adaptive_max_pool1d(tx, o, True)):
        close(e, t)


@pytest.mark.parity
@pytest.mark.parametrize("call", [
    lambda m, x: m.max_pool2d(x, 3, padding=2),
    lambda m, x: m.avg_pool2d(x, 3, padding=2),
    lambda m, x: m.max_pool2d(x[0, 0], 3),
    lambda m, x: m.max_pool2d(x[0, :, :2, :2], 3),
    lambda m, x: m.max_pool2d(x, 3, stride=0),
    lambda m, x: m.adaptive_avg_pool2d(x[0, 0, 0], 3),
])
def test_pool_errors(call):
    torch = pytest.importorskip("torch")
    x, tx = pair(torch, arr(1, 3, 5, 5))
    with pytest.raises(Exception) as te:
        call(torch.nn.functional, tx)
    with pytest.raises(type(te.value)) as ee:
        call(ember.nn.functional, x)
    assert str(ee.value) == str(te.value)


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


SMALL = {"max": (1, 1, 2, 4, 2), "max_pad_ceil": (1, 1, 3, 4, 3), "max_dilation": (1, 3, 5, 3),
         "avg": (1, 1, 2, 4, 2), "avg_pad": (1, 1, 3, 4, 3), "avg_pad_incl": (1, 1, 3, 4, 3), "avg_divisor": (1, 2, 2, 3),
         "adaptive_avg": (1, 1, 3, 5, 4), "adaptive_avg_up": (1, 1, 3, 2, 3), "adaptive_max": (1, 1, 3, 5, 4),
         "adaptive_max_up": (1, 2, 3, 2)}   # gradcheck inputs: the same windows over fewer elements


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


# ---------------------------------------------------------------- max_unpool1d / 3d and the *_with_indices names
@pytest.mark.parity
@pytest.mark.parametrize("dims,kw", [
    (1, dict(kernel_size=2)), (1, dict(kernel_size=3, stride=2, padding=1, output_size=[8])), (1, dict(kernel_size=2, output_size=[9])),
    (3, dict(kernel_size=2)), (3, dict(kernel_size=(1, 2, 2), stride=(1, 2, 1))),
    (3, dict(kernel_size=2, output_size=[1, 2, 5, 5, 5])),
])
def test_max_unpool_1d_3d_match_torch_with_gradients(dims, kw):
    torch = pytest.importorskip("torch")
    import numpy as np
    shape = (2, 3, 8) if dims == 1 else (1, 2, 4, 6, 4)
    data = np.random.default_rng(0).standard_normal(shape)
    res = []
    for lib in (ember, torch):
        F = lib.nn.functional
        pool = getattr(F, f"max_pool{dims}d")
        p = {k: v for k, v in kw.items() if k in ("kernel_size", "stride", "padding")}
        out, idx = pool(lib.tensor(data), return_indices=True, **p)
        x = out.clone().requires_grad_()
        un = getattr(F, f"max_unpool{dims}d")(x, idx, **kw)
        module = getattr(lib.nn, f"MaxUnpool{dims}d")(**p)
        same = module(x.detach(), idx, output_size=kw.get("output_size"))
        (un * lib.arange(1.0, un.numel() + 1, dtype=un.dtype).reshape(un.shape)).sum().backward()
        res.append((un.detach().numpy(), same.numpy(), x.grad.numpy(), repr(module)))
    for a, b in zip(res[0][:3], res[1][:3]):
        np.testing.assert_array_equal(a, b)
    assert res[0][3] == res[1][3]


@pytest.mark.parity
def test_max_unpool_output_size_errors_match_torch():
    torch = pytest.importorskip("torch")
    for call in (lambda F, x, i: F.max_unpool1d(x, i, 2, output_size=[20]),
                 lambda F, x, i: F.max_unpool1d(x, i, 2, output_size=[1, 2, 3, 4])):
        msgs = []
        for lib in (ember, torch):
            x, i = lib.nn.functional.max_pool1d(lib.ones(1, 2, 8), 2, return_indices=True)
            with pytest.raises(ValueError) as e:
                call(lib.nn.functional, x, i)
            msgs.append(str(e.value))
        assert msgs[0] == msgs[1]


@pytest.mark.parity
@pytest.mark.parametrize("name,args", [
    ("max_pool1d_with_indices", (3,)), ("max_pool2d_with_indices", (2, 1, 1)), ("max_pool3d_with_indices", (2,)),
    ("adaptive_max_pool1d_with_indices", (3,)), ("adaptive_max_pool2d_with_indices", ((2, 3),)),
    ("adaptive_max_pool3d_with_indices", (2,)),
])
def test_with_indices_names_match_torch(name, args):
    torch = pytest.importorskip("torch")
    import numpy as np
    dims = int(name.split("pool")[1][0])
    data = np.random.default_rng(1).standard_normal((2, 3) + (6,) * dims)
    res = [getattr(lib.nn.functional, name)(lib.tensor(data), *args) for lib in (ember, torch)]
    assert isinstance(res[0], tuple) and len(res[0]) == 2
    for a, b in zip(res[0], res[1]):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
