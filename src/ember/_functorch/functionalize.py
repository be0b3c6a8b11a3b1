"""torch's functionalization (torch/_subclasses/functional_tensor.py, aot_autograd's functional_utils), as a graph pass.

`functionalize_graph(gm)` rewrites an aten graph from make_fx into one without mutation:
- an in-place op (`add_.Tensor`) becomes its out-of-place twin (`add.Tensor`); later uses of the mutated
  tensor read the new value;
- a write through a view scatters the new view values into the base (a `scatter` at the view's element
  indices, torch's as_strided_scatter), and views of that base taken earlier are re-derived from the new
  base (`as_strided`) where they are read next;
- `native_batch_norm` in training mode with running stats becomes a call without them plus the
  running-stat update written out (torch's _native_batch_norm_legit_functional);
- graph inputs that were mutated are returned as extra outputs after the original ones, in input order
  (`FunctionalizedGraph.mutated_inputs` names them): the caller copies them back (an epilogue).
"""
from operator import getitem as _getitem

import numpy as np

from ember._ops import OpOverload, ops
from ember.fx import Graph, GraphModule
from ember.fx.node import map_arg

aten = ops.aten


class FunctionalizedGraph:
    """The pure graph and which inputs (by placeholder position) it returns updated values for."""

    def __init__(self, gm, mutated_inputs, num_original_outputs):
        self.gm = gm
        self.mutated_inputs = mutated_inputs
        self.num_original_outputs = num_original_outputs


def _functional_variant(op):
    name = op._packet.__name__
    if not name.endswith("_"):
        return None
    pkt = getattr(aten, name[:-1], None)
    if pkt is None:
        return None
    ov = op._overloadname
    try:
        return getattr(pkt, ov)
    except AttributeError:
        return None


def _mutated_arg_positions(op):
    schema = op._schema
    pos = []
    for i, a in enumerate(schema.arguments.flat_positional):
        if a.is_write:
            pos.append(i)
    return pos


def _is_view_op(op):
    schema = op._schema
    if any(a.is_write for a in schema.arguments.flat_all):
        return False
    return any(r.annotation is not None and r.annotation.alias_set and not r.annotation.is_write
               for r in schema.returns)


def _geometry(node):
    v = node.meta.get("val")
    if v is None or not hasattr(v, "stride"):
        return None
    return tuple(v.shape), tuple(v.stride()), int(v.storage_offset())


def _flat_indices(size, stride, offset):
    idx = np.full((), offset, dtype=np.int64)
    for s, st in zip(size, stride):
        idx = idx[..., None] + np.arange(s, dtype=np.int64) * st
    return idx.reshape(-1)


