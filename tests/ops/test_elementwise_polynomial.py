"""torch.special's orthogonal polynomials against torch: values over a grid of x (the special points |x| == 1,
x in {0, 1}, beyond [-1, 1], infinities) and degrees n (negative, the recurrence and trigonometric ranges,
Hermite's cut-off), in float32 and float64; the three overloads and out=; dtypes, errors and (no) gradients."""
import math

import numpy as np
import pytest

import ember
from ember.kernels.meta.elementwise_polynomial import NAMES

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.parity

X = np.concatenate([np.linspace(-3, 3, 121), [-1.0, 1.0, 0.0, -0.0, 0.5, 1e-3, 1 - 1e-9, 5.0, -7.5, 40.0,
                                               math.inf, -math.inf]])
N = np.concatenate([np.arange(-3, 40), [60, 127, 128, 129, 511, 512, 513, 700]])


def _pair(name, x, n, L):
    conv = lambda v: L.tensor(v) if isinstance(v, np.ndarray) else v  # noqa: E731
    return getattr(L.special, name)(conv(x), conv(n))


def _compare(a, b, rtol):
    a, b = a.numpy(), b.numpy()
    assert a.dtype == b.dtype and a.shape == b.shape
    np.testing.assert_array_equal(np.isnan(a), np.isnan(b))
    fin = np.isfinite(b)
    np.testing.assert_array_equal(a[~fin & ~np.isnan(b)], b[~fin & ~np.isnan(b)])
    np.testing.assert_allclose(a[fin], b[fin], rtol=rtol, atol=rtol * 1e-3)   # (cancellation near a root)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", NAMES)
def test_values_grid(name, dtype):
    x, n = np.meshgrid(X.astype(dtype), N.astype(dtype))
    rtol = 1e-5 if dtype == "float32" else 1e-11
    _compare(_pair(name, x, n, ember), _pair(name, x, n, torch), rtol)


@pytest.mark.parametrize("name", NAMES)
def test_scalar_overloads_and_integer_inputs(name):
    x, n = np.linspace(-1.2, 1.2, 13), np.arange(0, 13)
    for args in ((0.3, n), (x, 7), (x.astype(np.float32), 9), (np.arange(-2, 3), n[:5]), (2, n), (x, 4.7)):
        a, b = _pair(name, *args, ember), _pair(name, *args, torch)
        assert str(a.dtype).split(".")[-1] == str(b.dtype).split(".")[-1]
        _compare(a, b, 1e-5 if a.dtype == ember.float32 else 1e-11)


@pytest.mark.parametrize("name", NAMES[:3] + NAMES[-2:])
def test_out_overloads(name):
    x, n = np.linspace(-1.2, 1.2, 6), np.arange(6.0)
    for args in ((x, n), (0.25, n), (x, 3)):
        got = []
        for L in (ember, torch):
            out = L.empty(6, dtype=L.float64)
            conv = [L.tensor(v) if isinstance(v, np.ndarray) else v for v in args]
            r = getattr(L.special, name)(*conv, out=out)
            assert r is out
            got.append(out)
        _compare(got[0], got[1], 1e-11)


@pytest.mark.parametrize("call", [
    lambda L: L.special.chebyshev_polynomial_t(L.tensor([0.5], dtype=L.float16), L.tensor([3])),
    lambda L: L.special.hermite_polynomial_h(L.tensor([0.5], dtype=L.bfloat16), 2),
    lambda L: L.special.legendre_polynomial_p(L.tensor([0.5j]), L.tensor([3])),
    lambda L: L.special.laguerre_polynomial_l(0.5, 3),
    lambda L: L.special.chebyshev_polynomial_u(L.tensor([0.5]), L.tensor([3]), out=L.empty(1, dtype=L.int64)),
    lambda L: L.special.chebyshev_polynomial_w(L.ones(2), L.ones(3)),
], ids=["half", "bfloat16", "complex", "no-tensor", "out-dtype", "broadcast"])
def test_errors_match_torch(call):
    with pytest.raises(Exception) as te:
        call(torch)
    with pytest.raises(type(te.value)) as ee:
        call(ember)
    if not isinstance(te.value, TypeError):
        assert str(ee.value) == str(te.value)


@pytest.mark.parametrize("name", NAMES)
def test_not_differentiable(name):
    """torch marks x and n non_differentiable: the result never requires grad, even from inputs that do."""
    for L in (ember, torch):
        x = L.tensor([0.25, 0.5], requires_grad=True)
        r = getattr(L.special, name)(x, L.tensor([3.0, 4.0], requires_grad=True))
        assert not r.requires_grad and r.grad_fn is None


def test_meta_shapes_and_dtypes():
    r = ember.special.chebyshev_polynomial_t(ember.empty(3, 1, device="meta"), ember.empty(4, dtype=ember.int64,
                                                                                          device="meta"))
    assert r.device.type == "meta" and tuple(r.shape) == (3, 4) and r.dtype == ember.float32
