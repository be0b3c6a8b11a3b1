"""torch/_inductor/graph.py: GraphLowering, which walks an fx GraphModule of aten ops and builds the IR.

Placeholders become `InputBuffer`s with the layout of their example (fake) value; each call_function node
goes through `lowering.lowerings`, or becomes an `ExternKernel` calling the eager op when there is no
lowering. A Pointwise result stays unrealized (inlined into whoever reads it) unless it is read by many
nodes or is expensive to recompute (torch's realize_reads_threshold / realize_opcount_threshold), is a graph
output, or feeds an extern kernel. `UnsupportedGraph` means the whole graph should run as fx instead
(a mutating op, a non-tensor input, an output the IR cannot express).

With dynamic shapes, the fake values of the graph's nodes are swapped for the duration of the walk with copies
whose sizes are `sizevars.SymSize` (symbolic ints with an example value), so lowerings see ints; size
arithmetic nodes (`sym_size`, `mul`, ...) and SymInt/size-float inputs become those values, and `symbols` says
where the wrapper reads each size symbol (`arg0._size[1]`, or an int argument).
"""

from ember._tensor import Tensor

from . import ir
from .ir import BufferView, ComputedBuffer, ExternKernel, InputBuffer, Layout, MultiOutput, Pointwise
from .index import Index, contiguous_strides
from .lowering import EXTERN_OPS, FALLBACK_REASONS, lowerings
from .sizevars import SymFloatSize, SymSize, float_from_sympy, from_sympy, symbols_of, value_at
from .virtualized import set_current_graph, set_ops_handler

REALIZE_READS_THRESHOLD = 4
REALIZE_OPCOUNT_THRESHOLD = 30
MAX_INLINE_OPCOUNT = 200

class UnsupportedGraph(NotImplementedError):
    """The graph cannot be compiled to C; compile_fx runs it with the fx interpreter instead."""


