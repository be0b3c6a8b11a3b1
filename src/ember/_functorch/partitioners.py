"""torch._functorch.partitioners: split a joint forward+backward graph into a forward and a backward graph.

The joint graph takes (primals..., tangents...) and returns (forward outputs..., input gradients...).
Forward nodes are the ancestors of the forward outputs; everything else the gradients need is backward.
What crosses from forward to backward is the set of *saved values*:

- `default_partition` saves every forward value a backward node reads (what eager autograd does);
- `min_cut_rematerialization_partition` chooses the saved set by a minimum cut over the forward nodes,
  weighted by bytes: cheap ops (pointwise, views, factories) may be recomputed in the backward from
  fewer saved values; compute-heavy ops, reductions and random ops never are (torch's rule set, reduced).

Both return (forward GraphModule, backward GraphModule); the forward returns its outputs then the saved
values, the backward takes the saved values then the tangents.
"""
import math
from collections import deque

from ember._ops import OpOverload
from ember.fx import Graph, GraphModule
from ember.fx.node import map_arg

# ops the min-cut partition may recompute in the backward
_RECOMPUTABLE = {
    # pointwise
    "add", "sub", "mul", "div", "neg", "exp", "log", "tanh", "sigmoid", "relu", "gelu", "silu", "sin", "cos",
    "pow", "rsqrt", "sqrt", "reciprocal", "where", "clamp", "clamp_min", "clamp_max", "abs", "maximum",
    "minimum", "eq", "ne", "gt", "lt", "ge", "le", "logical_not", "logical_and", "sign", "sgn", "square",
    "_to_copy", "masked_fill", "threshold_backward", "erf", "log1p", "expm1", "hardtanh", "leaky_relu", "elu",
    "softplus", "mish", "hardswish", "hardsigmoid", "rsub", "fill", "lerp", "addcmul", "gelu_backward",
    "sigmoid_backward", "tanh_backward", "bitwise_not", "logical_or", "exp2", "log2", "floor", "ceil", "round",
    "trunc", "frac",
    # views and copies of layout
    "view", "reshape", "_unsafe_view", "t", "transpose", "permute", "expand", "unsqueeze", "squeeze", "select",
    "slice", "alias", "detach", "clone", "contiguous", "split", "chunk", "unbind", "narrow", "as_strided",
    "expand_as", "view_as", "flatten", "unflatten",
    # factories
    "zeros", "ones", "full", "zeros_like", "ones_like", "full_like", "empty_like", "scalar_tensor", "arange",
    "empty", "new_zeros", "new_ones", "new_full", "new_empty",
}


def _op_name(node):
    t = node.target
    if isinstance(t, OpOverload):
        return t._packet.__name__
    return getattr(t, "__name__", str(t))


def _is_recomputable(node):
    if node.op == "placeholder":
        return False
    if node.op == "get_attr":
        return True
    if node.op != "call_function":
        return False
    name = _op_name(node)
    if name == "getitem":                       # an output of a multi-output op: as recomputable as the op
        return _is_recomputable(node.args[0])
    return name in _RECOMPUTABLE


def _size_of(node):
    """Bytes of the value a node produces (from meta['val']); small for non-tensors."""
    v = node.meta.get("val")
    if v is None:
        return 0
    if isinstance(v, (tuple, list)):
        return sum(_value_bytes(x) for x in v)
    return _value_bytes(v)


def _value_bytes(v):
    if hasattr(v, "dtype") and hasattr(v, "shape"):
        n = 1
        for s in v.shape:
            n *= s
        return n * v.dtype.itemsize
    return 0


def _classify(joint_module, num_fwd_outputs):
    """Forward nodes: everything the outputs need that does not depend on a tangent (torch's rule)."""
    g = joint_module.graph
    placeholders = [n for n in g.nodes if n.op == "placeholder"]
    primals = [n for n in placeholders if n.target.startswith("primals")]
    tangents = [n for n in placeholders if n.target.startswith("tangents")]
    out = next(n for n in g.nodes if n.op == "output")
    outs = list(out.args[0])
    fwd_outs, bwd_outs = outs[:num_fwd_outputs], outs[num_fwd_outputs:]
    on_tangent = set(tangents)
    for n in g.nodes:
        if n.op != "placeholder" and any(a in on_tangent for a in n.all_input_nodes):
            on_tangent.add(n)
    needed = _needed(list(fwd_outs) + list(bwd_outs))
    fwd = {n for n in needed if n not in on_tangent and n.op != "output"} | set(primals)
    return primals, tangents, fwd_outs, bwd_outs, fwd


def _needed(outputs):
    """Every node the outputs depend on."""
    need, stack = set(), [o for o in outputs if hasattr(o, "op")]
    while stack:
        n = stack.pop()
        if n in need:
            continue
        need.add(n)
        stack.extend(n.all_input_nodes)
    return need


