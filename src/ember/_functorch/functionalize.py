"""torch's functionalization (torch/_subclasses/functional_tensor.py, aot_autograd's functional_utils), as a graph pass.

`functionalize_graph(gm)` rewrites an aten graph from make_fx into one without mutation:
- an in-place op (`add_.Tensor`) becomes its out-of-place twin (`add.Tensor`); later uses of the mutated
  tensor read the new value;
- a write through a view (a chain of views, of any base, contiguous or not) computes the view's new value and
  scatters it back into the view's parent with the op matching the view (`select_scatter`, `slice_scatter`,
  `diagonal_scatter`, `as_strided_scatter`; transposes, permutes and reshapes by their inverse), up to the
  base; other views of that base are re-derived from the new base (the view ops replayed) where they are read
  next (torch's ViewMeta replay); an in-place view op (`squeeze_`, `transpose_`) makes its tensor a view of
  what it was;
- an `out=` variant (`add.out`) becomes its functional overload (`add.Tensor`) plus a copy into the updated
  value of `out`; an op that writes arguments other than `self`, or has no out-of-place twin, becomes
  `auto_functionalized(op, ...)`: clones of the written arguments, the op run on the clones, and the clones
  returned as the new values (torch's auto_functionalized higher-order op);
- `native_batch_norm` in training mode with running stats becomes a call without them plus the
  running-stat update written out (torch's _native_batch_norm_legit_functional);
- graph inputs that were mutated are returned as extra outputs after the original ones, in input order
  (`FunctionalizedGraph.mutated_inputs` names them): the caller copies them back (an epilogue).
"""
from operator import getitem as _getitem

import numpy as np

from ember._ops import OpOverload, ops
from ember.fx import Graph, GraphModule
from ember.fx.node import Node, map_arg

aten = ops.aten


class FunctionalizedGraph:
    """The pure graph and which inputs (by placeholder position) it returns updated values for."""

    def __init__(self, gm, mutated_inputs, num_original_outputs):
        self.gm = gm
        self.mutated_inputs = mutated_inputs
        self.num_original_outputs = num_original_outputs


def _functional_variant(op):
    """add_.Tensor -> add.Tensor (None when the packet or overload does not exist)."""
    name = op._packet.__name__
    if not name.endswith("_"):
        return None
    pkt = getattr(aten, name[:-1], None)
    if pkt is None:
        return None
    try:
        return getattr(pkt, op._overloadname)
    except AttributeError:
        pass
    # an overload named differently from the in-place one (transpose_.default -> transpose.int): the one
    # taking the same arguments
    sig = [(a.name, str(a.type)) for a in op._schema.arguments.flat_all]
    for o in pkt.overloads():
        f = getattr(pkt, o)
        if [(a.name, str(a.type)) for a in f._schema.arguments.flat_all] == sig:
            return f
    return None


def _written(op):
    """The arguments op writes, in schema order, as (position or None, name, is_kwarg_only)."""
    args = op._schema.arguments
    pos = [(i, a.name, False) for i, a in enumerate(args.flat_positional) if a.is_write]
    return pos + [(None, a.name, True) for a in args.flat_kwarg_only + list(args.out) if a.is_write]


def _out_functional_variant(op):
    """add.out -> add.Tensor: the overload of the same packet that writes nothing and takes exactly op's other
    arguments (torch's functionalization finds it by the same signature)."""
    written = _written(op)
    if not written or any(not kw for _, _, kw in written):
        return None
    want = [(a.name, str(a.type)) for a in op._schema.arguments.flat_all if not a.is_write]
    pkt = op._packet
    for ov in pkt.overloads():
        cand = getattr(pkt, ov)
        args = cand._schema.arguments.flat_all
        if any(a.is_write for a in args):
            continue
        if [(a.name, str(a.type)) for a in args] == want:
            return cand
    return None


def _is_view_op(op):
    schema = op._schema
    if any(a.is_write for a in schema.arguments.flat_all):
        return False
    return any(r.annotation is not None and r.annotation.alias_set and not r.annotation.is_write
               for r in schema.returns)


def _returns_list(op):
    return any(str(r.type).endswith("[]") for r in op._schema.returns)


def _geometry(node):
    v = node.meta.get("val") if isinstance(node, Node) else None
    if v is None or not hasattr(v, "stride"):
        return None
    return tuple(v.shape), tuple(v.stride()), int(v.storage_offset())


def auto_functionalized(_op, *args, **kwargs):
    """The functional form of a mutating op (torch's auto_functionalized): the written arguments are cloned,
    the op runs on the clones, and (op's result, *clones in schema order) is returned; a written list
    argument returns its clones as a list."""
    args, kwargs = list(args), dict(kwargs)
    clones = []
    for pos, name, kw in _written(_op):
        if kw or pos >= len(args):
            v = kwargs.get(name)
            new = _clone_arg(v)
            kwargs[name] = new
        else:
            new = _clone_arg(args[pos])
            args[pos] = new
        clones.append(new)
    result = _op(*args, **kwargs)
    return (result, *clones)