class GraphLowering:
    def __init__(self, gm, example_inputs=None, size_hints=None, concrete=False):
        """size_hints: {size symbol: example value} used for the symbols of a dynamic-shape graph (default: the
        ShapeEnv's example values); concrete: give the symbols those values as plain ints (a per-size build)
        instead of keeping them symbolic (sizevars.SymSize)."""
        self.gm = gm
        self.size_hints = size_hints
        self.concrete = concrete
        self.symbols = {}            # size symbol -> Python source of its value in the wrapper ("arg0._size[0]")
        self.example_inputs = example_inputs
        self.buffers = []            # ComputedBuffer / ExternKernel / MultiOutput in creation order
        self.inputs = []             # InputBuffer per graph input
        self.constants = []          # InputBuffer of GraphModule tensor attributes
        self.outputs = []            # the IR value of each graph output (None for a non-tensor)
        self.output_consts = []      # a Python value for non-tensor outputs
        self.env = {}
        self.fallbacks = {}          # op name -> reason, for the ops that became extern kernels
        self.int_inputs = []         # positions of the graph's int (size) inputs
        self.mutations = []          # (InputBuffer, IR value) of `copy_(input, value)`: written in place at the end
        self._n = 0
        self._realized = {}          # (id of a realized value, its layout) -> (the value, its ComputedBuffer)
        self._returned = {}          # id of a permuted Pointwise the graph returns -> (it, its output layout)

    def new_name(self):
        self._n += 1
        return f"buf{self._n - 1}"

    # ------------------------------------------------------------------ realization
    def realize(self, x, layout=None):
        """x as a BufferView of a buffer that holds its elements."""
        if isinstance(x, BufferView) and layout is None:
            return x
        if isinstance(x, BufferView):
            x = Pointwise(x.get_size(), x.get_dtype(), x.make_loader())
        layout = layout or Layout.contiguous(x.get_size(), x.get_dtype())
        # one value realized twice with the same layout (an extern call's input that the graph also returns,
        # a forward value saved for the backward) is one buffer: the second realization reuses the first
        key = (id(x), tuple(layout.size), tuple(layout.stride), layout.offset, layout.dtype)
        done = self._realized.get(key)
        if done is not None and done[0] is x:
            return done[1].view()
        buf = ComputedBuffer(self.new_name(), layout, x)
        self.buffers.append(buf)
        self._realized[key] = (x, buf)
        return buf.view()

    def realize_input(self, x):
        """An extern op's tensor argument as a BufferView: a permuted Pointwise (a transposed gradient passed to
        mm) is the permuted view of its realized base, which BLAS reads with a transpose flag: the base is
        computed once in its own order (another extern or the graph's outputs may read it too), not copied."""
        base = getattr(x, "permuted", None)
        if isinstance(x, Pointwise) and base is not None:
            returned = self._returned.get(id(x))
            if returned is not None and returned[0] is x:
                # the graph returns this value too (the q, k and v attention reads, saved for its backward):
                # one buffer in the layout of the output (what the graph that receives it was compiled for),
                # which the extern reads with its strides, rather than the base and a second, dense copy
                return self.realize(x, returned[1])
            from .lowering import permute
            src, dims = base
            return permute(self.realize_input(src), dims)
        return self.realize(x)

    def add_reduction(self, red, dtype):
        buf = ComputedBuffer(self.new_name(), Layout.contiguous(red.size, dtype), red)
        self.buffers.append(buf)
        return buf.view()

    def add_serial(self, data, dtype):
        """A Scatter / Scan buffer (contiguous, of data's output size) as a BufferView."""
        size = data.init.get_size() if hasattr(data, "init") else data.size
        buf = ComputedBuffer(self.new_name(), Layout.contiguous(size, dtype), data)
        self.buffers.append(buf)
        return buf.view()

    # ------------------------------------------------------------------ the walk
    def run(self):
        # (before the symbolic swap: a filled-in value is a fake of the graph's own SymInts, swapped like the rest)
        _fill_missing_meta(self.gm)
        set_current_graph(self)
        saved = _symbolic_vals(self.gm, self.size_hints, self.concrete)
        try:
            self._run()
        finally:
            set_current_graph(None)
            for node, val in saved:
                node.meta["val"] = val
        return self

    def _run(self):
        users = {}
        for node in self.gm.graph.nodes:
            for a in node.all_input_nodes:
                users[a] = users.get(a, 0) + 1
        early = _early_mutations(self.gm)
        returned = _returned_nodes(self.gm)
        position = 0
        for node in self.gm.graph.nodes:
            if node.op == "placeholder":
                val = node.meta.get("val")
                if isinstance(val, int) and not isinstance(val, bool) and position is not None:
                    # a size passed as an argument (a SymInt input): its symbol is read from the argument
                    for sym in symbols_of(val):
                        if val == SymSize.make({(sym,): 1}, 0):
                            self.symbols.setdefault(sym, f"args[{position}]")
                    self.int_inputs.append(position)
                    self.env[node] = val
                    position += 1
                    continue
                if isinstance(val, SymFloatSize) or (self.concrete and isinstance(val, float)):
                    # a float of the sizes (a saved n / (n - 1)): its expression over the size symbols, which
                    # the tensors' sizes give (a plain float when compiled per size)
                    self.int_inputs.append(position)
                    self.env[node] = val
                    position += 1
                    continue
                if not isinstance(val, Tensor):
                    raise UnsupportedGraph(f"graph input {node.name} is not a tensor ({type(val).__name__})")
                # a non-dense example (an expanded tangent) is compiled as contiguous: the wrapper copies
                # any input whose strides differ from the compiled ones
                buf = InputBuffer(f"arg{position}", _dense_layout(val), position=position)
                for d, sz in enumerate(val._size):
                    # (a size symbol itself, not a factor such as a pooled size's `ember_floordiv_i(s2, 2)`)
                    if isinstance(sz, SymSize) and len(sz.terms) == 1 and sz.terms[0][1] == 1 and \
                            len(sz.terms[0][0]) == 1 and sz.terms[0][0][0].isidentifier():
                        self.symbols.setdefault(sz.terms[0][0][0], f"arg{position}._size[{d}]")
                self.inputs.append(buf)
                self.env[node] = buf.view()
                position += 1
            elif node.op == "get_attr":
                val = _attr(self.gm, node.target)
                if not isinstance(val, Tensor):
                    self.env[node] = val
                    continue
                buf = InputBuffer(f"const{len(self.constants)}", _layout_of(val), constant=val)
                self.constants.append(buf)
                self.env[node] = buf.view()
            elif node.op == "call_function":
                val = node.meta.get("val")
                if (isinstance(val, int) and not isinstance(val, bool)) or isinstance(val, SymFloatSize):
                    self.env[node] = val          # size arithmetic (sym_size, mul, ...): its value, symbolic
                    continue
                value = self._call(node)
                if isinstance(value, Pointwise) and users.get(node, 0) > 1:
                    # torch's should_realize_on_reuse: a value read by several users is stored once when
                    # recomputing it would read many buffers or run many ops (a residual stream that every
                    # later layer's norm would otherwise recompute from the embedding on, three times each)
                    if users[node] > REALIZE_READS_THRESHOLD or ir.count_ops(value) > REALIZE_OPCOUNT_THRESHOLD \
                            or ir.count_reads(value) > REALIZE_READS_THRESHOLD:
                        value = self.realize(value)
                elif isinstance(value, Pointwise) and ir.count_ops(value) > MAX_INLINE_OPCOUNT:
                    value = self.realize(value)
                if node in early and isinstance(value, Pointwise):
                    value = self._mutate_early(self.env[early[node]].buffer, value)
                if node in returned and isinstance(value, Pointwise) and getattr(value, "permuted", None) \
                        is not None and isinstance(val, Tensor):
                    self._returned[id(value)] = (value, _dense_layout(val))
                self.env[node] = value
            elif node.op == "output":
                self._write_mutations()
                self._outputs(node)
            else:
                raise UnsupportedGraph(f"fx node kind {node.op}")

    def _call(self, node):
        target = node.target
        schema = getattr(target, "_schema", None)
        if str(target) == "aten.copy_.default" and node.args[0].op == "placeholder":
            # an input updated in place (AOT's keep_inference_input_mutations: an optimizer step): the generated
            # kernel writes the new value into the input's own storage, after every read of the old one
            dst = self.env[node.args[0]]
            value = _map_args(node.args[1], self.env)
            if isinstance(value, BufferView) and getattr(value.buffer, "mutated_input", None) == dst.buffer.name:
                return value                 # written already (_mutate_early)
            if tuple(value.get_size()) != dst.layout.size:
                from .lowering import expand
                value = expand(value, dst.layout.size)
            self.mutations.append((dst.buffer, value))
            return value
        if schema is not None and schema.is_mutable():
            raise UnsupportedGraph(f"{target} mutates its input")
        args = _map_args(node.args, self.env)
        kwargs = _map_args(node.kwargs, self.env)
        fn = lowerings.get(target)
        if fn is not None and str(target) not in EXTERN_OPS:
            try:
                return fn(node, *args, **kwargs)
            except NotImplementedError as e:
                self.fallbacks[str(target)] = str(e)
        if schema is None:
            raise UnsupportedGraph(f"no lowering for {target}")
        reason = "extern" if str(target) in EXTERN_OPS else FALLBACK_REASONS.get(str(target), "no lowering")
        self.fallbacks.setdefault(str(target), reason)
        return self._extern(node, target, args, kwargs, reason)

    def _extern(self, node, target, args, kwargs, reason):
        args = _map_ir(args, self.realize_input)
        kwargs = _map_ir(kwargs, self.realize_input)
        val = node.meta.get("val")
        if isinstance(val, Tensor):
            k = ExternKernel(self.new_name(), _dense_layout(val), target, args, kwargs, reason)
            self.buffers.append(k)
            return k.view()
        if isinstance(val, (tuple, list)):
            k = ExternKernel(self.new_name(), None, target, args, kwargs, reason)
            self.buffers.append(k)
            outs = []
            for i, v in enumerate(val):
                if isinstance(v, Tensor):
                    m = MultiOutput(self.new_name(), _dense_layout(v), k, (i,))
                    self.buffers.append(m)
                    outs.append(m.view())
                elif v is None:
                    outs.append(None)
                else:
                    raise UnsupportedGraph(f"{target} returns a {type(v).__name__} inside its tuple")
            return tuple(outs)
        raise UnsupportedGraph(f"{target} returns {type(val).__name__}")

    def _mutate_early(self, dst, value):
        """The value of a `copy_(input, value)` whose other users read it too (`t.sin_()` then `t * 2`, or `t`
        returned): stored into the input's storage where it is computed, and read back from there by every later
        user, so that it is computed once (`_early_mutations` says when no one reads the old value after it)."""
        buf = ComputedBuffer(self.new_name(), dst.layout, Pointwise(dst.layout.size, dst.dtype, value.make_loader()))
        buf.mutated_input = dst.name
        self.buffers.append(buf)
        return buf.view()

    def _write_mutations(self):
        """A ComputedBuffer per mutated input, stored in the input's storage (`mutated_input`). A write whose value
        reads another mutated input must run before that input's write: writes are created in that order (the
        scheduler keeps creation order inside a fused kernel); if they read each other's inputs in a cycle, every
        value is computed into a buffer of its own first."""
        if not self.mutations:
            return
        targets = {b.name for b, _ in self.mutations}
        reads = []
        for _, value in self.mutations:
            h = ir.ReadRecorder()
            with set_ops_handler(h):
                value.make_loader()([Index.var(f"_m{i}") for i in range(len(value.get_size()))])
            reads.append({n for n, _ in h.reads} & targets)
        order, done = [], set()
        pending = list(range(len(self.mutations)))
        while pending:
            # i is ready when no other pending write still has to read i's input (its old value)
            ready = [i for i in pending if not any(self.mutations[i][0].name in reads[j]
                                                   for j in pending if j != i)]
            if not ready:          # a cycle: compute every value first, then copy
                self.mutations = [(b, self.realize(v)) for b, v in self.mutations]
                order = list(range(len(self.mutations)))
                break
            for i in ready:
                order.append(i)
                done.add(i)
            pending = [i for i in pending if i not in done]
        for i in order:
            dst, value = self.mutations[i]
            buf = ComputedBuffer(self.new_name(), dst.layout, Pointwise(dst.layout.size, dst.dtype,
                                                                        _cast_loader(value, dst.dtype)))
            buf.mutated_input = dst.name
            self.buffers.append(buf)

    def _outputs(self, node):
        (vals,) = node.args
        if not isinstance(vals, (tuple, list)):
            vals = (vals,)
        from ember.fx import Node
        for v in vals:
            if isinstance(v, Node):
                x = self.env[v]
                meta = v.meta.get("val") if v.op != "get_attr" else _attr(self.gm, v.target)
                if x is None or not isinstance(meta, Tensor):
                    self.outputs.append(None)
                    self.output_consts.append(x)
                    continue
                if isinstance(x, BufferView) and getattr(x.buffer, "mutated_input", None) is not None:
                    # a value written into an input early (_mutate_early): the output is a tensor of its own (AOT
                    # hands out the input itself where the output aliases it), copied from the stored value
                    x = self.realize(x, _dense_layout(meta))
                if isinstance(x, Pointwise):
                    x = self.realize(x, _dense_layout(meta))
                elif isinstance(x, BufferView) and isinstance(x.buffer, InputBuffer) and \
                        x.layout.stride != tuple(meta.stride()):
                    x = self.realize(x, _dense_layout(meta))
                self.outputs.append(x)
                self.output_consts.append(None)
            else:
                self.outputs.append(None)
                self.output_consts.append(v)

    def computed_buffers(self):
        return [b for b in self.buffers if isinstance(b, ComputedBuffer)]


