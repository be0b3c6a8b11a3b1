"""Bringing a gradient to its input's shape and dtype: sum_to / expand_to (broadcast reduction and its
inverse) and to_dtype, each recording its own Node when create_graph records history (at::sum_to in
ATen/ExpandUtils.h, grad.to(dtype) in the engine's validate_outputs). The engine uses them on every
gradient it validates; the formulas reach them through formulas/_common.py."""

import numpy as np

from .._core.tls import state
from .._core.tensor_impl import TensorImpl as Tensor
from ._kernel import edge, set_history
from .forward_ad import _FW, _attach, _level as _FW_LEVEL
from .graph import Node
from .._core.strides import same_shape
from .._core.dispatch_keys import CPU_BIT, INPLACE_OR_VIEW_BIT

_PLAIN_CPU = CPU_BIT | INPLACE_OR_VIEW_BIT       # a cpu tensor's key set without autograd, math bits or modes

__all__ = ["ExpandBackward0", "SumToSizeBackward0", "ToCopyBackward0", "expand_to", "sum_to", "to_dtype"]


def _const(arr, dtype):
    return Tensor._wrap_np(np.asarray(arr, dtype=dtype._np), dtype)


def _meta(shape, dtype):
    """A meta tensor of that shape: what the numpy helpers below return for a meta grad (no data)."""
    from .._core.device import META
    from ..kernels.common import empty_tensor
    return empty_tensor(tuple(shape), dtype, META)


def _needs_history(*ts):
    return state.grad_enabled and any(isinstance(t, Tensor) and t._requires_grad for t in ts)


def _record(out, node, inputs):
    node.next_edges = tuple(edge(t) for t in inputs)
    set_history(out, node)
    return out


def _fw_linear(out, g, fn):
    """Forward-mode tangent for a helper that is a linear map of g computed in numpy (sum_to,
    view_scatter, ...): the same map applied to g's tangent. Without it forward-over-reverse
    (jvp of a gradient) would silently lose the tangent.

    Tangents exist only inside a dual level (exit_dual_level removes them all), so outside one no tensor's
    `__dict__` is read: on CPython 3.11 reading it turns the instance's inline attribute values into a dict for
    good, and every later attribute read of that tensor takes the slower dict lookup."""
    if _FW_LEVEL[0] is None:
        return out
    t = g.__dict__.get("_fw_tangent")
    if t is not None:
        if _FW[0]:
            _attach(out, fn(t))
    return out


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
    if same_shape(g._size, shape):
        return g
    if g._ks == _PLAIN_CPU and not state.grad_enabled and not state.mode_stack and (
            _FW_LEVEL[0] is None or "_fw_tangent" not in g.__dict__):
        r = _sum_to_plain(g, shape)
        if r is not None:
            return r
    lead = len(g._size) - len(shape)
    axes = tuple(range(lead)) + tuple(i + lead for i, s in enumerate(shape) if s == 1 and g._size[i + lead] != 1)
    if state.mode_stack:
        return _aten().sum.dim_IntList(g, list(axes), True).reshape(shape) if axes else g.reshape(shape)
    if g._np is None:
        out = _meta(shape, g.dtype)
    else:
        arr = g._logical_np()
        if axes:
            arr = np.add.reduce(arr, axis=axes, keepdims=True).reshape(shape)    # (= arr.sum, minus its wrapper)
            out = Tensor._wrap_fresh(arr, g.dtype) if arr.dtype == g.dtype._np else _const(arr, g.dtype)
        else:
            out = _const(arr.reshape(shape), g.dtype)
    if state.grad_enabled and g._requires_grad:
        _record(out, SumToSizeBackward0(g._size), (g,))
    if _FW_LEVEL[0] is not None and "_fw_tangent" in g.__dict__:
        return _fw_linear(out, g, lambda t: sum_to(t, shape))
    return out


def _sum_to_plain(g, shape):
    """sum_to of a plain cpu float tensor (no math bits, nothing records, no mode) to the shape of a broadcast
    input: one numpy reduction into a fresh array of the grad's dtype; None when `shape` does not broadcast to
    g's sizes (the caller's general path) or g's array is not of its dtype's numpy type."""
    a = g._np
    gs = g._size
    if shape.__class__ is not tuple:
        shape = tuple(shape)
    lead = len(gs) - len(shape)
    if lead < 0 or a is None or a.dtype != g.dtype._np:
        return None
    if not shape:
        out = np.empty((), a.dtype)       # a grad of a 0-dim input: the whole sum, as a 0-dim array
        np.add.reduce(a, axis=None, out=out)
        return Tensor._wrap_fresh(out, g.dtype)
    axes = list(range(lead))
    for i, s in enumerate(shape):
        n = gs[i + lead]
        if s != n:
            if s != 1:
                return None
            axes.append(i + lead)
    out = np.empty(shape, a.dtype)
    np.add.reduce(a, axis=tuple(axes), keepdims=True, out=out.reshape((1,) * lead + shape))
    return Tensor._wrap_fresh(out, g.dtype)


def expand_to(g, shape):
    shape = tuple(shape)
    if same_shape(g._size, shape):
        return g
    if state.mode_stack:
        return _aten().expand.default(g, list(shape))
    if g._np is None:
        out = _meta(shape, g.dtype)
    else:
        a = g._logical_np()
        arr = np.empty(shape, a.dtype)      # a broadcasting write: np.broadcast_to(a, shape).copy() cost ~7x this
        arr[...] = a
        out = Tensor._wrap_fresh(arr, g.dtype) if a.dtype == g.dtype._np else _const(arr, g.dtype)
    if state.grad_enabled and g._requires_grad:
        _record(out, ExpandBackward0(g._size), (g,))
    if _FW_LEVEL[0] is not None and "_fw_tangent" in g.__dict__:
        return _fw_linear(out, g, lambda t: expand_to(t, shape))
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
    if state.mode_stack:
        return _aten()._to_copy.default(g, dtype=dtype)
    a = g._logical_np()
    if a is not None and a.dtype.kind == "c" and not dtype.is_complex:
        a = a.real      # a complex grad of a real input keeps its real part (numpy would warn on astype)
    out = _meta(g._size, dtype) if a is None else _const(a.astype(dtype._np), dtype)
    if _needs_history(g) and (dtype.is_floating_point or dtype.is_complex):
        _record(out, ToCopyBackward0(g.dtype), (g,))
    return _fw_linear(out, g, lambda t: to_dtype(t, dtype))


def _aten():
    from .._ops import ops
    return ops.aten
