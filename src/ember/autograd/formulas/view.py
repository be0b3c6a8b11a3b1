"""Backward helpers of the view ops (torch's FunctionsManual.cpp): permutations and scattering a view's
grad back into its base (as_strided)."""

import numpy as np

from ..._core.tensor_impl import TensorImpl as Tensor
from ..._core.tls import state as _state
from ..._core.dispatch_keys import MATH_BITS as _MATH_BITS
from ..forward_ad import _level as _FW_LEVEL
from ..graph import Node
from ._common import _const, _needs_history, _record, _fw_linear, _zeros

_wrap_fresh = Tensor._wrap_fresh

__all__ = ["RestrideBackward0", "ViewScatterBackward0", "as_strided_backward", "axis_select", "axis_slice",
           "inverse_permutation", "view_scatter"]


def inverse_permutation(dims):
    n = len(dims)
    inv = [0] * n
    for i, d in enumerate(dims):
        inv[d % n] = i
    return inv


class ViewScatterBackward0(Node):
    """Backward of view_scatter: re-take the view of the incoming gradient."""

    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def apply(self, grads):
        return (self.fn(grads[0]),)


def axis_select(sizes, dim, index):
    """The numpy index of select(dim, index) on a tensor of `sizes` (for view_scatter)."""
    return (slice(None),) * (dim % len(sizes)) + (index,)


def axis_slice(sizes, dim, start, end, step):
    """The numpy index of slice(dim, start, end, step): numpy's slice clamps and wraps as torch's does."""
    return (slice(None),) * (dim % len(sizes)) + (slice(start, end, step),)


def view_scatter(grad, sizes, fn, np_index=None):
    """Gradient of a non-overlapping view `fn(self)`: zeros shaped like self with `grad` written into
    the region `fn` selects (torch's select_backward / slice_backward / diagonal_backward). `np_index`,
    when given, is that region as a numpy index: with nothing to record, one numpy write (no view op)."""
    if (np_index is not None and (a := grad._np) is not None and not _state.mode_stack
            and not (_state.grad_enabled and grad._requires_grad)
            and (_FW_LEVEL[0] is None or "_fw_tangent" not in grad.__dict__)):
        # (_needs_history(grad) inline; `__dict__` only read with a dual level on: reading it makes a dict
        # for a tensor that had none. The select chains of an indexing loop, x[t, k], come here twice each)
        out = np.zeros(sizes if sizes.__class__ is tuple else tuple(sizes), grad.dtype._np)
        out[np_index] = a if not grad._ks & _MATH_BITS else grad._logical_np()
        return _wrap_fresh(out, grad.dtype)
    out = _zeros(sizes, grad.dtype)
    if _state.mode_stack:                # ops a tracing mode records (functionalization makes the write pure)
        fn(out).copy_(grad)
        return out
    v = fn(out)
    v._np[...] = grad._logical_np()
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
    if g._np is None:
        raise NotImplementedError("as_strided's backward on a tensor without data (fake or meta, e.g. under AOT "
                                  "autograd): its storage-position scatter is computed in numpy and is not traceable yet")
    buf = np.zeros(extent, g.dtype._np)
    np.add.at(buf, src.reshape(-1), np.ascontiguousarray(g._logical_np()).reshape(-1))
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
