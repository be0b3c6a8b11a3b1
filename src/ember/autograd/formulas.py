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


def _meta(shape, dtype):
    """A meta tensor of that shape: what the numpy helpers below return for a meta grad (no data)."""
    from .._core.device import META
    from ..kernels.common import empty_tensor
    return empty_tensor(tuple(shape), dtype, META)


def zeros_like(t):
    if state.mode_stack:                 # under a dispatch mode (make_fx, fake tensors) helpers run visible ops
        return _aten().zeros_like.default(t)
    if t._np is None:
        return _meta(t._size, t.dtype)
    return _const(np.zeros(t._size, t.dtype._np), t.dtype)


def ones_like(t):
    if state.mode_stack:
        return _aten().ones_like.default(t)
    if t._np is None:
        return _meta(t._size, t.dtype)
    return _const(np.ones(t._size, t.dtype._np), t.dtype)


def maybe_multiply(g, s):
    return g if (not isinstance(s, Tensor) and s == 1) else g * s


def sgn(t):
    """sign of t as a constant (its derivative is zero)."""
    if state.mode_stack:
        return _aten().sign.default(t.detach())
    return _const(np.sign(t._np), t.dtype)


_INT_OF = {4: np.int32, 8: np.int64, 2: np.int16}


def masked_grad(mask, grad):
    """where(mask, grad, 0) — keeps nan out of masked-off elements. Without a graph to record
    (no create_graph) it is one bitwise AND of grad's bits with the mask (np.where is branchy and
    several times slower)."""
    if _needs_history(grad, mask) or grad._np is None or mask._np is None or "_fw_tangent" in grad.__dict__ \
            or state.mode_stack:
        from .._generated.functions import where
        return where(mask, grad, zeros_like(grad))
    g, m = grad._np, mask._np
    it = _INT_OF.get(g.dtype.itemsize) if g.dtype.kind == "f" else None
    if it is None:
        return _const(np.where(m, g, g.dtype.type(0)), grad.dtype)
    if m.shape != g.shape:
        shape = np.broadcast_shapes(m.shape, g.shape)
        g, m = np.broadcast_to(g, shape), np.broadcast_to(m, shape)
    bits = np.ascontiguousarray(g).view(it)
    keep = np.negative(m, dtype=it) if m.dtype != np.bool_ else np.negative(m.view(np.int8), dtype=it)
    return Tensor._wrap_fresh(np.bitwise_and(bits, keep).view(g.dtype), grad.dtype)


def relu_grad(grad, result):
    """torch's threshold_backward(grad, result, 0): 0 where result <= 0, else grad (a NaN result passes
    its grad on). Without a graph to record, one C pass over contiguous float arrays."""
    g, r = grad._np, result._np
    if g is not None and r is not None and not _needs_history(grad, result) and "_fw_tangent" not in grad.__dict__ \
            and not state.mode_stack:
        gi = _relu_c().relu_backward(g, r)
        if gi is not None:
            return Tensor._wrap_fresh(gi, grad.dtype)
        if g.shape == r.shape and g.dtype == r.dtype:
            return Tensor._wrap_np(np.where(r <= 0, g.dtype.type(0), g), grad.dtype)
    return masked_grad((result <= 0).logical_not(), grad)


def _relu_c():
    from ..kernels.cpu import relu_c
    globals()["_relu_c"] = lambda: relu_c      # later calls skip the import machinery
    return relu_c


def _needs_history(*ts):
    return state.grad_enabled and any(isinstance(t, Tensor) and t._requires_grad for t in ts)


def _record(out, node, inputs):
    from ._kernel import edge, set_history
    node.next_edges = tuple(edge(t) for t in inputs)
    set_history(out, node)
    return out


def _fw_linear(out, g, fn):
    """Forward-mode tangent for a helper that is a linear map of g computed in numpy (sum_to,
    view_scatter, ...): the same map applied to g's tangent. Without it forward-over-reverse
    (jvp of a gradient) would silently lose the tangent."""
    t = g.__dict__.get("_fw_tangent")
    if t is not None:
        from .forward_ad import _FW, _attach
        if _FW[0]:
            _attach(out, fn(t))
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
    if state.mode_stack:
        return _aten().sum.dim_IntList(g, list(axes), True).reshape(shape) if axes else g.reshape(shape)
    if g._np is None:
        out = _meta(shape, g.dtype)
    else:
        arr = g._np.sum(axis=axes, keepdims=True) if axes else g._np
        out = _const(arr.reshape(shape), g.dtype)
    if _needs_history(g):
        _record(out, SumToSizeBackward0(g._size), (g,))
    return _fw_linear(out, g, lambda t: sum_to(t, shape))


