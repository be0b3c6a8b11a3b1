"""Backward helpers of the scans (torch's FunctionsManual.cpp): cumsum, cumprod, logcumsumexp."""

import numpy as np

from ..._core import dtype as _dt
from ._common import _const, const_ones_like, masked_grad, to_dtype, _aten

__all__ = ["cumprod_backward", "cumsum_backward", "logcumsumexp_backward"]


def _revcumsum(g, dim):
    return g.sum(dim, keepdim=True) - g.cumsum(dim) + g


def cumsum_backward(grad, dim, dtype):
    if grad.dim() == 0:
        return to_dtype(grad, dtype)
    return to_dtype(_revcumsum(grad, dim), dtype)


def _pairwise(x, dim):
    """x moved so dim is last, and its last dim length."""
    xm = x.movedim(dim, -1)
    return xm, xm._size[-1]


def cumprod_backward(grad, self, result, dim, dtype):
    grad = to_dtype(grad, dtype)
    if self.dim() == 0:
        return grad
    if not bool(np.any(self._np == 0)):
        return _revcumsum(grad * result, dim) / self
    # with zeros: d result_i / d x_j = prod_{k <= i, k != j} x_k (j <= i), via a cumprod with x_j set to 1
    x, n = _pairwise(self, dim)
    e = x.unsqueeze(-2).expand(x._size[:-1] + (n, n))              # [..., j, k]
    eye = _const(np.eye(n, dtype=bool), _dt.bool_)
    c = _aten().where.self(eye, const_ones_like(e), e).cumprod(-1)         # [..., j, i]
    upper = _const(np.triu(np.ones((n, n), dtype=bool)), _dt.bool_)  # i >= j
    g = grad.movedim(dim, -1).unsqueeze(-2)                          # [..., 1, i]
    return masked_grad(upper, g * c).sum(-1).movedim(-1, dim)


def logcumsumexp_backward(grad, self, result, dim):
    if self.dim() == 0:
        return grad
    x, n = _pairwise(self, dim)
    r = result.movedim(dim, -1)
    g = grad.movedim(dim, -1)
    diff = x.unsqueeze(-1) - r.unsqueeze(-2)                         # [..., j, i] = x_j - r_i
    upper = _const(np.triu(np.ones((n, n), dtype=bool)), _dt.bool_)
    w = _aten().where.self(upper, diff, _const(np.full((), -np.inf), diff.dtype)).exp()
    return (w * g.unsqueeze(-2)).sum(-1).movedim(-1, dim)