def _build(joint_module, primals, tangents, fwd_outs, bwd_outs, fwd, saved):
    g = joint_module.graph
    order = {n: i for i, n in enumerate(g.nodes)}
    saved = sorted(saved, key=lambda n: order[n])

    # forward: primals -> outputs + saved
    fg = Graph()
    env = {}
    for p in primals:
        env[p] = fg.placeholder(p.target)
        env[p].meta = dict(p.meta)
    need_f = _needed(list(fwd_outs) + saved)
    for n in g.nodes:
        if n in need_f and n not in env and n.op != "output":
            if n.op == "placeholder":
                raise RuntimeError(f"partition: the forward needs the tangent {n.target}")
            env[n] = fg.node_copy(n, lambda a: env[a])
    fg.output(tuple(map_arg(list(fwd_outs), lambda a: env[a])) + tuple(env[s] for s in saved))

    # backward: saved + tangents -> gradients (recomputing what was not saved)
    bg = Graph()
    benv = {}
    for s in saved:
        benv[s] = bg.placeholder(s.name)
        benv[s].meta = dict(s.meta)
    for t in tangents:
        benv[t] = bg.placeholder(t.target)
        benv[t].meta = dict(t.meta)
    need_b = set()
    stack = [o for o in bwd_outs if hasattr(o, "op")]
    while stack:
        n = stack.pop()
        if n in need_b or n in benv:
            continue
        if n.op == "placeholder":
            raise RuntimeError(f"partition: the backward needs {n.target}, which was not saved")
        need_b.add(n)
        stack.extend(n.all_input_nodes)
    for n in g.nodes:
        if n in need_b:
            benv[n] = bg.node_copy(n, lambda a: benv[a])
    bg.output(tuple(benv[o] if hasattr(o, "op") else o for o in bwd_outs))
    root = joint_module
    return GraphModule(root, fg, "GraphModule"), GraphModule(root, bg, "GraphModule"), saved


def default_partition(joint_module, _joint_inputs=None, *, num_fwd_outputs):
    """Save every forward value that a backward node reads."""
    primals, tangents, fwd_outs, bwd_outs, fwd = _classify(joint_module, num_fwd_outputs)
    need_b = _needed(bwd_outs)
    saved = set()
    for n in need_b:
        if n in fwd:
            continue
        for a in n.all_input_nodes:
            if a in fwd:
                saved.add(a)
    for o in bwd_outs:                 # a gradient that is a forward value (rare): save it
        if hasattr(o, "op") and o in fwd:
            saved.add(o)
    fw, bw, saved = _build(joint_module, primals, tangents, fwd_outs, bwd_outs, fwd, saved)
    _record(fw, saved)
    return fw, bw


def min_cut_rematerialization_partition(joint_module, _joint_inputs=None, compiler="inductor", *,
                                        num_fwd_outputs, recomputable_ops=None):
    """Choose the saved values by a minimum cut (bytes) so cheap forward ops are recomputed in the backward."""
    primals, tangents, fwd_outs, bwd_outs, fwd = _classify(joint_module, num_fwd_outputs)
    need_b = _needed(bwd_outs)
    bwd_nodes = need_b - fwd
    recomputable = recomputable_ops if recomputable_ops is not None else None
    INF = math.inf
    cap = {}

    def edge(u, v, c):
        cap.setdefault(u, {})
        cap.setdefault(v, {})
        cap[u][v] = cap[u].get(v, 0) + c
        cap[v].setdefault(u, 0)

    for n in fwd:
        if n.op == "output":
            continue
        can = _is_recomputable(n) if recomputable is None else (_op_name(n) in recomputable)
        if n.op == "placeholder" or not can:
            edge("source", (n, "in"), INF)
        weight = _size_of(n) if n.op != "get_attr" else 0
        if isinstance(n.meta.get("val"), (tuple, list)):
            weight = INF         # a tuple is never saved whole: its getitem outputs are
        elif not any(hasattr(v, "dtype") for v in _vals(n)):
            weight = 1           # non-tensor values (sizes): nearly free to keep
        edge((n, "in"), (n, "out"), weight)
        for u in n.users:
            if u in fwd:
                edge((n, "out"), (u, "in"), INF)
            if u in bwd_nodes:
                edge((n, "out"), "sink", INF)
        if n in bwd_outs:
            edge((n, "out"), "sink", INF)
    if "sink" not in cap:
        saved = set()
    else:
        reach = _min_cut_source_side(cap, "source", "sink")
        saved = {n for n in fwd if (n, "in") in reach and (n, "out") not in reach}
    fw, bw, saved = _build(joint_module, primals, tangents, fwd_outs, bwd_outs, fwd, saved)
    _record(fw, saved)
    return fw, bw


def _vals(n):
    v = n.meta.get("val")
    return v if isinstance(v, (tuple, list)) else [v]


def _min_cut_source_side(cap, s, t):
    """Edmonds-Karp max flow; returns the nodes reachable from s in the residual graph."""
    flow = {u: {v: 0 for v in nbrs} for u, nbrs in cap.items()}
    while True:
        parent = {s: None}
        q = deque([s])
        while q and t not in parent:
            u = q.popleft()
            for v, c in cap[u].items():
                if v not in parent and c - flow[u][v] > 0:
                    parent[v] = u
                    q.append(v)
        if t not in parent:
            break
        v, bottleneck = t, math.inf
        while parent[v] is not None:
            u = parent[v]
            bottleneck = min(bottleneck, cap[u][v] - flow[u][v])
            v = u
        if bottleneck == math.inf:
            raise RuntimeError("min-cut partition: a backward value depends on a forward value that can neither be "
                               "saved nor recomputed")
        v = t
        while parent[v] is not None:
            u = parent[v]
            flow[u][v] += bottleneck
            flow[v][u] -= bottleneck
            v = u
    return set(parent)


def _record(fw, saved):
    fw.meta["saved_values"] = [s.name for s in saved]
    fw.meta["saved_bytes"] = sum(_size_of(s) for s in saved)


def saved_bytes(fw_module, *, exclude_inputs=False):
    """Bytes the forward graph hands to the backward (from the partition); optionally without graph inputs."""
    out = next(n for n in fw_module.graph.nodes if n.op == "output")
    names = set(fw_module.meta.get("saved_values", ()))
    total = 0
    for n in out.args[0]:
        if hasattr(n, "op") and n.name in names:
            if exclude_inputs and n.op == "placeholder":
                continue
            total += _size_of(n)
    return total
