"""Backward helpers of the distance ops (torch's FunctionsManual.cpp): _cdist_forward's backward."""

import numpy as np

from ..._generated import functions as at  # the ember.* bindings below the facade (torch's at:: functions)
from ..._grad_mode import is_grad_enabled
from ._common import _const, sum_to
from ..._core.strides import same_shape

__all__ = ["cdist_backward_"]


def _uses_mm(p, compute_mode, P, R):
    """The same test as the forward kernel (kernels/cpu/distance.py): p=2 through one matmul."""
    return p == 2 and (compute_mode == 1 or (compute_mode is None and (P > 25 or R > 25)))


def _cdist_grad(grad, x1, x2, p, dist, mm):
    """d/dx1 of sum(grad * cdist(x1, x2)) before summing over broadcast batch dims (torch's _cdist_backward;
    with `mm`, its _euclidean_dist_backward). Where a distance is 0 the grad is 0 (the p-norm is not
    differentiable there)."""
    if p == 1 and not is_grad_enabled() and grad.device.type == "cpu":   # no graph to record: C loop
        from ...kernels.cpu import distance as cdist_c
        r = cdist_c.p1_grad(grad._np, x1._np, x2._np)
        if r is not None:
            return _const(r, x1.dtype)
    if p == 0:                                  # piecewise constant: the count of unequal coordinates
        return at.zeros(tuple(grad._size[:-2]) + tuple(x1._size[-2:]), dtype=x1.dtype)
    zero = dist == 0
    if mm:                                      # sum_j g_ij / d_ij * (x1_i - x2_j), no (P, R, M) tensor
        ratio = at.where(zero, at.zeros_like(grad), grad / at.where(zero, at.ones_like(dist), dist))
        return ratio.sum(-1, keepdim=True) * x1 - ratio.matmul(x2)
    diff = x1.unsqueeze(-2) - x2.unsqueeze(-3)                                   # ..., P, R, M
    g = grad.unsqueeze(-1)
    if p == 1:
        return (g * diff.sign()).sum(-2)
    if np.isinf(p):                             # every coordinate that attains the max shares the grad
        hit = diff.abs() == dist.unsqueeze(-1)
        return (g * diff.sign() * hit.to(grad.dtype)).sum(-2)
    ad = diff.abs()
    bad = zero.unsqueeze(-1) | (ad == 0) if p < 1 else zero.unsqueeze(-1)
    safe_d = at.where(zero, at.ones_like(dist), dist).unsqueeze(-1)
    safe_a = at.where(ad == 0, at.ones_like(ad), ad) if p < 1 else ad
    term = diff.sign() * safe_a ** (p - 1) * g / safe_d ** (p - 1)
    return at.where(bad, at.zeros_like(term), term).sum(-2)


def cdist_backward_(grad, x1, x2, p, compute_mode, result, which):
    """Grad of _cdist_forward for x1 (which=0) or x2 (which=1); x2's is x1's with the roles swapped."""
    mm = _uses_mm(p, compute_mode, x1._size[-2], x2._size[-2])
    if which == 0:
        g = _cdist_grad(grad, x1, x2, p, result, mm)
        return sum_to(g, x1._size) if not same_shape(g._size, x1._size) else g
    g = _cdist_grad(grad.mT, x2, x1, p, result.mT, mm)
    return sum_to(g, x2._size) if not same_shape(g._size, x2._size) else g