def _early_mutations(gm):
    """{value node: input placeholder} of the `copy_(input, value)` nodes whose value can be written into the
    input's storage as soon as it is computed (GraphLowering._mutate_early): the value has users besides the
    copy_, it has the input's size and dtype, the input is written once, and every node that reads the input on
    the way to the value is read only on that way (so no one reads the input's old value after the write; size
    queries do not count)."""
    copies = [n for n in gm.graph.nodes if n.op == "call_function" and str(n.target) == "aten.copy_.default"
              and n.args[0].op == "placeholder"]
    written = [n.args[0] for n in copies]
    out = {}
    for c in copies:
        ph, value = c.args[0], c.args[1]
        if written.count(ph) != 1 or getattr(value, "op", None) != "call_function" or len(value.users) < 2:
            continue
        pv, vv = ph.meta.get("val"), value.meta.get("val")
        if not isinstance(pv, Tensor) or not isinstance(vv, Tensor) or tuple(pv.shape) != tuple(vv.shape) or \
                pv.dtype != vv.dtype:
            continue
        ancestors, stack = set(), [value]
        while stack:
            n = stack.pop()
            if n not in ancestors:
                ancestors.add(n)
                stack.extend(n.all_input_nodes)
        on_way, stack = set(), [ph]             # the nodes between the input and the value
        while stack:
            n = stack.pop()
            for u in n.users:
                if u in ancestors and u not in on_way:
                    on_way.add(u)
                    stack.append(u)

        def private(n, allowed):
            return all(u in allowed or _is_size(u) for u in n.users)
        if private(ph, on_way | {c}) and all(private(n, on_way) for n in on_way if n is not value):
            out[value] = ph
    return out