def expand_to(g, shape):
    shape = tuple(shape)
    if g._size == shape:
        return g
    if state.mode_stack:
        return _aten().expand.default(g, list(shape))
    out = _meta(shape, g.dtype) if g._np is None else _const(np.broadcast_to(g._np, shape).copy(), g.dtype)
    if _needs_history(g):
        _record(out, ExpandBackward0(g._size), (g,))
    return _fw_linear(out, g, lambda t: expand_to(t, shape))


class ToCopyBackward0(Node):
    def __init__(self, dtype):
        super().__init__()
        self.dtype = dtype

    def apply(self, grads):
        return (to_dtype(grads[0], self.dtype),)


def to_dtype(g, dtype):
    if g.dtype is dtype:
        return g
    if state.mode_stack:
        return _aten()._to_copy.default(g, dtype=dtype)
    out = _meta(g._size, dtype) if g._np is None else _const(g._np.astype(dtype._np), dtype)
    if _needs_history(g) and (dtype.is_floating_point or dtype.is_complex):
        _record(out, ToCopyBackward0(g.dtype), (g,))
    return _fw_linear(out, g, lambda t: to_dtype(t, dtype))


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
    if state.mode_stack:
        return _aten().zeros.default(list(shape), dtype=dtype)
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
    if state.mode_stack:                 # ops a tracing mode records (functionalization makes the write pure)
        fn(out).copy_(grad)
        return out
    v = fn(out)
    v._np[...] = grad._np
    if _needs_history(grad):
        _record(out, ViewScatterBackward0(fn), (grad,))
    return _fw_linear(out, grad, lambda t: view_scatter(t, sizes, fn))


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
    return _fw_linear(out, g, lambda t: _restride(t, src, dst, extent))


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
def mm_mat1_backward(grad, mat2, sizes, strides, alpha):
    """Like torch: when mat1 is column-major (a transposed weight), produce its gradient in that
    layout too, so the gradient reaching the parameter is stolen by AccumulateGrad without a copy."""
    col = len(sizes) == 2 and strides[0] == 1 and strides[1] == sizes[0] and sizes[1] != 1
    r = _mm_direct(grad, mat2, col, True)
    if r is not None:
        return maybe_multiply(r, alpha)
    if col:
        return maybe_multiply(mat2.mm(grad.t()).t(), alpha)
    return maybe_multiply(grad.mm(mat2.t()), alpha)


def mm_mat2_backward(grad, mat1, sizes, strides, alpha):
    col = len(sizes) == 2 and strides[0] == 1 and strides[1] == sizes[0] and sizes[1] != 1
    r = _mm_direct(grad, mat1, col, False)
    if r is not None:
        return maybe_multiply(r, alpha)
    if col:
        return maybe_multiply(grad.t().mm(mat1).t(), alpha)
    return maybe_multiply(mat1.t().mm(grad), alpha)


_MM_DIRECT = (_dt.float32, _dt.float64)


def _mm_direct(grad, other, col, first):
    """The gradient of an mm operand as the formulas above compute it (the same np.matmul the mm
    kernel runs, on the same operands), without dispatching its t/mm/t when there is no graph to
    record: the two matrices of a Linear's backward cost five dispatches otherwise. `first`: the
    gradient of mat1 (grad @ other^T), else of mat2 (other^T @ grad). `col`: return it column-major
    (a fresh tensor with transposed strides, as `x.mm(y).t()` lays it out). None: take the general path."""
    g, o = grad._np, other._np
    if (state.mode_stack or g is None or o is None or g.ndim != 2 or o.ndim != 2 or grad.dtype not in _MM_DIRECT
            or other.dtype is not grad.dtype or _needs_history(grad, other) or "_fw_tangent" in grad.__dict__
            or "_fw_tangent" in other.__dict__):
        return None
    if first:
        r = np.matmul(o, g.T).T if col else np.matmul(g, o.T)
    else:
        r = np.matmul(g.T, o).T if col else np.matmul(o.T, g)
    return Tensor._wrap_np(r, grad.dtype)


def matmul_backward(grad, self, other, which):
    """d(self @ other) for 1-D/2-D/batched (broadcast) operands, written with matmul itself."""
    a = self.unsqueeze(0) if self.dim() == 1 else self
    b = other.unsqueeze(-1) if other.dim() == 1 else other
    from ..kernels.common import broadcast_shapes
    batch = tuple(broadcast_shapes(a._size[:-2], b._size[:-2]))
    g = grad.reshape(batch + (a._size[-2], b._size[-1]))
    if b.dim() == 2 and a.dim() > 2:
        # (..., n, k) @ (k, m): the batch folds into the rows, so each gradient is one 2-D product
        # instead of a batched product (and, for `other`, a sum over the batch afterwards)
        g2 = g.reshape(-1, b._size[-1])
        if which == 0:
            return g2.mm(b.t()).reshape(self._size)
        r = a.reshape(-1, a._size[-1]).t().mm(g2)
        return r.reshape(other._size) if r._size != other._size else r
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