def _clone_arg(v):
    if v is None:
        return None
    if isinstance(v, (list, tuple)):
        return [_clone_arg(t) for t in v]
    return aten.clone.default(v)


class _Functionalizer:
    def __init__(self, gm):
        self.gm = gm
        self.graph = Graph()
        self.env = {}            # old node -> new node (its value when it was made)
        self.latest = {}         # old base node -> new node holding its current value
        self.version = {}        # old base node -> number of writes so far
        self.view_of = {}        # old view node -> (old parent node, how to take it: ("op", op, args, kwargs)
        #                          or ("item", multi-output view node, index))
        self.multi_view = {}     # old split/unbind node -> (old parent node, op, args, kwargs)
        self.view_seen = {}      # old view node -> (base version it reflects, new node)
        self.placeholders = []
        self.same_as = {}        # old in-place node -> the old node it mutated (the same tensor)

    def resolve(self, n):
        while n in self.same_as:
            n = self.same_as[n]
        return n

    def root(self, n):
        n = self.resolve(n)
        while n in self.view_of:
            n = self.resolve(self.view_of[n][0])
        return n

    def cur(self, n):
        """The new-graph node holding the current value of old node n."""
        n = self.resolve(n)
        if n in self.view_of:
            ver = self.version.get(self.root(n), 0)
            seen, node = self.view_seen[n]
            if seen != ver:
                node = self._replay(n)
                self.view_seen[n] = (ver, node)
            return node
        return self.latest.get(n, self.env[n])

    def _map(self, a):
        return map_arg(a, self.cur)

    def _replay(self, n):
        """Take view n again from its parent's current value (torch's view replay)."""
        parent, how = self.view_of[n]
        p = self.cur(parent)
        if how[0] == "op":
            _, op, args, kwargs = how
            return self.graph.call_function(op, (p,) + tuple(self._map(args)), self._map(kwargs))
        _, multi, i = how
        _, op, args, kwargs = self.multi_view[multi]
        parts = self.graph.call_function(op, (p,) + tuple(self._map(args)), self._map(kwargs))
        return self.graph.call_function(_getitem, (parts, i))

    def write(self, target_old, new_value):
        """Record that old tensor `target_old` now holds new_value (a new-graph node of its shape); a view
        scatters new_value into its parent, and so on up to the base."""
        target_old = self.resolve(target_old)
        if target_old in self.view_of:
            parent, how = self.view_of[target_old]
            parent = self.resolve(parent)
            new_parent = self._scatter(target_old, parent, how, self.cur(parent), new_value)
            self.write(parent, new_parent)
            self.view_seen[target_old] = (self.version[self.root(target_old)], new_value)
        else:
            self.latest[target_old] = new_value
            self.version[target_old] = self.version.get(target_old, 0) + 1

    def _scatter(self, view, parent, how, base, new):
        """The parent's new value once `new` is written into the view `how` takes of it."""
        g = self.graph
        if how[0] == "item":
            _, multi, i = how
            _, op, args, kwargs = self.multi_view[multi]
            name = op._packet.__name__
            vals = multi.meta.get("val")
            nd = len(_geometry(parent)[0]) if _geometry(parent) else None
            if name == "unbind":
                dim = (list(args) + [kwargs.get("dim", 0)])[0]
                return g.call_function(aten.select_scatter.default, (base, new, dim, i))
            if name in ("split", "split_with_sizes", "unsafe_split", "chunk") and vals is not None and nd:
                dim = (list(args[1:]) + [kwargs.get("dim", 0)])[0] % nd
                start = sum(int(v.shape[dim]) for v in vals[:i])
                return g.call_function(aten.slice_scatter.default,
                                       (base, new, dim, start, start + int(vals[i].shape[dim])))
            return self._as_strided_scatter(view, op, base, new)
        _, op, args, kwargs = how
        name = op._packet.__name__
        args = tuple(self._map(args))
        kwargs = self._map(kwargs)
        scatter = _VIEW_SCATTERS.get(name)
        if scatter is not None:
            return g.call_function(scatter, (base, new) + args, kwargs)
        if name in ("transpose", "t", "alias", "detach", "lift_fresh"):
            return g.call_function(op, (new,) + args, kwargs) if name in ("transpose", "t") else new
        if name == "view" and op._overloadname == "dtype":
            pv = parent.meta.get("val")
            if pv is not None:          # a reinterpretation: the new bits, read back as the parent's dtype
                return g.call_function(aten.view.dtype, (new, pv.dtype))
        if name == "view_as_real":      # x.real / x.imag are selects of view_as_real
            return g.call_function(aten.view_as_complex.default, (new,))
        if name == "view_as_complex":
            return g.call_function(aten.view_as_real.default, (new,))
        if name == "permute":
            dims = args[0] if args else kwargs["dims"]
            return g.call_function(aten.permute.default, (new, _inverse_permutation(dims)))
        if name in _RESHAPES and op._overloadname != "dtype":
            geom = _geometry(parent)
            if geom is not None:
                return g.call_function(aten.reshape.default, (new, list(geom[0])))
        return self._as_strided_scatter(view, op, base, new)

    def _as_strided_scatter(self, view, op, base, new):
        """The general fallback (torch's too): write `new` at the view's storage positions in a copy of the
        parent, which keeps the parent's strides (as_strided_scatter's clone_preserve_strides)."""
        geom = _geometry(view)
        vv, pv = view.meta.get("val"), self.view_of[view][0].meta.get("val")
        if geom is None or vv is None or pv is None or vv.dtype != pv.dtype:
            raise NotImplementedError(f"functionalization: a write through the view {op} is not supported by "
                                      f"ember (no scatter for it and no geometry to fall back on)")
        return self.graph.call_function(aten.as_strided_scatter.default, (base, new) + geom)

    def run(self):
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
            if isinstance(op, OpOverload) and "inplace_view" in op.tags:
                self._inplace_view(n)
                continue
            if isinstance(op, OpOverload) and _written(op):
                self._mutation(n)
                continue
            new = self.graph.call_function(op, self._map(n.args), self._map(n.kwargs))
            new.meta = dict(n.meta)
            self.env[n] = new
            if isinstance(op, OpOverload) and _is_view_op(op) and n.args and isinstance(n.args[0], Node):
                parent = self.resolve(n.args[0])
                if _returns_list(op):
                    self.multi_view[n] = (parent, op, tuple(n.args[1:]), dict(n.kwargs))
                else:
                    self.view_of[n] = (parent, ("op", op, tuple(n.args[1:]), dict(n.kwargs)))
                    self.view_seen[n] = (self.version.get(self.root(n), 0), new)
            elif op is _getitem and n.args[0] in self.multi_view:
                self.view_of[n] = (self.multi_view[n.args[0]][0], ("item", n.args[0], n.args[1]))
                self.view_seen[n] = (self.version.get(self.root(n), 0), new)
        outs = map_arg(out_node.args[0], self.cur)
        mutated = [i for i, p in enumerate(self.placeholders) if self.version.get(p, 0)]
        extra = [self.cur(self.placeholders[i]) for i in mutated]
        flat_outs = list(outs) if isinstance(outs, (tuple, list)) else [outs]
        self.graph.output(tuple(flat_outs + extra))
        root_attrs = {n.target: _fetch(self.gm, n.target) for n in self.gm.graph.nodes if n.op == "get_attr"}
        gm = GraphModule(root_attrs, self.graph)
        return FunctionalizedGraph(gm, mutated, len(flat_outs))

    def _inplace_view(self, n):
        """squeeze_, unsqueeze_, transpose_: the tensor becomes a view of what it was (same storage, new
        geometry), so the node is recorded as the functional view of its target; a later write through it
        scatters back through the target to the base."""
        target = self.resolve(n.args[0])
        fn = _functional_variant(n.target)
        if target not in self.view_of and target.op != "placeholder":
            # an intermediate that is no view (matmul's mm(...).squeeze_(0), quantile's result): it just
            # holds the view's value from now on
            return self._inplace(n, fn)
        new = self.graph.call_function(fn, (self.cur(target),) + tuple(self._map(n.args[1:])), self._map(n.kwargs))
        new.meta = dict(n.meta)
        self.env[n] = new
        self.view_of[n] = (target, ("op", fn, tuple(n.args[1:]), dict(n.kwargs)))
        self.view_seen[n] = (self.version.get(self.root(n), 0), new)

    def _mutation(self, n):
        op = n.target
        written = _written(op)
        if [w[0] for w in written] == [0] and op._packet.__name__ == "copy_":
            return self._copy(n)
        fn = _functional_variant(op) if [w[0] for w in written] == [0] else None
        if fn is not None:
            return self._inplace(n, fn)
        fn = _out_functional_variant(op)
        if fn is not None:
            return self._out(n, fn, written)
        return self._auto_functionalize(n, written)

    def _copy(self, n):
        target = n.args[0]
        src = self.cur(n.args[1])
        geom = _geometry(target)
        v = target.meta.get("val")
        new = self.graph.call_function(aten._to_copy.default, (src,), {"dtype": v.dtype})
        new = self.graph.call_function(aten.expand.default, (new, list(geom[0])))
        new = self.graph.call_function(aten.clone.default, (new,))
        self._done(n, target, new)

    def _inplace(self, n, fn):
        target = n.args[0]
        new = self.graph.call_function(fn, self._map(n.args), self._map(n.kwargs))
        new = self._cast_to(new, target, fn, n.args)
        self._done(n, target, new)

    def _done(self, n, target, new):
        new.meta = dict(n.meta)
        self.write(target, new)
        self.env[n] = new
        self.same_as[n] = self.resolve(target)     # the in-place op's result is the mutated tensor itself

    def _cast_to(self, new, target, fn, args):
        """An in-place op keeps self's dtype; its out-of-place twin promotes (float32.add_(float64) stays
        float32, a comparison gives bool): cast back where the two can differ."""
        v = target.meta.get("val")
        if v is None or not hasattr(v, "dtype"):
            return new
        others = [a.meta.get("val") for a in args[1:] if isinstance(a, Node)]
        if fn._packet.__name__ in _COMPARISONS or any(getattr(o, "dtype", v.dtype) != v.dtype for o in others) \
                or (not v.dtype.is_floating_point and any(isinstance(a, float) for a in args[1:])):
            new = self.graph.call_function(aten._to_copy.default, (new,), {"dtype": v.dtype})
        return new

    def _out(self, n, fn, written):
        """add.out(a, b, out=c) -> add.Tensor(a, b), and c's new value is that result in c's dtype."""
        names = {w[1] for w in written}
        kwargs = {k: v for k, v in n.kwargs.items() if k not in names}
        result = self.graph.call_function(fn, self._map(n.args), self._map(kwargs))
        targets = [n.kwargs.get(name) for _, name, _ in written]
        for k, target in enumerate(targets):
            new = result if len(targets) == 1 else self.graph.call_function(_getitem, (result, k))
            v = target.meta.get("val")
            rv = n.meta.get("val") if len(targets) == 1 else (n.meta.get("val") or [None] * (k + 1))[k]
            if v is not None and rv is not None and getattr(rv, "dtype", None) != v.dtype:
                new = self.graph.call_function(aten._to_copy.default, (new,), {"dtype": v.dtype})
            new.meta = {"val": v} if v is not None else {}
            self.write(target, new)
        self.env[n] = result
        if len(targets) == 1:
            self.same_as[n] = self.resolve(targets[0])

    def _auto_functionalize(self, n, written):
        """Any other mutating op: run it on clones of what it writes; the clones are the new values."""
        g = self.graph
        call = g.call_function(auto_functionalized, (n.target,) + tuple(self._map(n.args)), self._map(n.kwargs))
        for k, (pos, name, _) in enumerate(written):
            target = n.kwargs.get(name) if pos is None or pos >= len(n.args) else n.args[pos]
            if target is None:
                continue
            new = g.call_function(_getitem, (call, k + 1))
            if isinstance(target, (list, tuple)):
                for j, t in enumerate(target):
                    item = g.call_function(_getitem, (new, j))
                    item.meta = dict(t.meta)
                    self.write(t, item)
            else:
                new.meta = dict(target.meta)
                self.write(target, new)
        result = g.call_function(_getitem, (call, 0))
        result.meta = dict(n.meta)
        self.env[n] = result
        for k, r in enumerate(n.target._schema.returns):
            ann = r.annotation
            if ann is not None and ann.is_write and len(n.target._schema.returns) == 1:
                for pos, name, _ in written:
                    arg = next(a for a in n.target._schema.arguments.flat_all if a.name == name)
                    if arg.annotation is not None and set(arg.annotation.alias_set) == set(ann.alias_set):
                        target = n.kwargs.get(name) if pos is None or pos >= len(n.args) else n.args[pos]
                        if isinstance(target, Node):
                            self.same_as[n] = self.resolve(target)

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


_VIEW_SCATTERS = {"select": aten.select_scatter.default, "slice": aten.slice_scatter.default,
                  "diagonal": aten.diagonal_scatter.default, "as_strided": aten.as_strided_scatter.default}
_RESHAPES = {"view", "_unsafe_view", "reshape", "unsqueeze", "squeeze", "flatten", "unflatten", "view_as",
             "reshape_as"}


def _inverse_permutation(dims):
    inv = [0] * len(dims)
    for i, d in enumerate(dims):
        inv[d % len(dims)] = i
    return inv


_COMPARISONS = {"eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or", "logical_xor", "logical_not"}


def _bn_updates(n):
    args = list(n.args)
    return len(args) >= 6 and args[5] is True and args[3] is not None and args[4] is not None


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
               and (_written(n.target) or (n.target._packet.__name__ == "native_batch_norm" and _bn_updates(n)))
               for n in gm.graph.nodes)