class _Functionalizer:
    def __init__(self, gm):
        self.gm = gm
        self.graph = Graph()
        self.env = {}            # old node -> new node (its value when it was made)
        self.latest = {}         # old root node -> new node holding its current value
        self.version = {}        # old root node -> number of writes so far
        self.view_of = {}        # old view node -> (old root node, geometry)
        self.view_seen = {}      # old view node -> (root version it reflects, new node)
        self.consts = {}
        self.placeholders = []
        self.same_as = {}        # old in-place node -> the old node it mutated (the same tensor)

    def resolve(self, n):
        while n in self.same_as:
            n = self.same_as[n]
        return n

    def root(self, n):
        n = self.resolve(n)
        return self.view_of[n][0] if n in self.view_of else n

    def cur(self, n):
        """The new-graph node holding the current value of old node n."""
        n = self.resolve(n)
        if n in self.view_of:
            root, geom = self.view_of[n]
            ver, node = self.view_seen[n]
            if self.version.get(root, 0) != ver:
                node = self.graph.call_function(aten.as_strided.default, (self.cur(root),) + geom)
                self.view_seen[n] = (self.version.get(root, 0), node)
            return node
        return self.latest.get(n, self.env[n])

    def const(self, value, hint):
        name = f"_{hint}_{len(self.consts)}"
        self.consts[name] = value
        return self.graph.get_attr(name)

    def write(self, target_old, new_value):
        """Record that old tensor `target_old` now holds new_value (a new-graph node of the view's shape)."""
        target_old = self.resolve(target_old)
        root = self.root(target_old)
        if root is not target_old:
            _, (size, stride, offset) = self.view_of[target_old]
            rgeom = _geometry(root)
            if rgeom is None or rgeom[2] != 0 or rgeom[1] != _contiguous_strides(rgeom[0]):
                raise NotImplementedError("functionalization: a write through a view of a non-contiguous base "
                                          "is not supported by ember")
            idx = self.const(_index_tensor(_flat_indices(size, stride, offset)), "view_index")
            flat_base = self.graph.call_function(aten.reshape.default, (self.cur(root), [-1]))
            flat_new = self.graph.call_function(aten.reshape.default, (new_value, [-1]))
            scattered = self.graph.call_function(aten.scatter.src, (flat_base, 0, idx, flat_new))
            self.latest[root] = self.graph.call_function(aten.view.default, (scattered, list(rgeom[0])))
            self.version[root] = self.version.get(root, 0) + 1
            self.view_seen[target_old] = (self.version[root], new_value)
        else:
            self.latest[root] = new_value
            self.version[root] = self.version.get(root, 0) + 1

    def run(self):
        mapped = lambda a: map_arg(a, self.cur)  # noqa: E731
        out_node = None
        for n in self.gm.graph.nodes:
            if n.op == "placeholder":
                new = self.graph.placeholder(n.target)
                new.meta = dict(n.meta)
                self.env[n] = new
                self.placeholders.append(n)
                continue
            if n.op == "output":
                out_node = n
                continue
            if n.op == "get_attr":
                new = self.graph.get_attr(n.target)
                self.env[n] = new
                continue
            op = n.target
            if n.op != "call_function":
                raise NotImplementedError(f"functionalization: {n.op} nodes are not supported")
            if isinstance(op, OpOverload) and op._packet.__name__ == "native_batch_norm" and _bn_updates(n):
                self._batch_norm(n)
                continue
            if isinstance(op, OpOverload) and _mutated_arg_positions(op):
                self._inplace(n)
                continue
            new = self.graph.call_function(op, mapped(n.args), mapped(n.kwargs))
            new.meta = dict(n.meta)
            self.env[n] = new
            if isinstance(op, OpOverload) and _is_view_op(op):
                base = n.args[0]
                geom = _geometry(n)
                if geom is not None:
                    root = self.root(base)
                    self.view_of[n] = (root, geom)
                    self.view_seen[n] = (self.version.get(root, 0), new)
        outs = map_arg(out_node.args[0], self.cur)
        mutated = [i for i, p in enumerate(self.placeholders) if self.version.get(p, 0)]
        extra = [self.cur(self.placeholders[i]) for i in mutated]
        flat_outs = list(outs) if isinstance(outs, (tuple, list)) else [outs]
        self.graph.output(tuple(flat_outs + extra))
        root_attrs = {n.target: _fetch(self.gm, n.target) for n in self.gm.graph.nodes if n.op == "get_attr"}
        root_attrs.update(self.consts)
        gm = GraphModule(root_attrs, self.graph)
        return FunctionalizedGraph(gm, mutated, len(flat_outs))

    def _inplace(self, n):
        op = n.target
        positions = _mutated_arg_positions(op)
        if positions != [0]:
            raise NotImplementedError(f"functionalization: {op} writes its arguments {positions}; only ops that "
                                      f"write `self` are supported")
        target = n.args[0]
        args = map_arg(n.args, self.cur)
        kwargs = map_arg(n.kwargs, self.cur)
        name = op._packet.__name__
        if name == "copy_":
            src = args[1]
            geom = _geometry(target)
            v = target.meta.get("val")
            new = self.graph.call_function(aten._to_copy.default, (src,), {"dtype": v.dtype})
            new = self.graph.call_function(aten.expand.default, (new, list(geom[0])))
            new = self.graph.call_function(aten.clone.default, (new,))
        else:
            fn = _functional_variant(op)
            if fn is None:
                raise NotImplementedError(f"functionalization: {op} has no out-of-place variant in ember")
            new = self.graph.call_function(fn, args, kwargs)
            v = target.meta.get("val")
            if v is not None and hasattr(v, "dtype") and n.meta.get("val") is not None \
                    and fn._packet.__name__ in _COMPARISONS:
                new = self.graph.call_function(aten._to_copy.default, (new,), {"dtype": v.dtype})
        new.meta = dict(n.meta)
        self.write(target, new)
        self.env[n] = new
        self.same_as[n] = self.resolve(target)     # the in-place op's result is the mutated tensor itself

    def _batch_norm(self, n):
        inp, w, b, rm, rv, training, momentum, eps = (list(n.args) + [None] * 8)[:8]
        g = self.graph
        cur = lambda a: self.cur(a) if a is not None and hasattr(a, "op") else a  # noqa: E731
        out = g.call_function(aten.native_batch_norm.default,
                              (cur(inp), cur(w), cur(b), None, None, True, momentum, eps))
        out.meta = dict(n.meta)
        self.env[n] = out
        mean = g.call_function(_getitem, (out, 1))
        invstd = g.call_function(_getitem, (out, 2))
        shape = _geometry(inp)[0]
        count = int(np.prod(shape)) // shape[1]
        var = g.call_function(aten.sub.Tensor, (g.call_function(aten.reciprocal.default, (
            g.call_function(aten.mul.Tensor, (invstd, invstd)),)), eps))
        unbiased = g.call_function(aten.mul.Tensor, (var, count / max(count - 1, 1)))
        for stat, new_stat in ((rm, mean), (rv, unbiased)):
            upd = g.call_function(aten.add.Tensor, (g.call_function(aten.mul.Tensor, (cur(stat), 1 - momentum)),
                                                    g.call_function(aten.mul.Tensor, (new_stat, momentum))))
            self.write(stat, upd)


_COMPARISONS = {"eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or", "logical_xor", "logical_not"}


def _bn_updates(n):
    args = list(n.args)
    return len(args) >= 6 and args[5] is True and args[3] is not None and args[4] is not None


def _contiguous_strides(shape):
    st, acc = [], 1
    for s in reversed(shape):
        st.append(acc)
        acc *= max(s, 1)
    return tuple(reversed(st))


def _index_tensor(arr):
    import ember
    return ember.from_numpy(arr)


def _fetch(gm, target):
    obj = gm
    for a in target.split("."):
        obj = getattr(obj, a)
    return obj


def functionalize_graph(gm):
    """Rewrite gm (an aten graph with node.meta['val']) into a pure graph; see the module docstring."""
    return _Functionalizer(gm).run()


def has_mutation(gm):
    return any(n.op == "call_function" and isinstance(n.target, OpOverload)
               and (_mutated_arg_positions(n.target) or (n.target._packet.__name__ == "native_batch_norm"
                                                         and _bn_updates(n)))
               for n in gm.graph.nodes)