# ------------------------------------------------------------ value-selecting reductions (sort, topk, ...)
def _dim_index(idx, dim):
    """The index tuple that addresses, in a tensor shaped like the input, the elements `idx` picks along dim."""
    n = idx.dim()
    out = []
    for d in range(n):
        if d == dim:
            out.append(idx)
        else:
            shape = [1] * n
            shape[d] = idx._size[d]
            out.append(_const(np.arange(idx._size[d]).reshape(shape), idx.dtype))
    return out


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


def msort_backward(grad, self):
    from .._generated.functions import sort
    return value_selecting_backward(grad, 0, sort(self.detach(), dim=0, stable=True)[1], self._size, True)


# ------------------------------------------------------------ scans
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
    c = _aten().where.self(eye, ones_like(e), e).cumprod(-1)         # [..., j, i]
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


# ------------------------------------------------------------ variance / norms
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
    g = _restore(grad, self._size, dim, keepdim)
    r = _restore(result, self._size, dim, keepdim)
    if p == 0.0:
        return zeros_like(self)
    if p == 1.0:
        return sgn(self) * g
    if p == 2.0:
        return masked_grad(r != 0, self * (g / r))
    if p == float("inf") or p == float("-inf"):
        mask = (self.abs() == r).to(grad.dtype)
        dims = _dims(dim, self.dim())
        count = mask.sum(dims, keepdim=True) if self.dim() else mask
        return sgn(self) * mask * (g / count)
    if p < 1.0:
        return masked_grad(self != 0, sgn(self) * self.abs().pow(p - 1) * g * r.pow(1 - p))
    return masked_grad(r != 0, self * self.abs().pow(p - 2) * g / r.pow(p - 1))


def matrix_norm_backward(grad, self, ord, result, dim, keepdim):
    if ord == "fro":
        return norm_backward(grad, self, 2.0, result, dim, keepdim)
    if ord in (1, -1, 2, -2, float("inf"), float("-inf")) and ord not in (2, -2):
        # max/min over one dim of abs-sums over the other (torch's decomposition)
        d0, d1 = [d % self.dim() for d in dim]
        if ord in (float("inf"), float("-inf")):
            d0, d1 = d1, d0
        s = self.abs().sum(d0, keepdim=True)
        red = s.amax(d1, keepdim=True) if ord > 0 else s.amin(d1, keepdim=True)
        gs = amax_backward(_restore(grad, self._size, [d0, d1], keepdim), s, red, [d1], True)
        return sgn(self) * gs
    if ord in ("nuc", 2, -2):
        return _svd_norm_backward(grad, self, ord, dim, keepdim)
    raise RuntimeError(f"the derivative for 'linalg_matrix_norm' with ord={ord!r} is not implemented.")


def _svd_norm_backward(grad, self, ord, dim, keepdim):
    """nuclear norm: U Vh; spectral norm (ord=±2): u_k v_kᵀ of the extreme singular value, split
    evenly among ties (torch's svdvals-based decomposition). Written over the differentiable
    _linalg_svd, so this backward is itself differentiable."""
    d0, d1 = [d % self.dim() for d in dim]
    a = self.movedim((d0, d1), (-2, -1))
    u, sv, vh = _aten()._linalg_svd.default(a, False, True)
    if ord == "nuc":
        c = u.matmul(vh)
    else:
        s = sv._np
        ext = s.max(-1, keepdims=True) if ord == 2 else s.min(-1, keepdims=True)
        m = (s == ext).astype(s.dtype)
        m = _const(m / m.sum(-1, keepdims=True), sv.dtype)
        c = (u * m.unsqueeze(-2)).matmul(vh)
    c = c.movedim((-2, -1), (d0, d1))
    return _restore(grad, self._size, [d0, d1], keepdim) * c


def logsumexp_backward(grad, self, result, dim, keepdim):
    g = _restore(grad, self._size, dim, keepdim)
    r = _restore(result, self._size, dim, keepdim)
    return g * (self - r).exp()


# ------------------------------------------------------------ elementwise math / activations
def logit_backward(grad, self, eps):
    if eps is None:
        lo, hi = 0.0, 1.0
        out = grad / (self * (1 - self))
        bad = (self < lo) | (self > hi)
        return _aten().where.self(bad, _const(np.full((), np.nan), grad.dtype), out)
    out = grad / (self * (1 - self))
    return masked_grad(((self < eps) | (self > 1 - eps)).logical_not(), out)


