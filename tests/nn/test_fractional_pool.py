"""nn.FractionalMaxPool2d/3d and F.fractional_max_pool2d/3d(_with_indices) against torch: values, indices and
gradients given the same _random_samples, torch's argument errors, the random path's invariants."""
import numpy as np
import pytest

import ember
import ember.nn.functional as EF


def _both(fn, torch):
    out = []
    for lib in (torch, ember):
        try:
            out.append(fn(lib))
        except Exception as e:  # noqa: BLE001  (compared below)
            out.append(e)
    return out


def _same_error(t, e):
    assert isinstance(t, Exception), t
    assert type(e) is type(t) and str(e) == str(t), (t, e)


@pytest.mark.parity
@pytest.mark.parametrize("d,shape,k,kw", [
    (2, (2, 3, 12, 10), 3, {"output_size": (5, 4)}), (2, (3, 8, 8), 2, {"output_ratio": 0.5}),
    (2, (1, 2, 9, 9), (2, 3), {"output_size": 7}), (3, (2, 2, 8, 7, 9), 2, {"output_size": (3, 4, 5)}),
    (3, (2, 6, 6, 6), (3, 2, 2), {"output_ratio": (0.5, 0.5, 0.6)})])
def test_module_matches_torch(d, shape, k, kw):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    x = rng.standard_normal(shape)
    n = shape[0] if len(shape) == d + 2 else 1
    u = rng.random((n, shape[-d - 1], d))
    res = []
    for lib in (torch, ember):
        cls = getattr(lib.nn, f"FractionalMaxPool{d}d")
        m = cls(k, return_indices=True, _random_samples=lib.tensor(u), **kw)
        xt = lib.tensor(x, requires_grad=True)
        v, i = m(xt)
        (v * lib.tensor(np.arange(v.numel(), dtype=np.float64).reshape(v.shape))).sum().backward()
        res.append((v.detach().numpy(), i.numpy(), xt.grad.numpy(), sorted(m.state_dict()), repr(m)))
    np.testing.assert_allclose(res[1][0], res[0][0])
    np.testing.assert_array_equal(res[1][1], res[0][1])
    np.testing.assert_allclose(res[1][2], res[0][2])
    assert res[1][3:] == res[0][3:]


def test_random_samples_drawn_when_not_given():
    """Without _random_samples each call draws its own: shapes as asked, every index inside the plane, each
    value the input's value at its index; the manual seed fixes the draw."""
    x = ember.randn(2, 3, 11, 10)
    ember.manual_seed(3)
    v, i = EF.fractional_max_pool2d(x, 2, output_ratio=(0.5, 0.5), return_indices=True)
    assert tuple(v.shape) == (2, 3, 5, 5) and i.dtype == ember.int64
    assert int(i.min()) >= 0 and int(i.max()) < 110
    np.testing.assert_array_equal(x.flatten(-2).gather(-1, i.flatten(-2)).view_as(i).numpy(), v.numpy())
    ember.manual_seed(3)
    np.testing.assert_array_equal(EF.fractional_max_pool2d(x, 2, output_ratio=(0.5, 0.5)).numpy(), v.numpy())
    v3 = EF.fractional_max_pool3d(ember.randn(3, 6, 6, 6), 2, output_size=3)
    assert tuple(v3.shape) == (3, 3, 3, 3)


@pytest.mark.parity
@pytest.mark.parametrize("call", [
    lambda F, lib, x: F.fractional_max_pool2d(x, 2),
    lambda F, lib, x: F.fractional_max_pool2d(x, 2, output_size=(9, 9)),
    lambda F, lib, x: F.fractional_max_pool2d(x, 6, output_size=(5, 5)),
    lambda F, lib, x: F.fractional_max_pool2d(x, (2, 2, 2), output_size=3),
    lambda F, lib, x: F.fractional_max_pool2d(x, 2, output_size=(3, 3, 3)),
    lambda F, lib, x: F.fractional_max_pool2d(x, 2, output_ratio=(0.5, 0.5, 0.5)),
    lambda F, lib, x: F.fractional_max_pool2d(x, 2, output_size=3, _random_samples=lib.rand(1, 3, 2)),
    lambda F, lib, x: F.fractional_max_pool2d(x, 2, output_size=3, _random_samples=lib.rand(2, 3, 3)),
    lambda F, lib, x: F.fractional_max_pool2d(x, 2, output_size=3, _random_samples=lib.rand(2, 4, 2)),
    lambda F, lib, x: F.fractional_max_pool2d(x, 2, output_size=3, _random_samples=lib.rand(6, 2)),
    lambda F, lib, x: F.fractional_max_pool2d(x, 2, output_size=3, _random_samples=lib.rand(2, 3, 2).double()),
    lambda F, lib, x: F.fractional_max_pool2d(x[:, :0], 2, output_size=3),
    lambda F, lib, x: F.fractional_max_pool2d(x[0, 0, 0], 2, output_size=3),
    lambda F, lib, x: F.fractional_max_pool2d(x.double(), 2, output_size=3,
                                              _random_samples=lib.rand(2, 3, 2, dtype=lib.float64,
                                                                       requires_grad=True)),
    lambda F, lib, x: F.fractional_max_pool3d(x, 2),
    lambda F, lib, x: F.fractional_max_pool3d(x[None], 2, output_size=3, _random_samples=lib.rand(1, 2, 2)),
    lambda F, lib, x: F.fractional_max_pool3d(x, 2, output_size=(3, 3)),
    lambda F, lib, x: F.fractional_max_pool3d(x, (3, 2, 2), output_size=(1, 3, 3)),
    lambda F, lib, x: F.fractional_max_pool3d(x, 2, output_size=(1, 8, 3)),
    lambda F, lib, x: lib.nn.FractionalMaxPool2d(2),
    lambda F, lib, x: lib.nn.FractionalMaxPool2d(2, output_size=3, output_ratio=0.5),
    lambda F, lib, x: lib.nn.FractionalMaxPool2d(2, output_ratio=1.5),
    lambda F, lib, x: lib.nn.FractionalMaxPool3d(0, output_size=2),
    lambda F, lib, x: lib.nn.FractionalMaxPool3d(2, output_ratio=(0.5, 0.5, 1.0)),
])
def test_errors_match_torch(call):
    torch = pytest.importorskip("torch")
    x = np.random.default_rng(1).standard_normal((2, 3, 8, 9)).astype(np.float32)
    t, e = _both(lambda lib: call(lib.nn.functional, lib, lib.tensor(x)), torch)
    _same_error(t, e)


@pytest.mark.parity
def test_backward_kernels_match_torch():
    """The backward ops called directly (ops.aten), as the double-backward graph does."""
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(2)
    for d, shape, o in ((2, (2, 2, 7, 6), [3, 4]), (3, (1, 2, 6, 5, 7), [2, 3, 4])):
        x, u = rng.standard_normal(shape), rng.random((shape[0], 2, d))
        g = rng.standard_normal(shape[:2] + tuple(o))
        res = []
        for lib in (torch, ember):
            v, i = getattr(lib.ops.aten, f"fractional_max_pool{d}d")(lib.tensor(x), [2] * d, o, lib.tensor(u))
            b = getattr(lib.ops.aten, f"fractional_max_pool{d}d_backward")(lib.tensor(g), lib.tensor(x), [2] * d, o, i)
            res.append(b.numpy())
        np.testing.assert_allclose(res[1], res[0])
