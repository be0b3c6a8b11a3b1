"""The numerics of torch.special's functions that numpy lacks (torch's aten/src/ATen/native/Math.h), in
vectorised float64 numpy; loops run over series terms, never over elements.

- lgamma: Lanczos (g = 7, 9 terms; ~1e-15 absolute), reflection below 1/2, +inf at the poles;
- digamma: reflection below 0 (nan at the negative integers, -inf at 0 as torch), recurrence up to x >= 10,
  then the asymptotic series in 1/x^2;
- zeta (Hurwitz): Cephes' Euler-Maclaurin summation (the algorithm torch uses), with the Bernoulli correction
  terms stopped per element at double precision; polygamma(n >= 1) = (-1)^(n+1) n! zeta(n+1, x);
- i0 / i1 (and the exponentially scaled i0e / i1e): the power series (positive terms) for |x| <= 30, the
  asymptotic expansion of I_nu(x) e^-x sqrt(2 pi x) beyond (relative error below 1e-15 on both sides);
- erfcx: exp(x^2) erfc(x) directly below 2.5, Laplace's continued fraction for erfc without its exp(-x^2)
  factor above (so no overflow up to 1e308);
- ndtr / log_ndtr / ndtri: from erfc / erfcx; ndtri refines erfinv's guess by Newton steps on log_ndtr, so
  tiny probabilities keep their precision.
"""
import math

import numpy as np

from .elementwise_special import erfc, erfinv

_LANCZOS_G = 7.0
_LANCZOS = (0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313,
            -176.61502916214059, 12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6,
            1.5056327351493116e-7)
_HALF_LOG_2PI = 0.5 * math.log(2 * math.pi)


def _f64(a):
    return np.asarray(a, dtype=np.float64)


def _is_pole(x):
    return (x <= 0) & (x == np.floor(x))


def _lgamma_pos(x):
    """log Gamma(x) for x >= 1/2 (Lanczos with the usual x - 1 shift)."""
    z = x - 1.0
    s = np.full_like(z, _LANCZOS[0])
    for i in range(1, len(_LANCZOS)):
        s = s + _LANCZOS[i] / (z + i)
    t = z + _LANCZOS_G + 0.5
    return _HALF_LOG_2PI + (z + 0.5) * np.log(t) - t + np.log(s)


def lgamma(a):
    x = _f64(a)
    with np.errstate(all="ignore"):
        small = x < 0.5
        pos = _lgamma_pos(np.where(small, 1.0 - x, x))
        # reflection: Gamma(x) Gamma(1 - x) = pi / sin(pi x); torch returns log|Gamma|
        refl = math.log(math.pi) - np.log(np.abs(np.sin(math.pi * x))) - pos
        r = np.where(small, refl, pos)
        big = x > 1e15                                   # Lanczos' sum is 1 there; avoid (z + i) rounding
        r = np.where(big, x * (np.log(np.where(big, x, 1.0)) - 1.0) - 0.5 * np.log(np.where(big, x, 1.0))
                     + _HALF_LOG_2PI, r)
        r = np.where((x == 1.0) | (x == 2.0), 0.0, r)
        r = np.where(_is_pole(x) | np.isinf(x), np.inf, r)
        r = np.where(np.isnan(x), np.nan, r)
    return r


_DIGAMMA_B = (1.0 / 12, -1.0 / 120, 1.0 / 252, -1.0 / 240, 1.0 / 132, -691.0 / 32760, 1.0 / 12)


def _digamma_pos(x):
    """psi(x) for x > 0: recurrence psi(x) = psi(x + 1) - 1/x up to x >= 10, then the asymptotic series."""
    acc = np.zeros_like(x)
    for _ in range(10):
        low = x < 10
        acc = acc - np.where(low, 1.0 / np.where(low, x, 1.0), 0.0)
        x = np.where(low, x + 1.0, x)
    inv2 = 1.0 / (x * x)
    series = np.zeros_like(x)
    for b in reversed(_DIGAMMA_B):
        series = (series + b) * inv2
    return acc + np.log(x) - 0.5 / x - series


def digamma(a):
    x = _f64(a)
    with np.errstate(all="ignore"):
        neg = x < 0
        pos = _digamma_pos(np.where(neg, 1.0 - x, np.where(x == 0, 1.0, x)))
        # reflection: psi(1 - x) - psi(x) = pi / tan(pi x)
        refl = pos - math.pi / np.tan(math.pi * np.where(neg, x, 0.5))
        r = np.where(neg, refl, pos)
        r = np.where(x == 0, np.copysign(np.inf, -x), r)      # torch: -inf at +0, +inf at -0
        r = np.where(neg & (x == np.floor(x)), np.nan, r)
        r = np.where(x == np.inf, np.inf, r)
        r = np.where(np.isnan(x) | (x == -np.inf), np.nan, r)
    return r


