"""Helpers used by the formulas in native/derivatives.yaml (torch's FunctionsManual.cpp).

Everything here is written in ember ops or records its own differentiable Node, so a backward
formula is itself differentiable (double backward)."""
import numpy as np

from .._core import dtype as _dt
from .._core.tls import state
from .._tensor import Tensor
from .graph import Node


def _const(arr, dtype):
    return Tensor._wrap_np(np.asarray(arr, dtype=dtype._np), dtype)


def zeros_like(t):
    return _const(np.zeros(t._size, t.dtype._np), t.dtype)


def ones_like(t):
    return _const(np.ones(t._size, t.dtype._np), t.dtype)


def maybe_multiply(g, s):
    return g if (not isinstance(s, Tensor) and s == 1) else g * s


def sgn(t):
    """sign of t as a constant (its derivative is zero)."""
    return _const(np.sign(t._np), t.dtype)


def masked_grad(mask, grad):
    """where(mask, grad, 0) — keeps nan out of masked-off elements."""
    from .._generated.functions import where
    return where(mask, grad, zeros_like(grad))


def _needs_history(*ts):
    return state.grad_enabled and any(isinstance(t, Tensor) and t._requires_grad for t in ts)


def _record(out, node, inputs):
    from ._kernel import edge, set_history
    node.next_edges = tuple(edge(t) for t in inputs)
    set_history(out, node)
    return out


# ------------------------------------------------------------ sum_to / expand (broadcast reduction)
class SumToSizeBackward0(Node):
    def __init__(self, shape):
        super().__init__()
        self.shape = shape

    def apply(self, grads):
        return (expand_to(grads[0], self.shape),)


class ExpandBackward0(Node):
    def __init__(self, shape):
        super().__init__()
        self.shape = shape

    def apply(self, grads):
        return (sum_to(grads[0], self.shape),)


def sum_to(g, shape):
    shape = tuple(shape)
    if g._size == shape:
        return g
    lead = len(g._size) - len(shape)
    axes = tuple(range(lead)) + tuple(i + lead for i, s in enumerate(shape) if s == 1 and g._size[i + lead] != 1)
    arr = g._np.sum(axis=axes, keepdims=True) if axes else g._np
    out = _const(arr.reshape(shape), g.dtype)
    if _needs_history(g):
        _record(out, SumToSizeBackward0(g._size), (g,))
    return out


def expand_to(g, shape):
    shape = tuple(shape)
    if g._size == shape:
        return g
    out = _const(np.broadcast_to(g._np, shape).copy(), g.dtype)
    if _needs_history(g):
        _record(out, ExpandBackward0(g._size), (g,))
    return out


class ToCopyBackward0(Node):
    def __init__(self, dtype):
        super().__init__()
        self.dtype = dtype

    def apply(self, grads):
        return (to_dtype(grads[0], self.dtype),)


def to_dtype(g, dtype):
    if g.dtype is dtype:
        return g
    out = _const(g._np.astype(dtype._np), dtype)
    if _needs_history(g) and (dtype.is_floating_point or dtype.is_complex):
        _record(out, ToCopyBackward0(g.dtype), (g,))
    return out


# ------------------------------------------------------------ op-specific helpers
def pow_backward_self(grad, self, exponent):
    if not isinstance(exponent, Tensor):
        if exponent == 0:
            return zeros_like(grad)
        return grad * (exponent * self.pow(exponent - 1))
    return masked_grad(exponent != 0, grad * (exponent * self.pow(exponent - 1)))


def pow_backward_exponent(grad, self, exponent, result):
    if not isinstance(self, Tensor):
        if self == 0:
            return masked_grad(exponent < 0, grad * result * float("-inf"))  # torch: 0 where exp >= 0
        return grad * result * float(np.log(self))
    cond = (self == 0) & (exponent >= 0)
    return masked_grad(cond.logical_not(), grad * result * self.log())


def clamp_backward(grad, self, min, max):
    mask = None
    if min is not None:
        mask = self >= min
    if max is not None:
        m2 = self <= max
        mask = m2 if mask is None else mask & m2
    if mask is None:
        return grad
    return masked_grad(mask, grad)


def clamp_backward_min(grad, self, min, max):
    if min is None:
        return None
    m = self < min
    if max is not None:
        m = m & (min < max)
    return masked_grad(m, grad)


def clamp_backward_max(grad, self, min, max):
    if max is None:
        return None
    m = self > max
    if min is not None:
        m = m | (max < min)
    return masked_grad(m, grad)


def inverse_permutation(dims):
    n = len(dims)
    inv = [0] * n
    for i, d in enumerate(dims):
        inv[d % n] = i
    return inv


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


def _aten():
    from .._ops import ops
    return ops.aten


def _zeros(shape, dtype):
    return _const(np.zeros(tuple(shape), dtype._np), dtype)


# ------------------------------------------------------------ views: scatter the grad back
class ViewScatterBackward0(Node):
    """Backward of view_scatter: re-take the view of the incoming gradient."""

    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def apply(self, grads):
        return (self.fn(grads[0]),)


def view_scatter(grad, sizes, fn):
    """Gradient of a non-overlapping view `fn(self)`: zeros shaped like self with `grad` written into
    the region `fn` selects (torch's select_backward / slice_backward / diagonal_backward)."""
    out = _zeros(sizes, grad.dtype)
    v = fn(out)
    v._np[...] = grad._np
    if _needs_history(grad):
        _record(out, ViewScatterBackward0(fn), (grad,))
    return out