def _is_size(node):
    v = node.meta.get("val")
    return isinstance(v, (int, SymFloatSize)) and not isinstance(v, bool)


def _cast_loader(value, dtype):
    from .lowering import loader
    return loader(value, tuple(value.get_size()), dtype)


def _attr(gm, target):
    obj = gm
    for a in target.split("."):
        obj = getattr(obj, a)
    return obj


def _layout_of(t):
    return Layout(tuple(t.shape), t.stride(), 0, t.dtype)


def _returned_nodes(gm):
    """The nodes the graph's output returns."""
    from ember.fx import Node
    out = set()
    for n in gm.graph.nodes:
        if n.op == "output":
            vals = n.args[0] if isinstance(n.args[0], (tuple, list)) else (n.args[0],)
            out.update(v for v in vals if isinstance(v, Node))
    return out


def _dense_layout(t):
    """The fake value's layout when it is dense with offset 0 (what the eager op produces), else contiguous."""
    size, stride = tuple(t.shape), tuple(t.stride())
    lay = Layout(size, stride, 0, t.dtype)
    dims = sorted((st, s) for s, st in zip(size, stride) if s != 1)
    expect = 1
    for st, s in dims:
        if st != expect:
            return Layout(size, contiguous_strides(size), 0, t.dtype)
        expect *= s
    return lay