_ZETA_A = (12.0, -720.0, 30240.0, -1209600.0, 47900160.0, -1.8924375803183791606e9, 7.47242496e10,
           -2.950130727918164224e12, 1.1646782814350067249e14, -4.5979787224074726105e15,
           1.8152105401943546773e17, -7.1661652561756670113e18)
_MACHEP = 1.11022302462515654042e-16


def zeta(a, b):
    """Hurwitz zeta(x, q) = sum_k (k + q)^-x (Cephes' zeta, as torch)."""
    x, q = np.broadcast_arrays(_f64(a), _f64(b))
    x, q = x.astype(np.float64), q.astype(np.float64)
    with np.errstate(all="ignore"):
        # the direct sum up to a = q + n >= 9 (n >= 9 terms), then Euler-Maclaurin from a
        n = np.maximum(9, np.ceil(9.0 - np.where(np.isfinite(q), q, 0.0))).astype(np.int64) + 1
        n = np.minimum(n, 10000)
        s = np.zeros_like(x)
        a = q.copy()
        for i in range(int(n.max()) if n.size else 0):
            take = i < n
            s = s + np.where(take, np.power(np.where(take, a, 1.0), -x), 0.0)
            a = np.where(take, a + 1.0, a)
        b = np.power(a, -x)
        w = a
        s = s + 0.5 * b + b * w / (x - 1.0)        # f(a) / 2 plus the integral from a
        fa = np.ones_like(x)
        k = np.zeros_like(x)
        done = np.zeros(x.shape, bool)
        for i in range(12):
            fa = fa * (x + k)
            b = b / w
            t = fa * b / _ZETA_A[i]
            s = np.where(done, s, s + t)
            done = done | (np.abs(t / s) < _MACHEP)
            k = k + 1.0
            fa = fa * (x + k)
            b = b / w
            k = k + 1.0
        r = s
        r = np.where((q <= 0) & (q == np.floor(q)), np.inf, r)
        r = np.where((q <= 0) & (q != np.floor(q)) & (x != np.floor(x)), np.nan, r)
        r = np.where(x < 1, np.nan, r)
        r = np.where(x == 1, np.inf, r)
        r = np.where(np.isnan(x) | np.isnan(q), np.nan, r)
    return r


def polygamma(n, a):
    x = _f64(a)
    if n == 0:
        return digamma(x)
    if n == 1:
        return trigamma(x)
    sign = 1.0 if n % 2 else -1.0
    with np.errstate(all="ignore"):
        return sign * math.factorial(n) * zeta(np.full_like(x, n + 1.0), x)


def trigamma(a):
    """psi'(x), torch's calc_trigamma: reflection below 1/2, six recurrence steps, then the asymptotic
    series (1 + 1/(2x) + 1/(6x^2) - 1/(30x^4) + 1/(42x^6)) / x."""
    x = _f64(a)
    with np.errstate(all="ignore"):
        neg = x < 0.5
        s = np.sin(math.pi * x)
        result = np.where(neg, -(math.pi * math.pi) / (s * s), 0.0)
        y = np.where(neg, 1.0 - x, x)
        for _ in range(6):
            result = result + 1.0 / (y * y)
            y = y + 1.0
        ixx = 1.0 / (y * y)
        result = result + (1.0 + 1.0 / (2.0 * y) + ixx * (1.0 / 6 - ixx * (1.0 / 30 - ixx * (1.0 / 42)))) / y
        return np.where(neg, -result, result)


# ------------------------------------------------------------------ modified Bessel functions
_BESSEL_SPLIT = 30.0


def _bessel_series(x, nu):
    """I_nu(x) for nu in (0, 1), |x| <= 30: (x/2)^nu sum_k (x^2/4)^k / (k! (k + nu)!)."""
    q = x * x / 4.0
    term = np.ones_like(x) / (1.0 if nu == 0 else 1.0)
    total = term.copy()
    for k in range(1, 120):
        term = term * q / (k * (k + nu))
        total = total + term
    return total * (x / 2.0) ** nu


def _bessel_asymptotic_scaled(ax, nu):
    """I_nu(x) e^-x for x > 30: 1/sqrt(2 pi x) sum_k (-1)^k prod_j (mu - (2j-1)^2) / (k! (8x)^k)."""
    mu = 4.0 * nu * nu
    term = np.ones_like(ax)
    total = term.copy()
    for k in range(1, 30):
        term = term * -(mu - (2 * k - 1) ** 2) / (k * 8.0 * ax)
        total = total + term
    return total / np.sqrt(2.0 * math.pi * ax)


