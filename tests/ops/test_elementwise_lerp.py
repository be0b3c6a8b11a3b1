"""lerp against torch, bit for bit: torch's CPU kernel takes `weight < 0.5 ? self + weight * (end - self) :
end - (end - self) * (1 - weight)` with each branch one fused multiply-add, in the dtype (float32 for
float16/bfloat16). A grid of self/end (with inf, nan, huge) and weights (0, 0.5, 1, just below 0.5, negative,
> 1, nan, inf), Tensor and Scalar weight, the functional, in-place and out= forms; gradients. The fused
multiply-add itself (kernels/cpu/elementwise_fma.py) is checked against exact rational arithmetic."""
from fractions import Fraction

import numpy as np
import pytest

import ember
from ember.kernels.cpu.elementwise_fma import fma

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.parity

_W = [0.5, 0.0, 1.0, -0.5, 0.49999997, 0.49999999999999994, 2.0, -1.0, 1.7, 0.3, 0.7, -0.4, float("nan"),
      float("inf"), -float("inf"), 1e30, -1e-30]
_DTYPES = ["float32", "float64", "float16", "bfloat16"]


def _data(dt, n=4099):        # not a multiple of the vector width: the scalar tail of torch's loop too
    g = torch.Generator().manual_seed(0)
    s = torch.randn(n, dtype=torch.float64, generator=g)
    e = torch.randn(n, dtype=torch.float64, generator=g) * 3
    w = torch.empty(n, dtype=torch.float64).uniform_(-1.5, 2.5, generator=g)
    w[:len(_W)] = torch.tensor(_W, dtype=torch.float64)
    s[40:45] = torch.tensor([float("inf"), -float("inf"), float("nan"), 1e38, -1e38])
    e[44:47] = torch.tensor([1e38, float("inf"), 1e-40])
    return [t.to(getattr(torch, dt)) for t in (s, e, w)]


def _em(t):
    return ember.tensor(t.double().numpy()).to(getattr(ember, str(t.dtype).split(".")[1]))


def _same(a, b):
    a, b = a.double().numpy(), b.double().numpy()
    assert a.shape == b.shape
    np.testing.assert_array_equal(a, b)       # nan == nan here; bit for bit otherwise (+0/-0 aside)


@pytest.mark.parametrize("dt", _DTYPES)
def test_lerp_tensor_weight_is_bit_identical_to_torch(dt):
    s, e, w = _data(dt)
    S, E, W = map(_em, (s, e, w))
    want = torch.lerp(s, e, w)
    assert str(ember.lerp(S, E, W).dtype) == str(want.dtype).replace("torch", "ember")
    _same(ember.lerp(S, E, W), want)
    out = ember.empty(0, dtype=S.dtype)
    assert ember.lerp(S, E, W, out=out) is out
    _same(out, want)
    S2 = S.clone()
    assert S2.lerp_(E, W) is S2
    _same(S2, want)
    _same(ember.lerp(S[None, :4], E[:4, None], W[:4, None]), torch.lerp(s[None, :4], e[:4, None], w[:4, None]))


@pytest.mark.parametrize("dt", _DTYPES)
@pytest.mark.parametrize("weight", _W, ids=str)
def test_lerp_scalar_weight_is_bit_identical_to_torch(dt, weight):
    s, e, _ = _data(dt)
    S, E = _em(s), _em(e)
    want = torch.lerp(s, e, weight)
    _same(ember.lerp(S, E, weight), want)
    _same(S.lerp(E, weight), want)
    out = ember.empty(0, dtype=S.dtype)
    ember.lerp(S, E, weight, out=out)
    _same(out, want)
    S2 = S.clone()
    S2.lerp_(E, weight)
    _same(S2, want)


