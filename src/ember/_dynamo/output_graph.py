"""torch._dynamo.output_graph: the graph being built during one capture (fx Graph, fake tensors, graph inputs,
guards, side effects), and compile_subgraph, which hands the graph to the backend and generates the Python
function that runs a cache entry: call the compiled graph, replay side effects, rebuild the frame's values."""
import operator
import sys
import types

from ember.fx import Graph, GraphModule
from ember.nn import Module
from ember._core.symint import SymBool, SymFloat, SymInt
from ember._subclasses.fake_tensor import FakeTensorMode

from . import config, utils
from .exc import BackendCompilerFailed, Unsupported
from .guards import GuardBuilder
from .variables import (BuiltinVariable, CellVariable, ConstantVariable, DictVariable, IteratorVariable,
                        ResumeIteratorVariable,
                        ListVariable, MethodVariable, NestedFunctionVariable, TensorMethodVariable, NNModuleVariable, NullVariable, TensorVariable,
                        TorchVariable, TupleVariable, UserFunctionVariable, UserMethodVariable,
                        UserObjectVariable)

def lookup_backend(backend):
    """A backend name or callable -> callable(gm, example_inputs) returning a callable."""
    from .backends.registry import lookup_backend as _registry_lookup
    return _registry_lookup(backend)


def _eager_backend(gm, example_inputs):
    return gm.forward


class _Root(Module):
    pass


