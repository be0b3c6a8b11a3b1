"""Backward helpers of the reductions (torch's FunctionsManual.cpp): sum/mean/prod, amax/amin, the
value-selecting reductions (max.dim, median, mode, ...), var/std, norm, logsumexp."""

import numpy as np

from ..._core import dtype as _dt
from ..._core.tensor_impl import TensorImpl as Tensor
from ..._core.tls import state as _state
from ..._core.dispatch_keys import MATH_BITS
from .._shape_dtype import _FW_LEVEL
from ._common import (_const, const_zeros_like, const_ones_like, const_sgn, masked_grad, expand_to, _aten, _zeros,
                      _dims, _dim_index, _needs_history)

_REAL_FLOAT = (np.dtype(np.float32), np.dtype(np.float64))

__all__ = ["aminmax_backward", "renorm_backward", "aminmax_jvp", "amax_backward", "correction_of",
           "evenly_distribute_backward", "logsumexp_backward", "mean_backward", "nansum_jvp", "norm_backward",
           "prod_backward", "reduced_numel", "std_backward", "sum_backward",
           "value_selecting_backward", "var_backward"]


def sum_backward(grad, shape, dim, keepdim):
    """Re-insert the reduced dims of `grad` (when keepdim=False) and broadcast it back to `shape`."""
    n = len(shape)
    if dim is None or (isinstance(dim, (list, tuple)) and len(dim) == 0):
        dims = list(range(n))
    else:
        dims = [dim] if isinstance(dim, int) else list(dim)
    if not keepdim and n:
        for d in sorted(x % n for x in dims):
            grad = grad.unsqueeze(d)
    return expand_to(grad, shape)


def reduced_numel(sizes, dim):
    n = 1
    for d in _dims(dim, len(sizes)):
        n *= sizes[d] if sizes else 1
    return n


def _restore(t, shape, dim, keepdim):
    """Un-reduce t (result or grad of a reduction over dim) so it broadcasts against shape."""
    n = len(shape)
    if not keepdim and n:
        for d in sorted(_dims(dim, n)):
            t = t.unsqueeze(d)
    return t


def amax_backward(grad, self, result, dim, keepdim):
    """Gradient split evenly among the elements equal to the extremum (torch's scale_grad_by_count)."""
    n = len(self._size)
    mask = (self == _restore(result, self._size, dim, keepdim)).to(grad.dtype)
    count = mask.sum(_dims(dim, n), keepdim=True) if n else mask
    return expand_to(_restore(grad, self._size, dim, keepdim), self._size) * mask / count


def aminmax_backward(self, dim, keepdim, grad_min, grad_max, min, max):
    """amin's and amax's backward summed over the outputs that got a gradient (dim None: every dim)."""
    dims = [] if dim is None else [dim]
    keep = keepdim and dim is not None
    out = None
    for g, r in ((grad_min, min), (grad_max, max)):
        if g is None:
            continue
        if dim is None and keepdim:
            g, r = g.reshape(()), r.reshape(())
        part = amax_backward(g, self, r, dims, keep)
        out = part if out is None else out + part
    return out


def aminmax_jvp(self, self_t, dim, keepdim, min, max):
    """The tangents of (min, max): the mean of self_t over the elements equal to each extremum."""
    n = len(self._size)
    dims = list(range(n)) if dim is None else [dim]
    keep = keepdim and dim is not None
    out = []
    for r in (min, max):
        if dim is None and keepdim:
            r = r.reshape(())
        mask = self == _restore(r, self._size, dims, keep)
        t = self_t.where(mask, 0)
        if n:
            t = t.sum(dims, keepdim=keep) / mask.sum(dims, keepdim=keep)
        out.append(t.reshape(min._size))
    return tuple(out)


def evenly_distribute_backward(grad, self, result):
    """grad / count at the elements equal to the extremum (NaN ones when it is NaN), zeros elsewhere: torch's
    zeros().masked_fill_(mask, grad / mask.sum()). In numpy when nothing is recorded (a full max() or min()
    in a Python loop, a CRF's forward algorithm: five dispatched ops otherwise)."""
    s, g, r = self._np, grad._np, result._np
    if (s is not None and g is not None and r is not None and not (self._ks | grad._ks) & MATH_BITS
            and g.ndim == 0 and s.dtype in _REAL_FLOAT and g.dtype == s.dtype and not _state.mode_stack
            and (not _state.grad_enabled or not _needs_history(grad, self, result))
            and (_FW_LEVEL[0] is None or "_fw_tangent" not in grad.__dict__ and "_fw_tangent" not in self.__dict__
                 and "_fw_tangent" not in result.__dict__)):
        rv = float(r)
        mask = s == r if rv == rv else np.isnan(s)
        c = np.count_nonzero(mask)
        out = np.zeros(s.shape, s.dtype)
        out[mask] = g if c == 1 else g / s.dtype.type(c)     # (x / 1 is x: one extremum, no division)
        return Tensor._wrap_fresh(out, self.dtype)
    # torch's data-independent form (its tensor-subclass branch): no value is read, so fake tensors and
    # tracing modes see ops only
    mask = (self == result).logical_or(self.isnan().logical_and(result.isnan())).to(grad.dtype)
    return mask * (grad / mask.sum())


def prod_backward(grad, self, result, dim, keepdim):
    """Gradient of prod, correct when self has zeros: the product of all the other elements."""
    if self.dim() == 0:
        return grad
    if dim is None:
        return prod_backward(grad.reshape(()), self.reshape(-1), result, 0, False).reshape(self._size)
    n = self.dim()
    d = dim % n
    g = _restore(grad, self._size, d, keepdim)
    if not bool(np.any(self._np == 0)):
        return g * _restore(result, self._size, d, keepdim) / self
    x = self.movedim(d, -1)
    k = x._size[-1]
    e = x.unsqueeze(-2).expand(x._size[:-1] + (k, k))
    eye = _const(np.eye(k, dtype=bool), _dt.bool_)
    others = _aten().where.self(eye, const_ones_like(e), e).prod(-1)
    return (g * others.movedim(-1, d))


