"""torch.export's run_decompositions: an ExportedProgram retraced with a decomposition table.

The graph is already functional and at the aten level; retracing it under make_fx with `decomp_table`
(default: `default_decompositions()`, ember's decomposition table without the ops torch counts as core ATen, so
`addmm` or `_softmax` stay as torch keeps them) replaces the ops the table names by their decompositions. Placeholders keep their names and the signature keeps its kinds and
targets; output names follow the new nodes.
"""
import operator

from ember._ops import OpOverload
from ember._tensor import Tensor
from ember.fx import Graph, GraphModule
from ember.fx.experimental.proxy_tensor import make_fx

from .graph_signature import ExportGraphSignature, InputSpec, OutputSpec, TensorArgument


def _example_values(gm):
    """The placeholders' values to retrace with: their fake tensors, or fakes made from saved metadata."""
    vals = [n.meta.get("val") for n in gm.graph.nodes if n.op == "placeholder"]
    if all(isinstance(v, Tensor) or not hasattr(v, "shape") for v in vals):
        return vals
    from ember import empty_strided
    from ember._subclasses.fake_tensor import FakeTensorMode
    mode = FakeTensorMode()
    return [v if isinstance(v, Tensor) or not hasattr(v, "shape") else mode.from_tensor(empty_strided(tuple(v.shape), tuple(v.stride()),
                                                                           dtype=v.dtype)) for v in vals]


# ops of ember's decomposition table that torch tags `core` (its export keeps them in the core ATen opset)
_TORCH_CORE = {"aten::gelu", "aten::hardtanh", "aten::leaky_relu", "aten::elu", "aten::_softmax",
               "aten::_log_softmax", "aten::addmm", "aten::native_layer_norm", "aten::embedding",
               "aten::embedding_dense_backward", "aten::native_group_norm", "aten::native_group_norm_backward",
               "aten::native_layer_norm_backward", "aten::upsample_nearest2d.vec", "aten::upsample_bilinear2d.vec"}


def default_decompositions():
    """The table run_decompositions uses by default (torch.export.default_decompositions): to core ATen."""
    from ember._decomp import core_aten_decompositions
    return {op: fn for op, fn in core_aten_decompositions().items() if op.name() not in _TORCH_CORE}


def run_decompositions(ep, decomp_table=None):
    from ember import no_grad
    table = default_decompositions() if decomp_table is None else dict(decomp_table)
    gm = ep.graph_module
    phs = [n for n in gm.graph.nodes if n.op == "placeholder"]
    vals = _example_values(gm)
    tracing = "symbolic" if ep._call_spec is not None and ep._call_spec.shape_env is not None else "fake"
    with no_grad():
        new = make_fx(lambda *a: list(gm(*a)), decomposition_table=table, tracing_mode=tracing)(*vals)
    g = Graph()
    env = {}
    new_phs = [n for n in new.graph.nodes if n.op == "placeholder"]
    for old, n in zip(phs, new_phs):
        env[n] = g.placeholder(old.target)
        env[n].meta = dict(old.meta)
    outs = None
    for n in new.graph.nodes:
        if n.op == "placeholder":
            continue
        if n.op == "output":
            outs = list(n.args[0])
            break
        env[n] = g.node_copy(n, lambda a: env[a])
    if any(n.op == "get_attr" for n in g.nodes):
        raise NotImplementedError("run_decompositions: a decomposition made a tensor constant; ember does not "
                                  "lift constants made during run_decompositions")
    new_outs = [env[o] if hasattr(o, "op") else o for o in outs]
    g.output(tuple(new_outs))
    sig = ep.graph_signature
    in_specs = [InputSpec(s.kind, s.arg, s.target, s.persistent) for s in sig.input_specs]
    out_specs = [OutputSpec(s.kind, TensorArgument(o.name) if hasattr(o, "op") else s.arg, s.target)
                 for s, o in zip(sig.output_specs, new_outs)]
    return type(ep)(GraphModule({}, g), ExportGraphSignature(in_specs, out_specs), ep.state_dict,
                           range_constraints=ep._range_constraints, constants=ep.constants,
                           example_inputs=ep.example_inputs, _call_spec=ep._call_spec)


def _verify(ep):
    """The checks torch's verifier makes that ember's graphs can fail: one placeholder per input spec, one
    output per output spec, only OpOverloads (and getitem) called."""
    g = ep.graph
    phs = [n for n in g.nodes if n.op == "placeholder"]
    sig = ep.graph_signature
    if [n.target for n in phs] != [s.arg.name for s in sig.input_specs]:
        raise RuntimeError("ExportedProgram: the placeholders do not match the graph signature's input specs")
    out = next(n for n in g.nodes if n.op == "output")
    if len(out.args[0]) != len(sig.output_specs):
        raise RuntimeError("ExportedProgram: the outputs do not match the graph signature's output specs")
    for n in g.nodes:
        if n.op == "call_function" and not isinstance(n.target, OpOverload) and n.target is not operator.getitem:
            raise RuntimeError(f"ExportedProgram: node {n.name} calls {n.target}, which is not an aten operator")
        if n.op in ("call_module", "call_method", "get_attr"):
            raise RuntimeError(f"ExportedProgram: node {n.name} is a {n.op} node")