def maximum_backward(grad, self, other, which):
    half = _aten().where.self(self == other, grad / 2, grad)
    return masked_grad((self < other).logical_not() if which == 0 else (self > other).logical_not(), half)


def fmax_backward(grad, self, other, which, is_max=True):
    cmp = (self >= other) if is_max else (self <= other)
    keep_other = cmp | other.isnan()
    return masked_grad(keep_other if which == 0 else keep_other.logical_not(), grad)


_SQRT_2 = float(np.sqrt(2.0))
_SQRT_2PI = float(np.sqrt(2.0 * np.pi))


def gelu_double_backward(ggI, grad_output, self, approximate):
    """gelu_backward's derivative for self: d/dself of grad_output * GELU'(self), times ggI (the gradient
    reaching gelu_backward's output). gelu_backward itself is a fused op (kernels/cpu/activations.py)."""
    if approximate == "tanh":
        k = float(np.sqrt(2.0 / np.pi))
        c = 0.044715
        du = (self * self * (3 * c) + 1) * k                        # d/dx of u = k (x + c x^3)
        t = ((self + self * self * self * c) * k).tanh()
        d2 = (1 - t * t) * (du - self * t * du * du + self * self * (3 * c * k))
        return ggI * grad_output * d2
    pdf = (self * self * -0.5).exp() / _SQRT_2PI
    return ggI * grad_output * pdf * (2 - self * self)


def silu_backward(grad, self):
    s = self.sigmoid()
    return grad * s * (1 + self * (1 - s))


def mish_backward(grad, self):
    from .._generated.nn_functions import softplus
    t = softplus(self).tanh()
    return grad * (t + self * self.sigmoid() * (1 - t * t))


def softplus_backward(grad, self, beta, threshold):
    z = self * beta
    return _aten().where.self(z > threshold, grad, grad * z.sigmoid())


def elu_backward(grad, self, alpha, scale, input_scale):
    neg = grad * (self * input_scale).exp() * (input_scale * alpha * scale)
    return _aten().where.self(self > 0, grad * scale, neg)


HARDSIGMOID_SLOPE = 0.1666666716337204   # torch's kernel multiplies by float(1/6) in every dtype
SELU_ALPHA = 1.6732632423543772848170429916717
SELU_SCALE = 1.0507009873554804934193349852946


def hardswish_backward(grad, self):
    mid = grad * (self / 3 + 0.5)
    return _aten().where.self(self < -3, zeros_like(grad), _aten().where.self(self <= 3, mid, grad))


def glu_backward(grad, self, dim):
    a, b = self.chunk(2, dim)
    sb = b.sigmoid()
    from .._generated.functions import cat
    return cat([grad * sb, grad * a * sb * (1 - sb)], dim)


def xlogy_self(grad, self, other):
    from .._generated.functions import xlogy
    return grad * xlogy((self != 0).to(grad.dtype), other)


# ------------------------------------------------------------ losses (nn_ops.yaml); reduction: 0 none, 1 mean, 2 sum
def loss_scale(grad, d, reduction):
    """grad of a pointwise loss term d (same shape as the input) under the reduction."""
    if reduction == 0:
        return grad
    g = expand_to(grad, d._size)
    return g / d.numel() if reduction == 1 else g


def l1_loss_backward(grad, self, target, reduction):
    d = self - target
    return loss_scale(grad, d, reduction) * sgn(d)


def smooth_l1_backward(grad, self, target, reduction, beta, huber=False):
    d = self - target
    if beta == 0:
        return loss_scale(grad, d, reduction) * sgn(d)
    small = d.abs() < beta
    inner = d if huber else d / beta
    outer = sgn(d) * (beta if huber else 1.0)
    return loss_scale(grad, d, reduction) * _aten().where.self(small, inner, outer)


def soft_margin_backward(grad, self, target, reduction):
    z = -target * self
    return loss_scale(grad, self, reduction) * (-target * z.sigmoid())


def bce_backward(grad, self, target, weight, reduction):
    g = loss_scale(grad, self, reduction) * (self - target) / (self * (1 - self)).clamp_min(1e-12)
    return g * weight if weight is not None else g


def bce_logits_backward(grad, self, target, weight, pos_weight, reduction):
    s = self.sigmoid()
    if pos_weight is not None:
        d = (pos_weight * target + 1 - target) * s - pos_weight * target
    else:
        d = s - target
    g = loss_scale(grad, self, reduction) * d
    return g * weight if weight is not None else g


def kl_div_backward(grad, self, target, reduction, log_target):
    t = target.exp() if log_target else target
    return loss_scale(grad, self, reduction) * -t


def dropout_scale(p, train):
    if train is None or not train:
        return 1.0
    return 0.0 if p == 1 else 1.0 / (1.0 - p)