def value_selecting_backward(grad, dim, indices, sizes, keepdim):
    """Gradient lands on the elements the op selected along dim (torch's value_selecting_reduction_backward):
    max.dim, min.dim, sort, topk, kthvalue, mode, median.dim, cummax, ..."""
    n = len(sizes)
    if n == 0:
        return grad.reshape(sizes)
    d = dim % n
    if not keepdim:
        grad, indices = grad.unsqueeze(d), indices.unsqueeze(d)
    return _aten().index_put.default(_zeros(sizes, grad.dtype), _dim_index(indices, d), grad, True)


def correction_of(unbiased=True, correction=None):
    if correction is not None:
        return correction
    return 1 if unbiased else 0


def var_backward(grad, self, dim, corr, keepdim):
    n = reduced_numel(self._size, dim)
    dims = _dims(dim, self.dim())
    mean = self.mean(dims, keepdim=True) if self.dim() else self
    g = _restore(grad, self._size, dim, keepdim)
    return (g * (self - mean)) * (2.0 / max(n - corr, 0) if n - corr > 0 else float("inf"))


def std_backward(grad, self, result, dim, corr, keepdim):
    g = masked_grad(result != 0, grad / (result * 2))
    return var_backward(g, self, dim, corr, keepdim)


def mean_backward(grad, self, dim, keepdim):
    n = reduced_numel(self._size, dim)
    return expand_to(_restore(grad, self._size, dim, keepdim), self._size) / n


def norm_backward(grad, self, p, result, dim=None, keepdim=False):
    p = 2.0 if p is None else float(p)
    if p == 2.0 and not grad._size and not result._size and (out := _norm2_backward_all(grad, self, result)) is not None:
        return out
    g = _restore(grad, self._size, dim, keepdim)
    r = _restore(result, self._size, dim, keepdim)
    if p == 0.0:
        return const_zeros_like(self)
    if p == 1.0:
        return const_sgn(self) * g
    if p == 2.0:        # (torch's association, grad * (self / norm): the bits, and [finfo.max]'s gradient 1)
        return masked_grad(r != 0, g * (self / r))
    if p == float("inf") or p == float("-inf"):
        mask = (self.abs() == r).to(grad.dtype)
        dims = _dims(dim, self.dim())
        count = mask.sum(dims, keepdim=True) if self.dim() else mask
        return const_sgn(self) * mask * (g / count)
    if p < 1.0:
        return masked_grad(self != 0, const_sgn(self) * self.abs().pow(p - 1) * g * r.pow(1 - p))
    # torch's forms: sgn(x) |x|^(p-1) for 1 < p < 2, x |x|^(p-2) above, each times grad / norm^(p-1)
    scaled = const_sgn(self) * self.abs().pow(p - 1) if p < 2.0 else self * self.abs().pow(p - 2)
    return masked_grad(r != 0, scaled * (g / r.pow(p - 1)))


def _norm2_backward_all(grad, self, result):
    """The 2-norm's backward over every element (`x.norm()`) with no graph to record: `grad * (self / result)`,
    zero where result is 0, in numpy: one division of the two scalars and one product, each element's value the
    one the general path's expanded ops give (~10 us instead of ~45); None when the general path is needed."""
    if _needs_history(grad, self, result) or _state.mode_stack or "_fw_tangent" in grad.__dict__:
        return None
    s, g, r = self._np, grad._np, result._np
    if s is None or g is None or r is None or s.dtype not in _REAL_FLOAT or g.dtype != s.dtype or \
            r.dtype != s.dtype or not s.ndim or not s.flags.c_contiguous or \
            (self._ks | grad._ks | result._ks) & MATH_BITS:
        return None
    if r == 0:
        return Tensor._wrap_fresh(np.zeros(s.shape, s.dtype), self.dtype)
    with np.errstate(all="ignore"):
        # (operands in the order ember's mul hands them to numpy: the same NaN of two as the general path's)
        return Tensor._wrap_fresh(np.multiply(s / r, g), self.dtype)


def logsumexp_backward(grad, self, result, dim, keepdim):
    g = _restore(grad, self._size, dim, keepdim)
    r = _restore(result, self._size, dim, keepdim)
    return g * (self - r).exp()


def renorm_backward(grad, self, p, dim, maxnorm):
    """torch's renorm_backward: where a slice was scaled by f = maxnorm / (norm + 1e-7), the gradient of
    self * f(norm(self)); elsewhere grad passes through."""
    n = self.dim()
    d = dim % n
    dims = [i for i in range(n) if i != d]
    norm = self.norm(p, dims, keepdim=True)
    inner = (self.conj() * grad)
    inner = (inner.real if inner.dtype.is_complex else inner).sum(dims, keepdim=True)
    nb = norm_backward(inner, self, p, norm, dims, True)
    invnorm = (norm + 1e-7).reciprocal()
    factor = invnorm * maxnorm
    return (factor * grad - factor * invnorm * nb).where(norm > maxnorm, grad)


def nansum_jvp(self, self_t, dim, keepdim, dtype):
    """Forward rule of nansum: the tangent's sum with the nan positions of the primal left out."""
    aten = _aten()
    t = aten.where.self(aten.isnan.default(self), aten.zeros_like.default(self_t), self_t)
    return aten.sum.dim_IntList(t, dim, keepdim, dtype=dtype)
