"""The standard normal CDF and PDF for GELU (forward and backward) in single precision, fast.

GELU(x) = x * Phi(x) with Phi(x) = erfc(-x / sqrt(2)) / 2. scipy's erf works in float64 and costs
~30 ns per element; GELU runs on every hidden activation of a transformer, twice per train step. For
float32 (and the half types, computed in float32) this module instead evaluates

    erfc(z) = t * exp(-z^2) * Q(t),   t = 1 / (1 + 0.3 z),   z = |x| / sqrt(2) >= 0,

where Q is a degree-8 polynomial in t on (0, 1]. Q(t) = erfcx(z) / t is smooth and bounded there
(erfcx(z) ~ 1 / (z sqrt(pi)) as z -> inf, so Q(0) = 0.3 / sqrt(pi)), so no range splitting is needed.
The coefficients are a weighted least-squares fit (weights 1/Q, i.e. relative error) of erfcx(z)/t on
400001 points z in [0, 10] against scipy.special.erfcx in float64; the fit's relative error is < 7e-8
(0.3 and the degree came from a scan; degree 10 reaches 1e-8 but float32 evaluation error dominates).
The constant term is then nudged by 1e-7 so that float32 evaluation gives Q(1) = 1, i.e. Phi(0) = 1/2.
Evaluated in float32, Phi is within a few float32 ulps (relative) for |x| < 5 and keeps full relative
accuracy deep into the lower tail where 1 + erf(x / sqrt(2)) would cancel (tested in
tests/nn/test_gelu_fast.py against float64). exp(-z^2) is exp(-x^2 / 2), which the PDF reuses.
float64 inputs keep the exact erf path of kernels/cpu/elementwise_special.py.

The ~25 elementwise passes run over chunks of _BLOCK elements so their work arrays stay in cache: done
over whole activations, the passes are bound by memory bandwidth instead of arithmetic.
"""
import numpy as np

_A = 0.3
_Q = (0.16916832327842712, 0.17103568122008364, 0.14614114142461815, 0.22326760945486232,
      -0.11382712398670984, 0.57510250626789927, -0.53603178333123958, 0.49702726737793551,
      -0.13188359249949533)
_Q32 = tuple(np.float32(c) for c in reversed(_Q))       # Horner order, highest degree first
_F = np.float32
_INV_SQRT2 = _F(1.0 / np.sqrt(2.0))
_INV_SQRT_2PI = _F(1.0 / np.sqrt(2.0 * np.pi))


_BLOCK = 16384        # elements per chunk: the few float32 work arrays stay in L2 across the ~30 passes


def single(a):
    """True when a (an ndarray) should take the float32 path here (float32 and narrower floats)."""
    return a.dtype.itemsize <= 4 and a.dtype.kind in "fV"


def _cdf_gauss(x, t, q, g, m):
    """Phi(x) into q and exp(-x^2/2) into g for a 1-D float32 chunk x (t, m: scratch)."""
    np.abs(x, out=t)
    t *= _F(_A) * _INV_SQRT2
    t += _F(1.0)
    np.reciprocal(t, out=t)
    np.multiply(t, _Q32[0], out=q)
    q += _Q32[1]
    for c in _Q32[2:]:
        q *= t
        q += c
    np.square(x, out=g)
    g *= _F(-0.5)
    np.exp(g, out=g)
    q *= t
    q *= g
    q *= _F(0.5)                          # q = erfc(|x| / sqrt(2)) / 2 = Phi(-|x|)
    # Phi(x) = q + [x >= 0] (1 - 2q): exactly q below zero (the tail keeps its relative accuracy), 1 - q
    # above (two roundings); bool * float is a plain loop, where a masked ufunc (where=) is ~30x slower
    np.greater_equal(x, 0, out=m)
    np.multiply(q, _F(-2.0), out=t)
    t += _F(1.0)
    np.multiply(m, t, out=t)
    q += t


def _chunked(x, grad, finish):
    """Run _cdf_gauss over x in L2-sized chunks; finish(xs, gs, q, g, out) writes each chunk's result."""
    shape = x.shape
    x = np.ascontiguousarray(x).reshape(-1)
    if grad is not None:
        grad = np.ascontiguousarray(np.broadcast_to(grad, shape)).reshape(-1)
    out = np.empty(x.size, np.float32)
    n = min(_BLOCK, x.size)
    t, q, g = np.empty(n, np.float32), np.empty(n, np.float32), np.empty(n, np.float32)
    m = np.empty(n, np.bool_)
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        for i in range(0, x.size, _BLOCK):
            xs = x[i:i + _BLOCK]
            k = xs.size
            _cdf_gauss(xs, t[:k], q[:k], g[:k], m[:k])
            finish(xs, None if grad is None else grad[i:i + k], q[:k], g[:k], out[i:i + k])
    return out.reshape(shape)


def cdf_and_gauss(x):
    """(Phi(x), exp(-x^2/2)) for a float32 ndarray x, both float32 (one chunk: the whole array)."""
    x1 = np.ascontiguousarray(x, dtype=np.float32).reshape(-1)
    t, q, g, m = (np.empty(x1.size, d) for d in (np.float32, np.float32, np.float32, np.bool_))
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        _cdf_gauss(x1, t, q, g, m)
    return q.reshape(x.shape), g.reshape(x.shape)


def _finish_gelu(xs, gs, q, g, out):
    np.multiply(q, xs, out=out)


def _finish_grad(xs, gs, q, g, out):
    g *= _INV_SQRT_2PI
    g *= xs
    q += g
    np.multiply(q, gs, out=out)


def gelu(x):
    """x * Phi(x) in float32."""
    return _chunked(x, None, _finish_gelu)


def gelu_grad(grad, x):
    """grad * (Phi(x) + x * phi(x)) in float32: the derivative of GELU times the incoming gradient."""
    return _chunked(x, grad, _finish_grad)
