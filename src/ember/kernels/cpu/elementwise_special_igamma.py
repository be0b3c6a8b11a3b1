"""The regularized incomplete gamma functions P(a, x) (torch.igamma, special.gammainc) and Q(a, x) = 1 - P
(torch.igammac, special.gammaincc) in vectorised float64 numpy: torch's boundary values and its choice of
method by region (aten/src/ATen/native/Math.h calc_igamma / calc_igammac, after Cephes and SciPy), with
these numerics:

- the prefactor x^a e^-x / Gamma(a): for a >= 10 through Stirling's form
  sqrt(a / 2 pi) exp(a (log1p(t) - t) - mu(a)), t = (x - a) / a, mu the Stirling remainder (no cancellation
  between a log x and lgamma(a) when a is large), else directly;
- P by its power series  x^a e^-x / Gamma(a + 1) * sum_n x^n / ((a + 1) ... (a + n))  (positive terms);
- Q by the continued fraction of Gamma(a, x) (modified Lentz) when x is beyond a, and for small x by
  Q = -expm1(a log x - lgamma(1 + a)) - x^a / Gamma(a) * sum_(n>=1) (-x)^n / (n! (a + n)), with lgamma(1 + a)
  from its Taylor series near a = 0 (so tiny a keeps its precision);
- the other function as 1 minus the computed one where that one is the smaller.
torch uses Temme's uniform asymptotic expansion where a is large and x close to a (20 < a < 200 and
|x - a| < 0.3 a, or a > 200 and |x - a| < 4.5 sqrt(a)); here the series and the continued fraction run there
too (O(sqrt(a)) steps, converging to double precision), and the result takes torch's one deviation there:
its expansion divides the correction term R = value - erfc(+-eta sqrt(a / 2)) / 2 by sqrt(2 pi a) with pi
rounded to float32, which scales R by sqrt(pi / float32(pi)) (a relative change of about 1e-8), and it computes
eta with a cancellation (log1p(s) - s) that shifts the erfc term for x very close to a; both are applied
here too, to agree with torch to rounding. For tiny a (1e-10) torch's Q loses ~1e-7 relative
accuracy (its lgamma(1 + a)); the values here are the accurate ones (checked with mpmath). Loops run over
series terms, each step on the elements not yet converged, never over elements."""
import math

import numpy as np

from .elementwise_special import erfc
from .elementwise_special_math import lgamma, zeta

_EPS = 1.11022302462515654042e-16
_MAX_STEPS = 2000            # torch's MAXITER of its series and continued fraction
_UNCAPPED = 10 ** 6          # where torch uses the asymptotic expansion, iterate to convergence instead
_HUGE_A = 1e5                # from here on that region is computed by the leading terms of the expansion
# Taylor coefficients in eta of Temme's C_0 .. C_3 (DLMF 8.12.8-8.12.10), enough for |eta| < 0.015
_TEMME = ((-1 / 3, 1 / 12, -2 / 135, 1 / 864, 1 / 2835, -139 / 777600), (-1 / 540, -1 / 288, 1 / 378, -77 / 77760),
          (25 / 6048, -139 / 51840, 1 / 1296), (101 / 155520,))
# lgamma(1 + a) = -euler_gamma a + sum_(k>=2) (-1)^k zeta(k) / k a^k, for |a| <= 1/2
_LGAMMA1P = [-0.57721566490153286061] + [(-1) ** k * float(zeta(np.float64(k), np.float64(1.0))) / k
                                         for k in range(2, 60)]
# Stirling's series of mu(a) = lgamma(a) - ((a - 1/2) log a - a + log(2 pi) / 2): B_2k / (2k (2k - 1) a^(2k-1))
_STIRLING = (1 / 12, -1 / 360, 1 / 1260, -1 / 1680, 1 / 1188, -691 / 360360, 1 / 156, -3617 / 122400)


def _lgamma1p(a):
    """lgamma(1 + a), accurate to a few ulps also for tiny a."""
    small = np.abs(a) <= 0.5
    r = lgamma(np.where(small, 1.0, 1.0 + a))
    if small.any():
        s = a[small]
        acc = np.zeros_like(s)
        for c in reversed(_LGAMMA1P):
            acc = (acc + c) * s
        r[small] = acc
    return r