def _map_args(a, env):
    from ember.fx import Node
    if isinstance(a, Node):
        return env[a]
    if isinstance(a, (list, tuple)):
        return type(a)(_map_args(x, env) for x in a)
    if isinstance(a, dict):
        return {k: _map_args(v, env) for k, v in a.items()}
    return a


def _map_ir(a, realize):
    if isinstance(a, (Pointwise, BufferView)):
        return realize(a)
    if isinstance(a, (list, tuple)):
        return type(a)(_map_ir(x, realize) for x in a)
    if isinstance(a, dict):
        return {k: _map_ir(v, realize) for k, v in a.items()}
    return a


def _fill_missing_meta(gm):
    """Give every call_function node a fake `meta["val"]` (passes such as functionalization add nodes
    without one) by running its op on the fake values of its arguments."""
    missing = [n for n in gm.graph.nodes if n.op == "call_function" and "val" not in n.meta]
    if not missing:
        return
    from ember._subclasses.fake_tensor import FakeTensorMode
    mode = next((n.meta["val"].fake_mode for n in gm.graph.nodes
                 if getattr(n.meta.get("val"), "fake_mode", None) is not None), None)
    mode = mode or FakeTensorMode(allow_non_fake_inputs=True)
    import ember
    with mode, ember.no_grad():           # shapes only (an in-place copy_ into a parameter is fine here)
        for n in gm.graph.nodes:
            if n.op != "call_function" or "val" in n.meta:
                continue
            args = _map_meta(n.args)
            kwargs = _map_meta(n.kwargs)
            n.meta["val"] = n.target(*args, **kwargs)


