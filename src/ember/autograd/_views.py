"""In-place ops on views (torch/csrc/autograd/VariableTypeUtils.h rebase_history, CopySlices in
torch/csrc/autograd/functions/tensor.cpp).

When an in-place op writes through a view, the *base* is what changed: its history becomes a
CopySlices node (gradient of the untouched part flows to the base's old history, the viewed part goes
through the in-place op's backward), and the view's history is regenerated as a view of the new
base. Other views of the same base regenerate lazily, when their version counter shows that the
storage was written since their grad_fn was set (graph.gradient_edge -> refresh_view: a tensor's
edge and a view's regenerated one are one idea, so they live together in graph.py).

Positions: a view's elements are located in its base by flat index (C order over the base's
elements), so grads are moved with index / index_put (both differentiable: create_graph works).
"""
from .._core.dispatch_keys import AUTOGRAD_BIT
from .._ops import ops
from .graph import Node, _idx_tensor, _set_view_fn, gradient_entry, view_positions
from .._core.strides import same_shape


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
        gs = ops.aten.index.Tensor(flat, idx)
        res = list(self.fn.apply([gs]))
        r0 = res[0]
        if r0 is None:
            r0 = gs * 0
        if not same_shape(r0._size, gs._size):
            r0 = r0.expand(gs._size)
        res[0] = ops.aten.index_put.default(flat, idx, r0, False).reshape(self.base_size)
        return tuple(res)

    def release_variables(self):
        self._released = True
        self.fn.release_variables()


_SELF = (Node(), 0)   # stands in for the view's edge so the in-place formula computes grad for self


def rebase_view(view, fn):
    base = view._base
    pos = view_positions(view, base)
    cs = CopySlices(base, pos, fn)
    cs.next_edges = (gradient_entry(base),) + tuple(fn.next_edges[1:])
    fn.next_edges = (_SELF,) + tuple(fn.next_edges[1:])
    base.grad_fn = cs
    base._output_nr = 0
    base._requires_grad = True
    base._ks |= AUTOGRAD_BIT
    _set_view_fn(view, base, pos)