def _log1pmx(t):
    """log(1 + t) - t, without cancellation for small t."""
    small = np.abs(t) < 0.5
    r = np.log1p(np.where(small, 0.0, t)) - np.where(small, 0.0, t)
    if small.any():
        s = t[small]
        acc, power = np.zeros_like(s), s * s
        for k in range(2, 60):
            acc += (power / k) * (1 if k % 2 else -1)
            power = power * s
        r[small] = acc
    return r


def _prefactor(a, x):
    """x^a e^-x / Gamma(a) for a > 0, x > 0 (finite)."""
    big = a >= 10
    r = np.exp(a * np.log(x) - x - lgamma(np.where(big, 1.0, a)))
    if big.any():
        ab, xb = a[big], x[big]
        mu = np.zeros_like(ab)
        inv, inv2 = 1.0 / ab, 1.0 / (ab * ab)
        for c in reversed(_STIRLING):
            mu = mu * inv2 + c
        mu *= inv
        t = (xb - ab) / ab
        near = np.abs(t) < 0.5          # a (log(x / a) - t) without cancellation; far from a, directly
        expo = np.where(near, ab * _log1pmx(np.where(near, t, 0.0)), ab * (np.log(xb) - np.log(ab)) - (xb - ab))
        r[big] = np.sqrt(ab / (2 * math.pi)) * np.exp(expo - mu)
    return r


def _lower_series(a, x, steps=_MAX_STEPS):
    """P(a, x) by its power series."""
    total, term, k = np.ones_like(a), np.ones_like(a), 0
    sel = np.arange(a.size)
    while sel.size and k < steps:
        k += 1
        term[sel] *= x[sel] / (a[sel] + k)
        total[sel] += term[sel]
        sel = sel[term[sel] > _EPS * total[sel]]
    return _prefactor(a, x) / a * total


def _upper_continued_fraction(a, x, steps=_MAX_STEPS):
    """Q(a, x) = x^a e^-x / Gamma(a) * 1 / (x + 1 - a - 1 (1 - a) / (x + 3 - a - 2 (2 - a) / (x + 5 - a - ...)))."""
    tiny = 1e-300
    b = x + 1.0 - a
    c = np.full_like(a, 1.0 / tiny)
    d = 1.0 / b
    h = d.copy()
    sel, k = np.arange(a.size), 0
    while sel.size and k < steps:
        k += 1
        an = -k * (k - a[sel])
        b[sel] += 2.0
        dd = an * d[sel] + b[sel]
        dd = np.where(np.abs(dd) < tiny, tiny, dd)
        cc = b[sel] + an / c[sel]
        cc = np.where(np.abs(cc) < tiny, tiny, cc)
        dd = 1.0 / dd
        delta = dd * cc
        d[sel], c[sel] = dd, cc
        h[sel] *= delta
        sel = sel[np.abs(delta - 1.0) > _EPS]
    return _prefactor(a, x) * h


def _upper_small_x(a, x):
    """Q(a, x) for small x: -expm1(a log x - lgamma(1 + a)) - x^a / Gamma(a) sum_(n>=1) (-x)^n / (n! (a + n))."""
    total, fac, n = np.zeros_like(a), np.ones_like(a), 0
    sel = np.arange(a.size)
    while sel.size and n < _MAX_STEPS:
        n += 1
        fac[sel] *= -x[sel] / n
        term = fac[sel] / (a[sel] + n)
        total[sel] += term
        sel = sel[np.abs(term) > _EPS * np.abs(total[sel])]
    logx = np.log(x)
    return -np.expm1(a * logx - _lgamma1p(a)) - np.exp(a * logx - lgamma(a)) * total


def _regions(a, x, upper):
    """Which computation torch takes for each (finite, positive) element: 'series' (1 - P or P), 'cf' (Q),
    'small' (Q by the small-x series). Returns three masks."""
    if upper:
        series = np.where(x > 1.1, x < a, np.where(x <= 0.5, -0.4 / np.log(x) < a, x * 1.1 < a))
        cf = (x > 1.1) & ~series
    else:
        over = (x > 1.0) & (x > a)                  # P = 1 - Q, Q by torch's igammac rules
        q_series = np.where(x > 1.1, x < a, np.where(x <= 0.5, -0.4 / np.log(x) < a, x * 1.1 < a))
        series = ~over | q_series
        cf = over & ~q_series & (x > 1.1)
    small = ~series & ~cf
    return series, cf, small


_TEMME_SCALE = math.sqrt(math.pi / float(np.float32(math.pi)))


