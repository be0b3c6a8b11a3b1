"""torch._functorch.eager_transforms.functionalize: the functionalize transform (torch.func.functionalize).

torch runs the function on FunctionalTensor wrappers. ember traces it instead: make_fx on fake copies of the
inputs (so the trace has no side effects), the functionalization graph pass (ember._functorch.functionalize)
removes the mutations (and with remove="mutations_and_views" also the views, replaced by their `*_copy` ops),
and the pure graph runs on the real inputs; inputs the function mutated get their new values copied back, as
torch propagates input mutations. Called under make_fx, the pure graph's ops are what the outer trace records.
A function whose control flow depends on tensor values cannot be traced on fake tensors and raises.
"""
import functools

from ember._ops import OpOverload, ops
from ember._tensor import Tensor

from .functionalize import _is_view_op, functionalize_graph

_REMOVE_ERROR = (
    "functionalize(f, remove='mutations'): received invalid argument for remove={}. Valid options are:\n"
    "     remove='mutations': all inplace and out= operators will be removed from the program, and replaced"
    " with their out-of-place equivalents.\n"
    "     remove='mutations_and_views': In addition to the above, all aliasing operators {{view}} will be"
    " replaced with their non-aliasing counterparts, {{view}}_copy.\n")


def _flatten(x):
    """Leaves and a rebuild function for tuples / lists / dicts (namedtuples kept)."""
    if isinstance(x, (tuple, list)):
        parts = [_flatten(v) for v in x]

        def unflat(leaves, parts=parts, typ=type(x)):
            out, i = [], 0
            for leaves_k, f in parts:
                out.append(f(leaves[i:i + len(leaves_k)]))
                i += len(leaves_k)
            return typ(*out) if hasattr(typ, "_fields") else typ(out)
        return [leaf for p in parts for leaf in p[0]], unflat
    if isinstance(x, dict):
        keys = list(x)
        leaves, unflat = _flatten([x[k] for k in keys])
        return leaves, lambda ls: dict(zip(keys, unflat(ls)))
    return [x], lambda leaves: leaves[0]


def _copy_variant(op):
    """view.default -> view_copy.default (None when aten has no copy variant for the overload)."""
    pkt = getattr(ops.aten, op._packet.__name__ + "_copy", None)
    if pkt is None:
        return None
    return getattr(pkt, op._overloadname, None)


def _replace_views(gm):
    import ember
    for n in list(gm.graph.nodes):
        if n.op == "call_function" and n.target is ops.aten.reshape.default:
            # reshape views a contiguous input and copies otherwise: view_copy of the (made contiguous) input
            val = n.args[0].meta.get("val") if hasattr(n.args[0], "meta") else None
            if not (isinstance(val, Tensor) and val.is_contiguous()):
                with gm.graph.inserting_before(n):
                    src = gm.graph.call_function(ops.aten.clone.default, (n.args[0],),
                                                 {"memory_format": ember.contiguous_format})
                n.args = (src,) + tuple(n.args[1:])
            n.target = ops.aten.view_copy.default
        elif n.op == "call_function" and isinstance(n.target, OpOverload) and _is_view_op(n.target):
            copy = _copy_variant(n.target)
            if copy is not None:
                n.target = copy
    gm.recompile()


def functionalize(func, *, remove="mutations"):
    """A function computing what `func` computes without mutating or (remove="mutations_and_views") aliasing
    intermediates; mutations of its inputs are applied to them at the end (torch.func.functionalize)."""
    if remove not in ("mutations", "mutations_and_views"):
        raise RuntimeError(_REMOVE_ERROR.format(remove))

    @functools.wraps(func)
    def wrapped(*args, **kwargs):
        from ember.fx.experimental.proxy_tensor import make_fx
        leaves, unflat = _flatten((args, kwargs))
        tensor_pos = [i for i, v in enumerate(leaves) if isinstance(v, Tensor)]
        inputs = [leaves[i] for i in tensor_pos]

        def flat_fn(*tensors):
            vals = list(leaves)
            for i, t in zip(tensor_pos, tensors):
                vals[i] = t
            a, kw = unflat(vals)
            return func(*a, **kw)
        gm = make_fx(flat_fn, tracing_mode="fake", _allow_non_fake_inputs=True)(*inputs)
        out_node = next(n for n in gm.graph.nodes if n.op == "output")
        out_spec = out_node.args[0]
        fg = functionalize_graph(gm)
        if remove == "mutations_and_views":
            _replace_views(fg.gm)
        res = fg.gm(*inputs)              # the outputs (flat at the top level), then the mutated inputs' values
        n = fg.num_original_outputs
        for k, new in zip(fg.mutated_inputs, res[n:]):
            t = inputs[k]
            if tuple(t.shape) != tuple(new.shape):
                from ..kernels.common import resize_internal   # torch's functionalize: below Autograd
                resize_internal(t, new.shape)
            t.copy_(new)
        return type(out_spec)(res[:n]) if isinstance(out_spec, (tuple, list)) else res[0]
    return wrapped
