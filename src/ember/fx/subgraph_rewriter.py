"""torch.fx.subgraph_rewriter: replace_pattern, which finds a traced pattern in a graph and splices in a replacement.

Matching walks backwards from the pattern's returned nodes: ops and targets must agree, literal arguments
must be equal, and each pattern placeholder binds one graph value consistently. A match whose inner values
are used outside it is rejected (replacing it would change other computations). Matches do not overlap.
"""
from typing import NamedTuple

from .graph_module import GraphModule
from .node import Node, map_arg


class Match(NamedTuple):
    anchor: Node                    # the graph node matched to the pattern's (first) output
    nodes_map: dict[Node, Node]     # pattern node -> graph node


def _as_graph_module(obj):
    if isinstance(obj, GraphModule):
        return obj
    from ._symbolic_trace import symbolic_trace
    return symbolic_trace(obj)


class _Matcher:
    def __init__(self, pattern_graph):
        self.pattern = pattern_graph
        self.placeholders = [n for n in pattern_graph.nodes if n.op == "placeholder"]
        out = next(n for n in pattern_graph.nodes if n.op == "output")
        ret = out.args[0]
        self.returns = list(ret) if isinstance(ret, (tuple, list)) else [ret]

    def match_at(self, anchor):
        nodes_map = {}
        if not self._match_node(self.returns[0], anchor, nodes_map):
            return None
        for r in self.returns[1:]:        # other outputs must already be bound by the walk
            if r not in nodes_map:
                return None
        inner = {gn for pn, gn in nodes_map.items() if pn.op != "placeholder"}
        returned = {nodes_map[r] for r in self.returns}
        for gn in inner:
            if gn in returned:
                continue
            if any(u not in inner for u in gn.users):
                return None
        return nodes_map

    def _match_node(self, pn, gn, nodes_map):
        if pn in nodes_map:
            return nodes_map[pn] is gn
        if pn.op == "placeholder":
            if gn in nodes_map.values():
                return False
            nodes_map[pn] = gn
            return True
        if not isinstance(gn, Node) or pn.op != gn.op or pn.op in ("output",):
            return False
        if pn.op == "get_attr":
            ok = True
        else:
            ok = pn.target == gn.target
        if not ok or len(pn.args) != len(gn.args) or set(pn.kwargs) != set(gn.kwargs):
            return False
        nodes_map[pn] = gn
        pairs = list(zip(pn.args, gn.args)) + [(pn.kwargs[k], gn.kwargs[k]) for k in pn.kwargs]
        for pa, ga in pairs:
            if not self._match_arg(pa, ga, nodes_map):
                del nodes_map[pn]
                return False
        return True

    def _match_arg(self, pa, ga, nodes_map):
        if isinstance(pa, Node):
            return isinstance(ga, Node) and self._match_node(pa, ga, nodes_map)
        if isinstance(pa, (tuple, list)):
            return type(pa) is type(ga) and len(pa) == len(ga) and all(
                self._match_arg(a, b, nodes_map) for a, b in zip(pa, ga))
        return not isinstance(ga, Node) and pa == ga


def replace_pattern(gm, pattern, replacement):
    """Replace every non-overlapping occurrence of `pattern` in gm.graph with `replacement`; returns the matches."""
    pattern_gm = _as_graph_module(pattern)
    replacement_gm = _as_graph_module(replacement)
    graph = gm.graph
    matcher = _Matcher(pattern_gm.graph)
    matches = []
    taken = set()
    for node in graph.nodes:
        if node.op in ("placeholder", "output"):
            continue
        nodes_map = matcher.match_at(node)
        if nodes_map is None:
            continue
        inner = {gn for pn, gn in nodes_map.items() if pn.op != "placeholder"}
        if inner & taken:
            continue
        taken |= inner
        matches.append(Match(anchor=node, nodes_map=nodes_map))

    rep_placeholders = [n for n in replacement_gm.graph.nodes if n.op == "placeholder"]
    if len(rep_placeholders) != len(matcher.placeholders):
        raise ValueError(f"replace_pattern: the pattern takes {len(matcher.placeholders)} inputs but the "
                         f"replacement takes {len(rep_placeholders)}")
    for m in matches:
        returned = [m.nodes_map[r] for r in matcher.returns]
        # insert the replacement before the first user of any returned value (after every input)
        insert_before = _first_position_after_inputs(graph, returned, m, matcher)
        val_map = {rp: m.nodes_map[pp] for rp, pp in zip(rep_placeholders, matcher.placeholders)}
        with graph.inserting_before(insert_before):
            for rn in replacement_gm.graph.nodes:
                if rn.op == "placeholder":
                    continue
                if rn.op == "output":
                    out = map_arg(rn.args[0], lambda n: val_map[n])
                    break
                if rn.op == "get_attr":
                    new_target = _copy_get_attr(gm, replacement_gm, rn.target)
                    val_map[rn] = graph.get_attr(new_target)
                    continue
                if rn.op == "call_module":
                    new_target = _copy_get_attr(gm, replacement_gm, rn.target)
                    val_map[rn] = graph.call_module(new_target, map_arg(rn.args, lambda n: val_map[n]),
                                                    map_arg(rn.kwargs, lambda n: val_map[n]))
                    continue
                val_map[rn] = graph.node_copy(rn, lambda n: val_map[n])
        outs = list(out) if isinstance(out, (tuple, list)) else [out]
        if len(outs) != len(returned):
            raise ValueError("replace_pattern: the pattern and the replacement return different numbers of values")
        for old, new in zip(returned, outs):
            old.replace_all_uses_with(new)
        for pn in reversed(list(matcher.pattern.nodes)):
            if pn.op in ("placeholder", "output") or pn not in m.nodes_map:
                continue
            gn = m.nodes_map[pn]
            if not gn.users:
                graph.erase_node(gn)
    gm.recompile()
    return matches


def _first_position_after_inputs(graph, returned, match, matcher):
    order = {n: i for i, n in enumerate(graph.nodes)}
    last_returned = max(returned, key=lambda n: order[n])
    return last_returned.next


def _copy_get_attr(gm, src_gm, target):
    obj = src_gm
    for atom in target.split("."):
        obj = getattr(obj, atom)
    from ember.nn import Module
    base = target.replace(".", "_")
    name, i = base, 0
    while hasattr(gm, name):
        i += 1
        name = f"{base}_{i}"
    if isinstance(obj, Module):
        gm.add_module(name, obj)
    else:
        setattr(gm, name, obj)
    return name