class OutputGraph:
    def __init__(self, code, f_globals, closure, options):
        self.code, self.f_globals, self.closure, self.options = code, f_globals, closure, options
        self.graph = Graph()
        self.fake_mode = FakeTensorMode(allow_non_fake_inputs=False)
        self.guards = GuardBuilder()
        self.guards.global_state()
        self.inputs = []                # (source, real tensor, TensorVariable)
        self.tensor_by_id = {}          # id(real tensor) -> TensorVariable (aliases share one input)
        self.object_vts = {}            # id(pre-existing mutable object) -> tracker (one tracker per object)
        self.side_effects = []          # ("setattr", obj tracker, name, value tracker) | ("setglobal", name, vt)
        self.keepalive = []
        self.dynamic_dims = {}          # source name -> set of dims (automatic dynamic / mark_dynamic)
        self.dynamic_ints = set()       # source names of int arguments made symbolic (automatic dynamic)
        self.breaks = []                # (reason, location) of breaks taken in this capture
        self.sym_sources = {}           # size Symbol -> (placeholder node, dim) it is read from
        self.marked_symbols = []        # (Symbol, source, dim) of mark_dynamic dims: must stay symbolic
        self.expr_nodes = {}            # sympy expression -> the node computing it
        self._n = 0

    # ---------------------------------------------------------------- inputs
    def tensor_input(self, value, source):
        vt = self.tensor_by_id.get(id(value))
        if vt is not None:
            # one tensor reached through two sources: one graph input, valid while they stay the same object
            if vt.source is not None and vt.source.name() != source.name():
                self.guards.expr_guard("DUPLICATE_INPUT", f"{source.name()} is {vt.source.name()}",
                                       epoch_covered=source.epoch_covered and vt.source.epoch_covered)
            return vt
        marked = set(getattr(value, "_dynamo_dynamic_indices", ()))
        dyn = set(self.dynamic_dims.get(source.name(), ())) | marked
        dynamic = self.options.get("dynamic")
        if dynamic is True or (dynamic is None and not config.assume_static_by_default):
            dyn = set(range(value.dim()))
        elif dynamic is False:
            dyn = set()
        if (source.epoch_covered and config.force_parameter_static_shapes) or not value.is_contiguous():
            dyn = set()       # parameters and buffers keep static shapes (torch's force_parameter_static_shapes)
        if dyn:
            from ember.fx.experimental.symbolic_shapes import DimDynamic, StatelessSymbolicContext
            self.shape_env()
            ctx = StatelessSymbolicContext([(DimDynamic.DYNAMIC if d in marked else DimDynamic.DUCK) if d in dyn
                                            else DimDynamic.STATIC for d in range(value.dim())])
            fake = self.fake_mode.from_tensor(value, symbolic_context=ctx, source=source)
        else:
            fake = self.fake_mode.from_tensor(value)
        # dims that became symbols (a size 0 or 1 stays static: torch's 0/1 specialisation)
        sym_dims = tuple(d for d, sz in enumerate(fake._size) if sz.__class__ is SymInt)
        for d in sym_dims:
            if d in marked:
                sym = fake._size[d].node.expr
                self.marked_symbols.append((sym, source, d))
                lo, hi = getattr(value, "_dynamo_dynamic_range", {}).get(d, (None, None))
                if lo is not None or hi is not None:
                    self.shape_env().constrain_range(sym, lo, hi)
        if not source.epoch_covered:
            self.guards.tensor_match(source, value, sym_dims)
        name = _input_name(source)
        node = self.graph.placeholder(name)
        for d in sym_dims:
            expr = fake._size[d].node.expr
            if expr.is_Symbol and expr not in self.sym_sources:
                self.sym_sources[expr] = (node, d)
        vt = TensorVariable(node, fake, source)
        vt.is_param = getattr(value, "_is_param", False)
        self.inputs.append((source, value, vt))
        self.tensor_by_id[id(value)] = vt
        self.keepalive.append(value)
        return vt

    def new_node(self, kind, target, args, kwargs):
        return self.graph.create_node(kind, target, args, kwargs)

    # ---------------------------------------------------------------- dynamic shapes
    def shape_env(self):
        """The ShapeEnv of this capture, made with the first dynamic input (sympy is loaded only then)."""
        if self.fake_mode.shape_env is None:
            from ember.fx.experimental.symbolic_shapes import ShapeEnv
            self.fake_mode.shape_env = ShapeEnv()
        return self.fake_mode.shape_env

    def sym_arg(self, v):
        """A graph argument for a value that may hold SymInts (a size, a tuple of sizes): each symbolic entry
        becomes a node computing it from the inputs' sizes (aten.sym_size.int and `operator` arithmetic)."""
        if v.__class__ in (SymInt, SymFloat, SymBool):
            from ember.fx.experimental.proxy_tensor import _sym_size_int
            from ember.fx.experimental.symbolic_shapes import expr_to_graph, simplified_expr

            def leaf(sym):
                node, d = self.sym_sources[sym]
                if d is None:             # an int input: the placeholder is the value
                    return node
                n = self.graph.create_node("call_function", _sym_size_int(), (node, d), {}, name="sym_size_int")
                n.meta["example_value"] = self.fake_mode.shape_env.create_symintnode(sym)
                return n
            return expr_to_graph(simplified_expr(v), self.expr_nodes, leaf,
                                 lambda fn, args: self.graph.create_node("call_function", fn, args, {}))
        if isinstance(v, (tuple, list)) and any(x.__class__ in (SymInt, SymFloat, SymBool) or
                                                isinstance(x, (tuple, list)) for x in v):
            items = [self.sym_arg(x) for x in v]
            return list(items) if isinstance(v, list) else tuple(items)
        return v

    def int_input(self, value, source):
        """An int argument equal to a dynamic size already seen (a size handed to a resume function, `n = x.shape[0]`
        before a graph break): the size's symbol, guarded `source == size`, so the entry serves every size. None
        when it is no such size (the caller guards the int's value)."""
        if self.options.get("dynamic") is False or source.epoch_covered:
            return None
        dynamic = self.options.get("dynamic")
        wanted = source.name() in self.dynamic_ints or dynamic is True or \
            (dynamic is None and not config.assume_static_by_default)
        if wanted and not config.specialize_int and value not in (0, 1):
            return self._sym_int_input(value, source)
        env = self.fake_mode.shape_env
        if env is None:
            return None
        sym = env.val_to_var.get(value)
        if sym is None or sym in env.replacements:
            return None
        env.var_to_sources[sym].append(source)
        self.guards.type_match(source, value)
        return env.create_symintnode(sym, value)

    def _sym_int_input(self, value, source):
        """An int argument as a graph input of its own: a new size symbol (not duck-sized with the tensors'
        sizes, as torch's unspecialised ints), read from the argument itself (a SymInt placeholder)."""
        from ember.fx.experimental.symbolic_shapes import DimDynamic
        env = self.shape_env()
        sym = env.create_symbol(value, source, DimDynamic.DYNAMIC)
        if sym.is_number:
            return None
        self.guards.type_match(source, value)
        symint = env.create_symintnode(sym, value)
        node = self.graph.placeholder(_input_name(source))
        node.meta["val"] = node.meta["example_value"] = symint
        self.sym_sources.setdefault(sym, (node, None))
        vt = ConstantVariable(symint, source)
        vt.node = vt.proxy_node = node
        self.inputs.append((source, value, vt))
        return symint

    def sym_source_expr(self, v):
        """A Python expression over the frame's sources computing Sym* `v` (for values rebuilt after the graph)."""
        from ember.fx.experimental.symbolic_shapes import simplified_expr, to_python
        return to_python(simplified_expr(v), self.shape_env().source_names(_size_source_name))

    # ---------------------------------------------------------------- the graph and the runtime code
    def compile_and_codegen(self, build_tail):
        """Finish the graph; `build_tail(codegen)` returns the Python lines run after it. Returns the entry."""
        cg = CodeGen(self)
        tail = build_tail(cg)
        outputs = cg.tensor_outputs
        self.graph.output(tuple(vt.node for vt in outputs))
        # inputs: those read per call first, then the epoch-covered ones (parameters, buffers)
        fresh = [i for i in self.inputs if not i[0].epoch_covered]
        covered = [i for i in self.inputs if i[0].epoch_covered]
        order = fresh + covered
        placeholders = [vt.node for _, _, vt in order]
        self._reorder_placeholders(placeholders)
        n_ops = sum(1 for n in self.graph.nodes if n.op not in ("placeholder", "output"))
        # grad mode switched inside the graph (a `with no_grad()` block, or a resumed frame leaving one): the
        # graph starts by setting the mode it was captured under, so a backend that traces it (AOT) records
        # autograd exactly where the frame did; the mode at the graph's end is set again after the call, since
        # compiled code (inductor) does not run the switches themselves
        from ember._grad_mode import _set_enabled
        switches = [n for n in self.graph.nodes if n.op == "call_function" and n.target is _set_enabled]
        entry_mode = getattr(self, "entry_grad_enabled", self.grad_enabled)
        if switches:
            first = next(n for n in self.graph.nodes if n.op != "placeholder")
            with self.graph.inserting_before(first):
                self.graph.call_function(_set_enabled, (entry_mode,), {})
        compiled = None
        gm = None
        # a graph runs when it returns tensors or does work for its effects alone (in-place ops on inputs,
        # item assignment); one that only toggles grad mode does not need to
        effects = any(n.op not in ("placeholder", "output") and n.target is not _set_enabled
                      for n in self.graph.nodes)
        if outputs or effects:
            gm = GraphModule(_Root(), self.graph)
            utils.log("graph_code", f"TRACED GRAPH {self.code.co_name}\n{gm.code}")
            backend = lookup_backend(self.options.get("backend", "inductor"))
            example = [vt.value if isinstance(vt, ConstantVariable) else self.fake_mode.from_tensor(v)
                       for _, v, vt in order]          # (a SymInt input's example is its SymInt)
            try:
                compiled = backend(gm, example)
            except Unsupported:
                raise
            except Exception as e:
                raise BackendCompilerFailed(getattr(backend, "__name__", str(backend)), e) from e
            utils.counters["stats"]["unique_graphs"] += 1
        env = self.fake_mode.shape_env
        if env is not None:
            env.check_marked_dynamic(self.marked_symbols, _size_source_name)
            # the relations the capture relied on (duck-sized equalities, ranges, branches on sizes)
            for code in env.produce_guards_expression(_size_source_name):
                self.guards.expr_guard("SHAPE_ENV", code)
        check = self.guards.compile([s for s, _, _ in fresh], [s for s, _, _ in covered])
        utils.log("guards", f"GUARDS {self.code.co_name}\n{check.source}")
        body = ["def ___run(___ins, L, G, C):"]
        if compiled is not None:
            body.append("    O = ___graph(*___ins)")
        if switches or self.grad_enabled != entry_mode:
            body.append(f"    {cg.const(_set_enabled)}({bool(self.grad_enabled)})")
        body += ["    " + line for line in tail]
        src = "\n".join(body) + "\n"
        ns = dict(cg.consts)
        ns["___graph"] = compiled
        ns["___modules"] = sys.modules        # sources of other modules' globals (a hook's list, say)
        exec(compile(src, f"<ember compiled {self.code.co_name}>", "exec"), ns)
        run = ns["___run"]
        run.source = src
        return Entry(check, run, self.guards, gm, n_ops, src)

    def _reorder_placeholders(self, placeholders):
        g = self.graph
        first = next(iter(g.nodes))
        for p in reversed(placeholders):
            if p is not first:
                first.prepend(p)
            first = p


