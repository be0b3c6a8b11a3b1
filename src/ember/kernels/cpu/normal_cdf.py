"""The standard normal CDF and PDF for GELU (forward and backward) in single precision, fast.

GELU(x) = x * Phi(x) with Phi(x) = erfc(-x / sqrt(2)) / 2. scipy's erf works in float64 and costs
~30 ns per element; GELU runs on every hidden activation of a transformer, twice per train step. For
float32 (and the half types, computed in float32) this module instead evaluates

    erfc(z) = t * exp(-z^2) * Q(t),   t = 1 / (1 + 0.4 z),   z = |x| / sqrt(2) >= 0,

where Q is a degree-10 polynomial in t on (0, 1]. Q(t) = erfcx(z) / t is smooth and bounded there
(erfcx(z) ~ 1 / (z sqrt(pi)) as z -> inf, so Q(0) = 0.4 / sqrt(pi)), so no range splitting is needed.
The coefficients are a weighted least-squares fit (weights 1/Q, i.e. relative error) of erfcx(z)/t on
400001 points z in [0, 10] against scipy.special.erfcx in float64; the fit's relative error is < 1e-8.
Evaluated in float32, Phi is within a few float32 ulps (relative) for |x| < 5 and keeps full relative
accuracy deep into the lower tail where 1 + erf(x / sqrt(2)) would cancel (tested in
tests/nn/test_gelu_fast.py against float64). exp(-z^2) is exp(-x^2 / 2), which the PDF reuses.
float64 inputs keep the exact erf path of kernels/cpu/special.py.
"""
import numpy as np

_Q = (0.22568296324671144, 0.22550591139395257, 0.20936397027569781, 0.16149764193254112,
      0.15672365957740944, -0.0075277665779382719, 0.10122941720024232, -0.021095837084532248,
      -0.1277140826766299, 0.098370077400363812, -0.022035964387981801)
_Q32 = tuple(np.float32(c) for c in reversed(_Q))       # Horner order, highest degree first
_F = np.float32
_INV_SQRT2 = _F(1.0 / np.sqrt(2.0))
_INV_SQRT_2PI = _F(1.0 / np.sqrt(2.0 * np.pi))


def single(a):
    """True when a (an ndarray) should take the float32 path here (float32 and narrower floats)."""
    return a.dtype.itemsize <= 4 and a.dtype.kind in "fV"


def cdf_and_gauss(x):
    """(Phi(x), exp(-x^2/2)) for a float32 ndarray x, both float32."""
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        t = np.abs(x, out=np.empty(x.shape, np.float32))      # out=: 0-d inputs stay arrays
        t *= _F(0.4) * _INV_SQRT2
        t += _F(1.0)
        np.reciprocal(t, out=t)
        q = np.full_like(t, _Q32[0])
        for c in _Q32[1:]:
            q *= t
            q += c
        gauss = np.square(x, out=np.empty(x.shape, np.float32))
        gauss *= _F(-0.5)
        np.exp(gauss, out=gauss)
        q *= t
        q *= gauss
        q *= _F(0.5)                          # q = erfc(|x| / sqrt(2)) / 2 = Phi(-|x|)
        cdf = np.where(x >= 0, _F(1.0) - q, q)
    return cdf, gauss


def gelu(x):
    """x * Phi(x) in float32."""
    cdf, _ = cdf_and_gauss(x)
    cdf *= x
    return cdf


def gelu_grad(grad, x):
    """grad * (Phi(x) + x * phi(x)) in float32: the derivative of GELU times the incoming gradient."""
    cdf, gauss = cdf_and_gauss(x)
    gauss *= _INV_SQRT_2PI
    gauss *= x
    cdf += gauss
    cdf *= grad
    return cdf
