"""In-place ops on views (torch/csrc/autograd/VariableTypeUtils.h rebase_history, CopySlices in
torch/csrc/autograd/functions/tensor.cpp).

When an in-place op writes through a view, the *base* is what changed: its history becomes a
CopySlices node (gradient of the untouched part flows to the base's old history, the viewed part goes
through the in-place op's backward), and the view's history is regenerated as a view of the new
base. Other views of the same base regenerate lazily, when their version counter shows that the
storage was written since their grad_fn was set.

Positions: a view's elements are located in its base by flat index (C order over the base's
elements), so grads are moved with index / index_put (both differentiable: create_graph works).
"""
import numpy as np

from .._core.dispatch_keys import AUTOGRAD_BIT
from .._core.tensor_impl import TensorImpl as Tensor
from .graph import Node, gradient_edge
from .._core.strides import same_shape


def _storage_positions(size, stride, offset):
    if any(s == 0 for s in size):
        return np.zeros(tuple(size), np.int64)
    ext = offset + 1 + sum((s - 1) * st for s, st in zip(size, stride))
    idx = np.arange(ext, dtype=np.int64)
    return np.lib.stride_tricks.as_strided(idx[offset:], shape=tuple(size),
                                           strides=tuple(s * idx.itemsize for s in stride))


def view_positions(view, base):
    """Flat (C-order) indices into `base` of each element of `view` (same storage)."""
    bpos = _storage_positions(base._size, base.stride(), base._offset)
    vpos = _storage_positions(view._size, view.stride(), view._offset)
    n = int(max(bpos.max(initial=0), vpos.max(initial=0))) + 1
    inv = np.full(n, -1, np.int64)
    inv[bpos.reshape(-1)] = np.arange(bpos.size, dtype=np.int64)
    out = inv[vpos]
    if out.size and out.min() < 0:
        raise RuntimeError("view_positions: the view reaches outside its base")
    return out


def _idx_tensor(pos):
    from .._core import dtype as _dt
    return Tensor._wrap_np(np.ascontiguousarray(pos), _dt.int64)


def _aten():
    from .._ops import ops
    return ops.aten


class AsStridedBackward0(Node):
    """grad_fn of a view whose base was modified in place: scatter the view's grad into the base."""
    _op_name = "aten::as_strided"

    def __init__(self, base, pos):
        super().__init__()
        self.base_size = base._size
        self.base_numel = base.numel()
        self.pos = pos

    def apply(self, grads):
        from .formulas._common import _zeros
        g = grads[0]
        z = _zeros((self.base_numel,), g.dtype)
        out = _aten().index_put.default(z, [_idx_tensor(self.pos)], g, True)
        return (out.reshape(self.base_size),)


class CopySlices(Node):
    """grad_fn of a base written through a view: next_edges[0] is the base's old history, the rest
    are the in-place op's other inputs."""
    _op_name = "aten::copy_slices"

    def __init__(self, base, pos, fn):
        super().__init__()
        self.base_size = base._size
        self.pos = pos
        self.fn = fn
        self.input_meta = [(base._size, base.dtype, base.device)]

    def apply(self, grads):
        grad = grads[0]
        idx = [_idx_tensor(self.pos)]
        flat = grad.reshape(-1)
        gs = _aten().index.Tensor(flat, idx)
        res = list(self.fn.apply([gs]))
        r0 = res[0]
        if r0 is None:
            r0 = gs * 0
        if not same_shape(r0._size, gs._size):
            r0 = r0.expand(gs._size)
        res[0] = _aten().index_put.default(flat, idx, r0, False).reshape(self.base_size)
        return tuple(res)

    def release_variables(self):
        self._released = True
        self.fn.release_variables()


_SELF = (Node(), 0)   # stands in for the view's edge so the in-place formula computes grad for self


def rebase_view(view, fn):
    base = view._base
    pos = view_positions(view, base)
    cs = CopySlices(base, pos, fn)
    cs.next_edges = (gradient_edge(base),) + tuple(fn.next_edges[1:])
    fn.next_edges = (_SELF,) + tuple(fn.next_edges[1:])
    base.grad_fn = cs
    base._output_nr = 0
    base._requires_grad = True
    base._ks |= AUTOGRAD_BIT
    _set_view_fn(view, base, pos)


def _set_view_fn(view, base, pos=None):
    if pos is None:
        pos = view_positions(view, base)
    node = AsStridedBackward0(base, pos)
    node.next_edges = (gradient_edge(base),)
    node.input_meta = [(view._size, view.dtype, view.device)]
    view.grad_fn = node
    view._output_nr = 0
    view._requires_grad = True
    view._ks |= AUTOGRAD_BIT
    view._gfv = view._version_counter.value


def refresh_view(t):
    """Lazily regenerate the grad_fn of a view whose base was written since (torch's
    VariableHooks::grad_fn for views)."""
    base = t._base
    if base.grad_fn is None or t._vc is None or t.__dict__.get("_gfv") == t._vc.value:
        return
    if t.__dict__.get("_no_grad_view"):
        return
    if not (t.dtype.is_floating_point or t.dtype.is_complex):
        return
    _set_view_fn(t, base)