def _eta(a, x, as_torch=False):
    """Temme's eta, sign(x - a) sqrt(2 (s - log1p(s))), s = (x - a) / a; as_torch: with torch's cancellation
    (log1p(s) - s computed directly, which loses digits for x close to a)."""
    sigma = (x - a) / a
    l1pmx = np.log1p(sigma) - sigma if as_torch else _log1pmx(sigma)
    return np.sign(sigma) * np.sqrt(np.maximum(-2.0 * l1pmx, 0.0))


def _temme_region(a, x):
    ratio = np.abs(x - a) / a
    return ((a > 20) & (a < 200) & (ratio < 0.3)) | ((a > 200) & (ratio < 4.5 / np.sqrt(a)))


def _upper_temme_huge_a(a, x):
    """Q(a, x) for a > 1e5 and |x - a| < 4.5 sqrt(a): erfc(eta sqrt(a / 2)) / 2 + e^(-a eta^2 / 2) / sqrt(2 pi a)
    * sum_k C_k(eta) a^-k, the terms to a^-3 (the rest is below double precision there)."""
    eta = _eta(a, x)
    total, afac = np.zeros_like(a), np.ones_like(a)
    for coefs in _TEMME:
        ck = np.zeros_like(a)
        for c in reversed(coefs):
            ck = ck * eta + c
        total += ck * afac
        afac = afac / a
    return 0.5 * erfc(eta * np.sqrt(a / 2)) + np.exp(-0.5 * a * eta * eta) * total / np.sqrt(2 * math.pi * a)


def _as_torch_temme(a, x, v, upper):
    """v (P or Q) as torch's uniform asymptotic expansion gives it where torch uses that (see the docstring)."""
    temme = _temme_region(a, x)
    if not temme.any():
        return v
    at, xt = a[temme], x[temme]
    sign = 1.0 if upper else -1.0
    base = 0.5 * erfc(sign * _eta(at, xt) * np.sqrt(at / 2))
    base_torch = 0.5 * erfc(sign * _eta(at, xt, as_torch=True) * np.sqrt(at / 2))
    v = v.copy()
    v[temme] = base_torch + (v[temme] - base) * _TEMME_SCALE
    return v


def _incomplete_gamma(a, x, upper):
    a, x = np.broadcast_arrays(np.asarray(a, dtype=np.float64), np.asarray(x, dtype=np.float64))
    shape = a.shape
    a, x = a.ravel(), x.ravel()
    lo, hi = (1.0, 0.0) if upper else (0.0, 1.0)     # the value at x = 0, at x = inf
    r = np.full(a.shape, np.nan)
    done = (x < 0) | (a < 0)                          # torch's order of the boundary cases (nan falls through)
    for mask, value in ((a == 0, np.where(x > 0, hi, np.nan)), (x == 0, lo),
                        (np.isinf(a), np.where(np.isinf(x), np.nan, lo)), (np.isinf(x), hi)):
        m = mask & ~done
        r[m] = value[m] if np.ndim(value) else value
        done |= m
    done |= np.isnan(a) | np.isnan(x)
    i = np.nonzero(~done)[0]
    if i.size:
        ai, xi = a[i], x[i]
        with np.errstate(all="ignore"):
            series, cf, small = _regions(ai, xi, upper)
            temme = _temme_region(ai, xi)
            huge = temme & (ai > _HUGE_A)
            series, cf = series & ~huge, cf & ~huge
            v = np.empty_like(ai)
            for mask, steps in ((series & ~temme, _MAX_STEPS), (series & temme, _UNCAPPED)):
                if mask.any():
                    p = _lower_series(ai[mask], xi[mask], steps)
                    v[mask] = 1.0 - p if upper else p
            for mask, fn in ((cf & ~temme, _upper_continued_fraction), (small, _upper_small_x),
                             (cf & temme, lambda a, x: _upper_continued_fraction(a, x, _UNCAPPED)),
                             (huge, _upper_temme_huge_a)):
                if mask.any():
                    q = fn(ai[mask], xi[mask])
                    v[mask] = q if upper else 1.0 - q
            v = _as_torch_temme(ai, xi, v, upper)
        r[i] = v
    return r.reshape(shape)


def igamma(a, x):
    """The regularized lower incomplete gamma function P(a, x)."""
    return _incomplete_gamma(a, x, upper=False)


def igammac(a, x):
    """The regularized upper incomplete gamma function Q(a, x) = 1 - P(a, x)."""
    return _incomplete_gamma(a, x, upper=True)