def _storage_index(size, stride, offset, extent):
    idx = np.arange(extent, dtype=np.int64)
    return np.lib.stride_tricks.as_strided(idx[offset:], shape=tuple(size),
                                           strides=tuple(s * idx.itemsize for s in stride))


def _extent(size, stride, offset):
    if any(s == 0 for s in size):
        return offset + 1
    return offset + 1 + sum((s - 1) * st for s, st in zip(size, stride))


class RestrideBackward0(Node):
    def __init__(self, src, dst, extent):
        super().__init__()
        self.src, self.dst, self.extent = src, dst, extent

    def apply(self, grads):
        return (_restride(grads[0], self.dst, self.src, self.extent),)


def _restride(g, src, dst, extent):
    """Linear map: scatter-add g (laid out by storage positions `src`) into a storage of `extent`
    elements and read it back at positions `dst`. Its adjoint swaps src and dst."""
    buf = np.zeros(extent, g.dtype._np)
    np.add.at(buf, src.reshape(-1), np.ascontiguousarray(g._np).reshape(-1))
    out = _const(buf[dst], g.dtype)
    if _needs_history(g):
        _record(out, RestrideBackward0(src, dst, extent), (g,))
    return out


def as_strided_backward(grad, sizes, strides, offset, size, stride, storage_offset):
    """Gradient of as_strided: grad lands on the storage positions the output viewed, read back
    at the positions the input occupied (overlapping outputs accumulate)."""
    size, stride = tuple(size), tuple(stride)
    storage_offset = offset if storage_offset is None else storage_offset
    ext = max(_extent(sizes, strides, offset), _extent(size, stride, storage_offset))
    src = _storage_index(size, stride, storage_offset, ext)
    dst = _storage_index(sizes, strides, offset, ext)
    return _restride(grad, src, dst, ext)


def cat_backward(grad, sizes, dim):
    """Split grad back into the inputs' extents along dim (legacy empty 1-D inputs get empty grads)."""
    from .._core.strides import wrap_dim
    real = [s for s in sizes if not (len(s) == 1 and s[0] == 0)]
    d = wrap_dim(dim, len(real[0])) if real else 0
    out, off = [], 0
    for s in sizes:
        if len(s) == 1 and s[0] == 0 and (not real or len(real[0]) != 1):
            out.append(_zeros(s, grad.dtype))
            continue
        n = s[d]
        out.append(grad.narrow(d, off, n))
        off += n
    return out


def index_of(t, indices):
    return _aten().index.Tensor(t, indices)


def index_backward(grad, sizes, indices):
    """index.Tensor backward: zeros.index_put(indices, grad, accumulate=True)."""
    return _aten().index_put.default(_zeros(sizes, grad.dtype), indices, grad, True)


def index_put_backward_self(grad, indices, values, accumulate):
    if accumulate:
        return grad
    return _aten().index_put.default(grad, indices, zeros_like(values), False)


def index_put_backward_values(grad, indices, sizes):
    return sum_to(index_of(grad, indices), sizes)


# ------------------------------------------------------------ matrix products
def matmul_backward(grad, self, other, which):
    """d(self @ other) for 1-D/2-D/batched (broadcast) operands, written with matmul itself."""
    a = self.unsqueeze(0) if self.dim() == 1 else self
    b = other.unsqueeze(-1) if other.dim() == 1 else other
    from ..kernels.common import broadcast_shapes
    batch = tuple(broadcast_shapes(a._size[:-2], b._size[:-2]))
    g = grad.reshape(batch + (a._size[-2], b._size[-1]))
    if which == 0:
        r = sum_to(g.matmul(b.transpose(-1, -2)), a._size)
        return r.reshape(self._size) if r._size != self._size else r
    r = sum_to(a.transpose(-1, -2).matmul(g), b._size)
    return r.reshape(other._size) if r._size != other._size else r


# ------------------------------------------------------------ reductions
def _dims(dim, n):
    if dim is None or (isinstance(dim, (list, tuple)) and len(dim) == 0):
        return list(range(n))
    return [d % n if n else 0 for d in ([dim] if isinstance(dim, int) else dim)]


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


def evenly_distribute_backward(grad, self, result):
    if bool(np.isnan(result._np)):
        mask = _const(np.isnan(self._np), self.dtype)
    else:
        mask = (self == result).to(grad.dtype)
    return mask * (grad / mask.sum())


def value_selecting_backward(grad, dim, indices, sizes, keepdim):
    """max.dim/min.dim: grad goes to the selected index along dim (torch's value_selecting_reduction_backward)."""
    n = len(sizes)
    if n == 0:
        return grad.reshape(sizes)
    d = dim % n
    g = grad if keepdim else grad.unsqueeze(d)
    idx = indices if keepdim else indices.unsqueeze(d)
    shape = [1] * n
    shape[d] = sizes[d]
    ar = _const(np.arange(sizes[d]).reshape(shape), indices.dtype)
    return masked_grad(ar == idx, expand_to(g, sizes))


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
    others = _aten().where.self(eye, ones_like(e), e).prod(-1)
    return (g * others.movedim(-1, d))