@pytest.mark.parametrize("dt", ["float32", "float64", "complex64"])
def test_lerp_gradients_match_torch(dt):
    rng = np.random.default_rng(3)
    s0, e0, g0 = (rng.standard_normal((3, 4)) for _ in range(3))
    w0 = rng.uniform(-1, 2, (3, 4))
    if dt == "complex64":
        s0, w0 = s0 + 1j * rng.standard_normal((3, 4)), w0 + 0.3j
    res = []
    for L in (torch, ember):
        T = getattr(L, dt)
        s, e, w = (L.tensor(v, dtype=T, requires_grad=True) for v in (s0, e0, w0))
        L.lerp(s, e, w).backward(L.tensor(g0, dtype=T))
        grads = [x.grad.numpy().copy() for x in (s, e, w)]
        s.grad = e.grad = None
        L.lerp(s, e, 0.7).backward(L.tensor(g0, dtype=T))
        res.append(grads + [s.grad.numpy(), e.grad.numpy()])
    for want, got in zip(*res):
        np.testing.assert_array_equal(got, want)
    s, e, w = (ember.tensor(v, dtype=ember.float64, requires_grad=True) for v in (s0.real, e0, w0.real))
    assert ember.autograd.gradcheck(ember.lerp, (s, e, w))
    assert ember.autograd.gradcheck(lambda a, b: ember.lerp(a, b, 0.3), (s, e))


@pytest.fixture(params=["c", "numpy"])
def fma_path(request):
    """Both implementations: csrc/fma.c and the numpy emulation used without a C compiler."""
    from ember.kernels.cpu.runtime import clib
    with clib.use_c(request.param == "c"):
        yield request.param


@pytest.mark.parametrize("dt", [np.float32, np.float64])
def test_fma_is_correctly_rounded(dt, fma_path):
    rng = np.random.default_rng(5)
    n = 3000
    a = (rng.standard_normal(n) * 2.0 ** rng.integers(-30, 30, n)).astype(dt)
    b = (rng.standard_normal(n) * 2.0 ** rng.integers(-30, 30, n)).astype(dt)
    near = -(a.astype(np.float64) * b).astype(dt)                          # heavy cancellation
    c = np.where(rng.random(n) < 0.5, near, rng.standard_normal(n).astype(dt) * (a * b))
    c = (c * (1 + rng.integers(-3, 4, n) * np.finfo(dt).eps)).astype(dt)
    r = fma(a, b, c)
    assert r.dtype == dt
    for x, y, z, got in zip(a, b, c, r):
        exact = Fraction(float(x)) * Fraction(float(y)) + Fraction(float(z))
        nearest = dt(float(exact))
        if dt == np.float32:     # float(exact) rounds to float64 first: pick the nearest float32 around it
            cand = [np.nextafter(nearest, dt(-np.inf)), nearest, np.nextafter(nearest, dt(np.inf))]
            nearest = min(cand, key=lambda v: (abs(Fraction(float(v)) - exact), int(np.array(v).view(np.int32)) & 1))
        assert got == nearest, (x, y, z)
    assert np.isnan(fma(dt(np.inf), dt(0), dt(1))) and fma(dt(np.inf), dt(2), dt(1)) == np.inf


def test_fma_float32_has_no_double_rounding(fma_path):
    """2**30 + 2**7 + (2**6 - 2**-40): just below the midpoint 2**30 + 2**7 + 2**6, which is where the float64
    sum lands; rounding that midpoint to float32 (ties to even) would give 2**30 + 2**8."""
    f = np.float32
    got = fma(f(1 + 2.0 ** -23), f(2.0 ** 6 * (1 - 2.0 ** -23)), f(2.0 ** 30 + 2.0 ** 7))
    assert got == f(2.0 ** 30 + 2.0 ** 7)
    got = fma(np.full(3, f(1 + 2.0 ** -23)), f(-(2.0 ** 6) * (1 - 2.0 ** -23)), f(-(2.0 ** 30) - 2.0 ** 7))
    np.testing.assert_array_equal(got, np.full(3, f(-(2.0 ** 30) - 2.0 ** 7)))
