"""The regularized incomplete gamma functions (torch.igamma / igammac, Tensor.igamma(_) / igammac(_),
special.gammainc / gammaincc) against torch: values over a grid of a and x that crosses every region torch
switches method at (series, continued fraction, small-x series, the uniform asymptotic expansion for large a)
and its boundary values (a = 0, x = 0, infinities, negatives, nan); dtypes, out=, in-place, errors, and the
gradient (w.r.t. x as torch's formula; w.r.t. a torch's "not implemented")."""
import math

import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.parity

A = np.array([0.0, 1e-3, 0.1, 0.5, 1.0, 1.5, 2.0, 3.7, 9.9, 10.0, 10.5, 19.0, 21.0, 25.0, 50.0, 150.0, 199.0, 250.0,
              1000.0, 1e4, 1e5, 2e5, 1e8, math.inf, -1.0, math.nan])
X = np.array([0.0, 1e-300, 1e-10, 1e-3, 0.1, 0.4, 0.5, 0.7, 1.0, 1.05, 1.1, 1.2, 2.0, 3.0, 5.0, 9.0, 10.0, 11.0, 20.0,
              24.0, 26.0, 40.0, 49.0, 51.0, 140.0, 160.0, 199.0, 260.0, 990.0, 1010.0, 9900.0, 1e4 + 50, 2e5 - 1000,
              1e8 - 3e4, 1e8 + 1e4, 1e6, math.inf, -1.0, math.nan])
OPS = ["igamma", "igammac", "special.gammainc", "special.gammaincc"]


def _get(mod, path):
    for p in path.split("."):
        mod = getattr(mod, p)
    return mod


def _compare(a, b, rtol, atol=0.0):
    a, b = a.detach().numpy(), b.detach().numpy()
    assert a.dtype == b.dtype and a.shape == b.shape
    np.testing.assert_array_equal(np.isnan(a), np.isnan(b))
    fin = np.isfinite(b)
    np.testing.assert_array_equal(a[~fin & ~np.isnan(b)], b[~fin & ~np.isnan(b)])
    np.testing.assert_allclose(a[fin], b[fin], rtol=rtol, atol=atol)


@pytest.mark.parametrize("name", OPS)
def test_values_grid_float64(name):
    """To rounding, except below a = 1e-3 where torch's Q loses digits (checked against mpmath: ember's value
    is the accurate one; see kernels/cpu/elementwise_special_igamma.py)."""
    a, x = np.meshgrid(A, X)
    _compare(_get(ember, name)(ember.tensor(a), ember.tensor(x)), _get(torch, name)(torch.tensor(a), torch.tensor(x)),
             rtol=1e-12, atol=1e-300)


def test_tiny_a_close_to_torch():
    a, x = np.meshgrid([1e-10, 1e-6], [1e-10, 1e-3, 0.5, 1.1, 3.0])
    for name in ("igamma", "igammac"):
        _compare(_get(ember, name)(ember.tensor(a), ember.tensor(x)),
                 _get(torch, name)(torch.tensor(a), torch.tensor(x)), rtol=1e-6)


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
def test_lower_precision_dtypes(dtype):
    a, x = np.meshgrid(np.array([0.5, 1.0, 2.5, 7.0, 30.0]), np.array([0.1, 0.9, 2.0, 6.0, 35.0]))
    tol = {"float32": 2e-5, "float16": 2e-3, "bfloat16": 1.6e-2}[dtype]
    for name in ("igamma", "igammac"):
        e = _get(ember, name)(ember.tensor(a).to(getattr(ember, dtype)), ember.tensor(x).to(getattr(ember, dtype)))
        t = _get(torch, name)(torch.tensor(a).to(getattr(torch, dtype)), torch.tensor(x).to(getattr(torch, dtype)))
        assert str(e.dtype).split(".")[-1] == str(t.dtype).split(".")[-1]
        _compare(e.float(), t.float(), rtol=tol, atol=tol)


def test_promotion_broadcast_out_and_inplace():
    a, x = np.array([[0.5], [2.0]]), np.array([0.3, 1.0, 4.0])
    got = {}
    for L in (ember, torch):
        r1 = L.igamma(L.tensor(a, dtype=L.float32), L.tensor(x))                  # float32 with float64 -> float64
        r2 = L.igammac(L.tensor(a), L.tensor([1, 2, 3]))                           # float64 with int64 -> float64
        out = L.empty(0)
        r3 = L.special.gammaincc(L.tensor(a, dtype=L.float32), L.tensor(x, dtype=L.float32), out=out)
        assert r3 is out
        t = L.tensor(x)
        assert t.igamma_(L.tensor(1.5)) is t
        t2 = L.tensor(a).expand(2, 3).clone().igammac_(L.tensor(x))
        got[L.__name__] = (r1, r2, out, t, t2, L.tensor(a).igamma(L.tensor(x)))
    for e, t in zip(got["ember"], got["torch"]):
        _compare(e, t, rtol=1e-6 if e.dtype == ember.float32 else 1e-12)


@pytest.mark.parametrize("call", [
    lambda L: L.igamma(L.tensor([1, 2]), L.tensor([2, 3])),
    lambda L: L.igammac(L.tensor([True]), L.tensor([True])),
    lambda L: L.igamma(L.tensor([1.0 + 0j]), L.tensor([2.0])),
    lambda L: L.igamma(L.tensor([1.0]), 2.0),
    lambda L: L.special.gammainc(L.tensor([1.0]), 2.0),
    lambda L: L.tensor([1.5]).igamma_(L.tensor([[2.0], [3.0]])),
    lambda L: L.tensor([1]).igammac_(L.tensor([2.0])),
    lambda L: L.igamma(L.tensor([1.5]), L.tensor([2.0]), out=L.empty(1, dtype=L.int64)),
], ids=["int", "bool", "complex", "scalar-other", "gammainc-scalar", "inplace-broadcast", "inplace-dtype", "out-dtype"])
def test_errors_match_torch(call):
    with pytest.raises(Exception) as te:
        call(torch)
    with pytest.raises(type(te.value)) as ee:
        call(ember)
    if not isinstance(te.value, TypeError):
        assert str(ee.value) == str(te.value)


@pytest.mark.parametrize("name", OPS)
def test_gradient_wrt_x_and_node(name):
    a, x = np.array([0.5, 1.5, 3.0, 25.0]), np.array([0.2, 2.0, 3.5, 24.0])
    res = []
    for L in (ember, torch):
        xt = L.tensor(x, requires_grad=True)
        r = _get(L, name)(L.tensor(a), xt)
        (g,) = L.autograd.grad(r.sum(), [xt])
        res.append((g.numpy(), type(r.grad_fn).__name__))
    np.testing.assert_allclose(res[0][0], res[1][0], rtol=1e-12)
    assert res[0][1] == res[1][1]


@pytest.mark.parametrize("name", ["igamma", "igammac"])
def test_gradient_wrt_a_is_not_implemented_as_torch(name):
    msgs = []
    for L in (ember, torch):
        at = L.tensor([1.5], requires_grad=True)
        r = _get(L, name)(at, L.tensor([2.0]))
        assert r.requires_grad
        with pytest.raises(NotImplementedError) as e:
            r.backward()
        msgs.append(str(e.value))
    assert msgs[0] == msgs[1]


def test_meta():
    r = ember.igamma(ember.empty(2, 1, device="meta"), ember.empty(3, dtype=ember.float64, device="meta"))
    assert r.device.type == "meta" and tuple(r.shape) == (2, 3) and r.dtype == ember.float64
