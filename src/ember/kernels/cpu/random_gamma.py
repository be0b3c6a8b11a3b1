"""Gamma-family sampling (ATen's Distributions.cpp: _standard_gamma, _standard_gamma_grad, binomial):
Gamma(alpha, 1) samples from the generator, and the reparameterised gradient d sample / d alpha.

The gradient is the implicit one (what torch's standard_gamma_grad_one approximates): holding the sample's
CDF value fixed, dx/dalpha = -(dP(alpha, x)/dalpha) / p(x; alpha), with P the regularised lower incomplete
gamma function (computed here by its series, or its continued fraction where that converges faster) and
dP/dalpha by a central difference in float64.
"""
import math

import numpy as np

from ..._random import _gen
from ..common import empty_tensor, _tname

_ITERATIONS = 300
_lgamma = np.vectorize(math.lgamma, otypes=[np.float64])


def _float_check(dt, kernel):
    if not dt.is_floating_point:
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{_tname(dt)}'")


def _wrap(like, values):
    out = empty_tensor(like._size, like.dtype, like.device)
    if out._np is not None and out.numel():
        out._np[...] = values
    return out


def _standard_gamma(self, generator=None):
    _float_check(self.dtype, "gamma_cpu")
    if self._np is None or self.numel() == 0:
        return empty_tensor(self._size, self.dtype, self.device)
    return _wrap(self, _gen(generator).standard_gamma(self._np.astype(np.float64)))


def _regularized_gamma_p(a, x):
    """P(a, x) for a > 0, x >= 0, elementwise (Numerical Recipes' gser / gcf, vectorised over elements)."""
    a, x = np.broadcast_arrays(np.asarray(a, np.float64), np.asarray(x, np.float64))
    out = np.empty(a.shape)
    log_front = a * np.log(np.maximum(x, 1e-300)) - x - _lgamma(a)
    series = x < a + 1
    if series.any():                    # sum_n x^n / (a (a+1) ... (a+n))
        aa, xx = a[series], x[series]
        term = 1.0 / aa
        total = term.copy()
        for n in range(1, _ITERATIONS):
            term = term * xx / (aa + n)
            total += term
        out[series] = np.exp(log_front[series]) * total
    cf = ~series
    if cf.any():                        # Q(a, x) by Lentz's continued fraction
        aa, xx = a[cf], x[cf]
        tiny = 1e-300
        b = xx + 1 - aa
        c = np.full(aa.shape, 1 / tiny)
        d = 1 / b
        h = d.copy()
        for i in range(1, _ITERATIONS):
            an = -i * (i - aa)
            b = b + 2
            d = an * d + b
            d = np.where(np.abs(d) < tiny, tiny, d)
            c = b + an / c
            c = np.where(np.abs(c) < tiny, tiny, c)
            d = 1 / d
            h = h * d * c
        out[cf] = 1 - np.exp(log_front[cf]) * h
    out[x <= 0] = 0.0
    return out


def _standard_gamma_grad(self, output):
    """d output / d self for output ~ Gamma(self, 1), elementwise."""
    alpha, x = self._np.astype(np.float64), output._np.astype(np.float64)
    x = np.maximum(x, np.finfo(np.float64).tiny)
    h = 1e-5 * np.maximum(alpha, 1e-3)
    dp_dalpha = (_regularized_gamma_p(alpha + h, x) - _regularized_gamma_p(alpha - h, x)) / (2 * h)
    log_density = (alpha - 1) * np.log(x) - x - _lgamma(alpha)
    return _wrap(self, -dp_dalpha / np.exp(log_density))


def binomial(count, prob, generator=None):
    _float_check(count.dtype, "binomial_cpu")
    out = empty_tensor(count._size, count.dtype, count.device)
    if count._np is None or count.numel() == 0:
        return out
    n = np.broadcast_to(count._np, count._size).astype(np.int64)
    p = np.clip(np.broadcast_to(prob._np, count._size).astype(np.float64), 0.0, 1.0)
    out._np[...] = _gen(generator).binomial(n, p)
    return out