def _bessel(a, nu, scaled):
    x = _f64(a)
    ax = np.abs(x)
    with np.errstate(all="ignore"):
        small = ax <= _BESSEL_SPLIT
        ser = _bessel_series(np.where(small, ax, 0.0), nu)
        if scaled:
            ser = ser * np.exp(-np.where(small, ax, 0.0))
        big_ax = np.where(small, 2 * _BESSEL_SPLIT, ax)
        asy = _bessel_asymptotic_scaled(np.where(np.isinf(big_ax), 1e300, big_ax), nu)
        if not scaled:
            asy = asy * np.exp(big_ax)
        r = np.where(small, ser, asy)
        if nu == 1:
            r = np.copysign(r, x)
        if not scaled:                          # torch's Chebyshev evaluation gives nan at +-inf
            r = np.where(np.isinf(x), np.nan, r)
        else:
            r = np.where(np.isinf(x), 0.0, r)
        r = np.where(np.isnan(x), np.nan, r)
    return r


def i0(a):
    return _bessel(a, 0, False)


def i0e(a):
    return _bessel(a, 0, True)


def i1(a):
    return _bessel(a, 1, False)


def i1e(a):
    return _bessel(a, 1, True)


# ------------------------------------------------------------------ erfcx and the normal distribution
_SQRT_PI = math.sqrt(math.pi)
_SQRT2 = math.sqrt(2.0)
_CF_SPLIT = 2.5


def _erfcx_cf(x):
    """exp(x^2) erfc(x) for x >= 2.5: Laplace's continued fraction without the exp(-x^2) factor."""
    f = x.copy()
    for k in range(60, 0, -1):
        f = x + (k / 2.0) / f
    return 1.0 / (_SQRT_PI * f)


def erfcx(a):
    x = _f64(a)
    with np.errstate(all="ignore"):
        big = x >= _CF_SPLIT
        direct = np.exp(x * x) * erfc(np.where(big, 0.0, x))
        huge = x > 1e150                                           # 1 / (x sqrt(pi)) without overflow in x^2
        tail = _erfcx_cf(np.where(big & ~huge, x, _CF_SPLIT))
        r = np.where(big, np.where(huge, 1.0 / (_SQRT_PI * x), tail), direct)
        r = np.where(x == -np.inf, np.inf, r)
        r = np.where(np.isnan(x), np.nan, r)
    return r


def ndtr(a):
    x = _f64(a)
    return 0.5 * erfc(-x / _SQRT2)


def log_ndtr(a):
    x = _f64(a)
    with np.errstate(all="ignore"):
        t = x / _SQRT2
        lower = x < -1.0
        # upper side: log(1 - ndtr(-x)); lower tail: log(erfcx(-t) / 2) - t^2 without underflow
        up = np.log1p(-0.5 * erfc(np.where(lower, 0.0, t)))
        tl = np.where(lower, t, -1.0)
        low = np.log(0.5 * erfcx(-tl)) - tl * tl
        r = np.where(lower, low, up)
        r = np.where(x == -np.inf, -np.inf, r)
        r = np.where(np.isnan(x), np.nan, r)
    return r


def ndtri(a):
    p = _f64(a)
    with np.errstate(all="ignore"):
        upper = p > 0.5
        q = np.where(upper, 1.0 - p, p)                          # the lower tail, q in [0, 1/2]
        x = _SQRT2 * erfinv(2.0 * q - 1.0)
        # tiny q: erfinv(-1 + 2q) rounds to -inf; start from the tail asymptote instead
        lq = np.log(np.where(q > 0, q, 1.0))
        tail = -np.sqrt(np.maximum(-2.0 * lq - np.log(np.maximum(-2.0 * lq, 1.0)) - math.log(2 * math.pi), 0.0))
        x = np.where((q < 1e-10) | ~np.isfinite(x), tail, x)
        for _ in range(5):                                       # Newton on log ndtr(x) = log q
            ln = log_ndtr(x)
            # d/dx log ndtr(x) = phi(x) / ndtr(x) = exp(-x^2/2 - log ndtr(x)) / sqrt(2 pi)
            d = np.exp(-0.5 * x * x - ln) / math.sqrt(2 * math.pi)
            x = np.where((q > 0) & np.isfinite(x), x - (ln - lq) / d, x)
        r = np.where(upper, -x, x)
        r = np.where(p == 0, -np.inf, r)
        r = np.where(p == 1, np.inf, r)
        r = np.where((p < 0) | (p > 1) | np.isnan(p), np.nan, r)
        r = np.where(p == 0.5, 0.0, r)
    return r