def _size_source_name(src):
    """Guards read a dynamic size as `L['x']._size[0]` (torch prints `L['x'].size()[0]`; same value, faster);
    an int argument that stands for a size symbol is read as itself."""
    if not hasattr(src, "dim"):
        return src.name()
    base = src.base.name() if hasattr(src.base, "name") else str(src.base)
    return f"{base}._size[{src.dim}]"


def _input_name(source):
    import re
    s = re.sub(r"[^0-9a-zA-Z_]+", "_", source.name()).strip("_")
    return s or "arg"


class Entry:
    """One cache entry: its guard check, the function that runs it, and what explain() reports."""

    def __init__(self, check, run, guards, gm, n_ops, source):
        self.check, self.run, self.guard_builder, self.gm, self.n_ops, self.source = \
            check, run, guards, gm, n_ops, source
        self.graphs = [gm] if gm is not None else []


def _enter_grad_mode(mode):
    """Enter a grad-mode block again after a graph break inside it; returns its `__exit__` (for the stack)."""
    import ember
    cm = ember.enable_grad() if mode else ember.no_grad()
    cm.__enter__()
    return cm.__exit__


class CodeGen:
    """Python expressions that rebuild trackers after the graph ran (`O` holds the graph's outputs)."""

    def __init__(self, output):
        self.output = output
        self.tensor_outputs = []
        self._out_index = {}
        self.consts = {"___NULL": None}
        self._n = 0

    def const(self, value):
        for k, v in self.consts.items():
            if v is value and k != "___NULL":
                return k
        self._n += 1
        name = f"___k{self._n}"
        self.consts[name] = value
        return name

    def expr(self, vt):
        if isinstance(vt, TensorVariable):
            i = self._out_index.get(id(vt))
            if i is None:
                i = self._out_index[id(vt)] = len(self.tensor_outputs)
                self.tensor_outputs.append(vt)
            return f"O[{i}]"
        if isinstance(vt, ConstantVariable):
            v = vt.value
            if v.__class__ in (SymInt, SymFloat, SymBool):
                return self.output.sym_source_expr(v)
            if isinstance(v, tuple) and any(x.__class__ in (SymInt, SymFloat, SymBool) for x in v):
                inner = "".join(f"{self.output.sym_source_expr(x) if x.__class__ in (SymInt, SymFloat, SymBool) else repr(x)}, "
                                for x in v)
                return f"{self.const(type(v))}(({inner}))" if type(v) is not tuple else f"({inner})"
            if isinstance(v, (int, float, bool, str, type(None))) and not (isinstance(v, float) and v != v):
                return repr(v) if not isinstance(v, float) or v not in (float("inf"), float("-inf")) \
                    else self.const(v)
            return self.const(v)
        if isinstance(vt, (ListVariable, DictVariable)) and vt.source is not None:
            return vt.source.name()
        if isinstance(vt, TupleVariable):
            inner = "".join(self.expr(i) + ", " for i in vt.items)
            if vt.tuple_type is tuple:
                return f"({inner})"
            return f"{self.const(vt.tuple_type)}(({inner}))" if not hasattr(vt.tuple_type, "_fields") \
                else f"{self.const(vt.tuple_type)}({inner})"
        if isinstance(vt, ListVariable):
            return "[" + ", ".join(self.expr(i) for i in vt.items) + "]"
        if isinstance(vt, DictVariable):
            inner = ", ".join(f"{self.const(k) if not isinstance(k, (str, int)) else repr(k)}: {self.expr(v)}"
                              for k, v in vt.items.items())
            if vt.dict_type is dict:
                return "{" + inner + "}"
            return f"{self.const(vt.dict_type)}({{{inner}}})"
        if isinstance(vt, ResumeIteratorVariable):
            from .resume_execution import ResumeIterator
            s = vt.source.name()       # the same list, further on (its items are the frame's objects)
            return f"{self.const(ResumeIterator)}({s}.items, {s}.index + {vt.index})"
        if isinstance(vt, IteratorVariable):
            from .resume_execution import ResumeIterator
            return f"{self.const(ResumeIterator)}([" + ", ".join(self.expr(i) for i in vt.remaining()) + "])"
        if isinstance(vt, (TensorMethodVariable, MethodVariable)):
            obj = vt.tensor if isinstance(vt, TensorMethodVariable) else vt.obj
            return f"{self.expr(obj)}.{vt.name}"
        if isinstance(vt, UserMethodVariable):
            return f"{self.const(types.MethodType)}({self.const(vt.fn)}, {self.expr(vt.obj)})"
        if isinstance(vt, NestedFunctionVariable):
            raise Unsupported("rebuilding a closure made during capture")
        if isinstance(vt, (CellVariable, NullVariable)):
            raise Unsupported(f"rebuilding {type(vt).__name__}")
        if vt.source is not None:
            return vt.source.name()
        for attr in ("module", "fn", "value"):
            if isinstance(vt, (NNModuleVariable, UserFunctionVariable, BuiltinVariable, TorchVariable,
                               UserObjectVariable)) and hasattr(vt, attr):
                return self.const(getattr(vt, attr))
        from .variables import GradModeVariable, WithExitVariable
        if isinstance(vt, WithExitVariable):
            return f"{self.const(_enter_grad_mode)}({bool(vt.ctx.mode)})"
        if isinstance(vt, GradModeVariable):
            import ember
            return f"{self.const(ember.set_grad_enabled)}({vt.mode})"
        raise Unsupported(f"rebuilding {type(vt).__name__}")

    def side_effect_lines(self):
        lines = []
        for eff in self.output.side_effects:
            if eff[0] == "setattr":
                _, obj, name, val = eff
                lines.append(f"setattr({self.expr(obj)}, {name!r}, {self.expr(val)})")
            elif eff[0] == "delattr":
                _, obj, name = eff
                lines.append(f"delattr({self.expr(obj)}, {name!r})")
            elif eff[0] == "setglobal":
                _, name, val = eff
                lines.append(f"G[{name!r}] = {self.expr(val)}")
        done = set()
        for vt in self.output.object_vts.values():
            if getattr(vt, "mutated", False) and vt.source is not None and id(vt) not in done:
                done.add(id(vt))
                if isinstance(vt, ListVariable):
                    lines.append(f"{vt.source.name()}[:] = [{', '.join(self.expr(i) for i in vt.items)}]")
                elif isinstance(vt, DictVariable):
                    lines.append(f"{vt.source.name()}.clear()")
                    inner = ", ".join(f"{self.const(k)}: {self.expr(v)}" for k, v in vt.items.items())
                    lines.append(f"{vt.source.name()}.update({{{inner}}})")
        return lines


_ = operator