def _map_meta(a):
    from ember.fx import Node
    if isinstance(a, Node):
        if "val" not in a.meta:
            raise UnsupportedGraph(f"node {a.name} has no example value")
        return a.meta["val"]
    if isinstance(a, (list, tuple)):
        return type(a)(_map_meta(x) for x in a)
    if isinstance(a, dict):
        return {k: _map_meta(v) for k, v in a.items()}
    return a


# ---------------------------------------------------------------------------- dynamic shapes
def is_symbolic_graph(gm):
    """True if a placeholder of gm has a symbolic size or is a symbolic int."""
    from ember._core.symint import SymInt
    for n in gm.graph.nodes:
        if n.op != "placeholder":
            continue
        v = n.meta.get("val")
        if v.__class__ is SymInt or (isinstance(v, Tensor) and any(s.__class__ is SymInt for s in v._size)):
            return True
    return False


def shape_env_of(gm):
    from ember._core.symint import SymInt
    for n in gm.graph.nodes:
        v = n.meta.get("val")
        if v.__class__ is SymInt:
            return v.node.shape_env
        if isinstance(v, Tensor):
            for s in v._size:
                if s.__class__ is SymInt:
                    return s.node.shape_env
    return None


def default_size_hints(gm):
    env = shape_env_of(gm)
    return {} if env is None else {s.name: int(v) for s, v in env.var_to_val.items()}


def _symbolic_vals(gm, hints, concrete):
    """Replace the fake values of a dynamic-shape graph's nodes by copies whose sizes, strides and ints are
    SymSizes (or, `concrete`, plain ints at `hints`); returns [(node, original value)] to restore."""
    env = shape_env_of(gm)
    if env is None:
        return []
    from ember._core.symint import SymFloat, SymInt
    if hints is None:
        hints = default_size_hints(gm)
    from . import sizevars
    sizevars.HINTS.clear()
    sizevars.HINTS.update(hints)
    memo = {}

    def size(s):
        if s.__class__ is not SymInt:
            return s
        expr = env._simplify(s.node.expr)
        key = expr
        r = memo.get(key)
        if r is None:
            r = memo[key] = value_at(expr, hints) if concrete else from_sympy(expr, hints)
        return r

    def conv(v):
        if v.__class__ is SymInt:
            return size(v)
        if v.__class__ is SymFloat:
            expr = env._simplify(v.node.expr)
            if concrete:
                return float(expr.xreplace({s: int(hints[s.name]) for s in expr.free_symbols}))
            return float_from_sympy(expr, hints)
        if isinstance(v, Tensor):
            if not any(s.__class__ is SymInt for s in v._size) and \
                    not any(s.__class__ is SymInt for s in (v._stride or ())):
                return v
            c = object.__new__(type(v))
            c.__dict__.update(v.__dict__)
            c._size = tuple(size(s) for s in v._size)
            c._stride = tuple(size(s) for s in v._stride)
            if getattr(v, "_offset", 0).__class__ is SymInt:
                c._offset = size(v._offset)
            return c
        if isinstance(v, (tuple, list)):
            return type(v)(conv(x) for x in v)
        return v

    saved = []
    for node in gm.graph.nodes:
        if "val" in node.meta:
            old = node.meta["val"]
            new = conv(old)
            if new is not old:
                saved.append((node, old))
                node.meta["val"] = new
    return saved
