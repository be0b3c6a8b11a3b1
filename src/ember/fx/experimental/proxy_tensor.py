"""torch.fx.experimental.proxy_tensor: make_fx, tracing a function at the dispatcher into an aten-level graph.

ProxyTorchDispatchMode sits on the dispatch-mode stack (the Python key). Every OpOverload that reaches it
runs for real (or on fake tensors under tracing_mode="fake") and is recorded as a call_function node whose
target is the OpOverload; each output tensor is remembered with its node. Ops with a
CompositeImplicitAutograd kernel are decomposed first (so the graph holds the ops the backends implement),
and ops in `decomposition_table` are replaced by their decomposition, traced in turn. In-place ops record
the mutating op (later uses read its result), view ops are ordinary nodes, random ops are kept as they are
(impure, so dead-code elimination keeps them). Tensors that are neither inputs nor results of traced ops
(closed-over parameters, constants) become `get_attr` attributes of the returned GraphModule.
"""
import contextlib
import functools
import inspect
import operator
from operator import getitem as _getitem

from ember._core.symint import SymBool, SymFloat, SymInt
from ember._core.tls import state as _tls
from ember._core.dispatch_keys import DispatchKey
from ember._dispatch.modes import TorchDispatchMode
from ember._tensor import Tensor
from ember._ops import ops

from .._symbolic_trace import Tracer
from ..graph import Graph
from ..graph_module import GraphModule
from ..node import map_aggregate
from ..proxy import _user_stack

CURRENT_DECOMPOSITION_TABLE = {}


class PythonKeyTracer(Tracer):
    """The tracer make_fx records into; tensors it has not seen become attributes of the root."""

    def __init__(self):
        super().__init__(autowrap_modules=())
        self.root = None
        self.tensor_attrs = {}
        self.record_stack_traces = True

    def create_arg(self, a):
        if isinstance(a, Tensor):
            qualname = self.tensor_attrs.get(id(a))
            if qualname is None:
                if a._np is None:
                    raise RuntimeError(
                        f"make_fx: a {'fake' if type(a) is not Tensor else 'meta'} tensor of shape {tuple(a.shape)} "
                        f"that no traced op produced reached the graph: it was made outside the dispatcher (a "
                        f"numpy shortcut in a kernel or autograd formula?), so the graph cannot recompute it")
                i = 0
                while hasattr(self.root, f"_tensor_constant{i}"):
                    i += 1
                qualname = f"_tensor_constant{i}"
                setattr(self.root, qualname, a)
                self.tensor_attrs[id(a)] = qualname
            return self.create_node("get_attr", qualname, (), {})
        return super().create_arg(a)


def _tensor_key(t):
    """A key that survives autograd's saved-output shells (same data and geometry, a new object)."""
    if t._np is not None:
        return ("np", id(t._np), t.dtype)
    return ("st", id(t._storage), _hashable(t._offset), _hashable(tuple(t._size)), _hashable(t.stride()), t.dtype)


def _hashable(x):
    """Sizes as a dict key: a SymInt (unhashable) stands as its expression."""
    if x.__class__ is tuple:
        for v in x:
            if v.__class__ is not int:
                return tuple(v.node.expr if v.__class__ is SymInt else v for v in x)
        return x
    return x.node.expr if x.__class__ is SymInt else x


class _TensorTracker:
    """Tensor -> the Proxy that produced it (by identity, then by storage and geometry)."""

    def __init__(self):
        self.by_id = {}
        self.by_geom = {}

    def set(self, t, proxy):
        self.by_id[id(t)] = (t, proxy)          # the tensor is kept alive so its id is not reused
        self.by_geom[_tensor_key(t)] = (t, proxy)

    def get(self, t):
        hit = self.by_id.get(id(t))
        if hit is not None and hit[0] is t:
            return hit[1]
        hit = self.by_geom.get(_tensor_key(t))
        if hit is not None and hit[0].dtype == t.dtype:
            return hit[1]
        return None


_LIFT_FRESH = ops.aten.lift_fresh.default
_LIFT_FRESH_COPY = ops.aten.lift_fresh_copy.default


class ProxyTorchDispatchMode(TorchDispatchMode):
    """Records every op reaching the Python key as a node of `tracer.graph`."""

    def __init__(self, tracer, tracing_mode="real", decomposition_table=None):
        self.tracer = tracer
        self.tracing_mode = tracing_mode
        self.decomposition_table = decomposition_table or {}
        self.tracker = _TensorTracker()
        self.enable_tracing = True
        self.sym_sources = {}           # size Symbol -> (placeholder proxy, dim) it is read from
        self.expr_proxies = {}          # sympy expression -> the proxy computing it

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if func is _LIFT_FRESH:
            func = _LIFT_FRESH_COPY            # torch's: the fresh constant becomes a graph attribute, copied
        if func is _sym_size_int():
            return args[0].size(args[1])    # a size read (retracing a graph): a node only where the size is used
        decomp = self.decomposition_table.get(func)
        if decomp is not None:
            with self:
                r = decomp(*args, **kwargs)
            if r is not NotImplemented:
                return r
        if _is_composite_implicit(func):
            with self:
                r = func.decompose(*args, **kwargs)
            if r is not NotImplemented:
                return r
        if args and "inplace_view" in func.tags:
            _keep_vals(self.tracer.graph, args[0])
        out = func(*args, **kwargs)
        proxy_args = map_aggregate(args, self._to_proxy_arg)
        proxy_kwargs = map_aggregate(_drop_default_kwargs(func, kwargs), self._to_proxy_arg)
        node = self.tracer.create_node("call_function", func, self.tracer.create_arg(proxy_args),
                                       self.tracer.create_arg(proxy_kwargs))
        if self.tracer.record_stack_traces:
            st = _user_stack()
            if st:
                node.stack_trace = st
        node.meta["val"] = _snapshot(out)
        proxy = self.tracer.proxy(node)
        self._track_outputs(out, proxy)
        return out

    def _to_proxy_arg(self, a):
        if isinstance(a, Tensor):
            p = self.tracker.get(a)
            if p is not None:
                return p
            return a                    # a constant: create_arg makes it a get_attr
        if a.__class__ is SymInt or a.__class__ is SymFloat or a.__class__ is SymBool:
            return self.sym_proxy(a)
        return a

    # ---------------------------------------------------------------- symbolic sizes as graph values
    def track_sizes(self, t, proxy):
        """Remember where the size symbols of input `t` can be read: dim d of the placeholder `proxy`."""
        for d, s in enumerate(t._size):
            if s.__class__ is SymInt and s.node.expr.is_Symbol and s.node.expr not in self.sym_sources:
                self.sym_sources[s.node.expr] = (proxy, d)

    def sym_proxy(self, s):
        """The graph value of SymInt/SymFloat/SymBool `s`: `aten.sym_size.int` of the input it came from, and
        `operator` arithmetic over those for an expression (each distinct expression computed once)."""
        node = s.node
        expr = node.expr
        env = node.shape_env
        expr = env._simplify(expr)
        return self._expr_proxy(expr, s)

    def _expr_proxy(self, expr, val=None):
        from .symbolic_shapes import expr_to_graph

        def leaf(sym):
            src = self.sym_sources.get(sym)
            if src is None:
                raise RuntimeError(f"make_fx: size symbol {sym} does not come from any input of the traced function")
            return self.tracer.create_proxy("call_function", _sym_size_int(), (src[0], src[1]), {},
                                            name="sym_size_int")
        p = expr_to_graph(expr, self.expr_proxies, leaf,
                          lambda fn, args: self.tracer.create_proxy("call_function", fn, args, {}))
        if val is not None and hasattr(p, "node") and "val" not in p.node.meta:
            p.node.meta["val"] = val
        return p

    def _track_outputs(self, out, proxy):
        if isinstance(out, Tensor):
            self.tracker.set(out, proxy)
        elif isinstance(out, (tuple, list)):
            for i, o in enumerate(out):
                if isinstance(o, Tensor):
                    item = self.tracer.create_proxy("call_function", _getitem, (proxy, i), {})
                    item.node.meta["val"] = _snapshot(o)
                    self.tracker.set(o, item)
                elif isinstance(o, (tuple, list)):
                    sub = self.tracer.create_proxy("call_function", _getitem, (proxy, i), {})
                    self._track_outputs(o, sub)


_DEFAULTS = {}
_LITERALS = {"None": None, "True": True, "False": False}


def _parse_default(text):
    if text in _LITERALS:
        return True, _LITERALS[text]
    try:
        return True, int(text)
    except (TypeError, ValueError):
        pass
    try:
        return True, float(text)
    except (TypeError, ValueError):
        return False, None


def _drop_default_kwargs(func, kwargs):
    """Keyword arguments equal to the schema's default are left out of the node (readable graphs)."""
    if not kwargs:
        return kwargs
    defaults = _DEFAULTS.get(func)
    if defaults is None:
        defaults = {}
        for a in func._schema.arguments.flat_all:
            d = getattr(a, "default", None)
            if d is not None:
                ok, v = _parse_default(d)
                if ok:
                    defaults[a.name] = v
        _DEFAULTS[func] = defaults
    out = {}
    for k, v in kwargs.items():
        if k in defaults and (v is None or type(v) in (bool, int, float)) and type(v) is type(defaults[k]) \
                and v == defaults[k]:
            continue
        out[k] = v
    return out


def _is_composite_implicit(func):
    kernels = func._entry.kernels
    if DispatchKey.CompositeImplicitAutograd not in kernels:
        return False
    return not any(k in kernels for k in (DispatchKey.CPU, DispatchKey.Meta, DispatchKey.CompositeExplicitAutograd,
                                          DispatchKey.CompositeExplicitAutogradNonFunctional))


def _keep_vals(graph, t):
    """squeeze_/transpose_ are about to change fake tensor t's geometry: the nodes whose val is t keep the geometry
    they produced (a shallow copy of t as it is now; torch snapshots every val with detach())."""
    snap = None
    for n in graph.nodes:
        if n.meta.get("val") is t:
            if snap is None:
                snap = object.__new__(type(t))
                snap.__dict__.update(t.__dict__)
            n.meta["val"] = snap


def _snapshot(out):
    """What node.meta['val'] keeps: the fake tensor itself, or a meta tensor with a real result's geometry."""
    def one(t):
        if not isinstance(t, Tensor):
            return t
        from ember._subclasses.fake_tensor import FakeTensor
        if isinstance(t, FakeTensor):
            return t
        return _MetaVal(tuple(t._size), t.stride(), t.dtype, t.storage_offset(), t.requires_grad)
    if isinstance(out, (tuple, list)):
        return type(out)(one(o) if not isinstance(o, (tuple, list)) else _snapshot(o) for o in out) \
            if not hasattr(out, "_fields") else tuple(one(o) for o in out)
    return one(out)


class _MetaVal:
    """Shape, stride and dtype of a real value a node produced (node.meta['val'] under real tracing)."""

    __slots__ = ("shape", "_stride", "dtype", "_offset", "requires_grad")

    def __init__(self, shape, stride, dtype, offset, requires_grad):
        self.shape, self._stride, self.dtype, self._offset, self.requires_grad = shape, stride, dtype, offset, \
            requires_grad

    def stride(self):
        return self._stride

    def storage_offset(self):
        return self._offset

    def numel(self):
        n = 1
        for s in self.shape:
            n *= s
        return n

    def __repr__(self):
        return f"MetaVal(shape={self.shape}, dtype={self.dtype})"


# ---------------------------------------------------------------- pytrees (nested tuples/lists/dicts)
def _tree_flatten(x):
    leaves = []

    def spec(v):
        if isinstance(v, (list, tuple)):
            return (type(v), [spec(e) for e in v])
        if isinstance(v, dict):
            return (dict, {k: spec(e) for k, e in v.items()})
        leaves.append(v)
        return None
    return leaves, spec(x)


def _tree_unflatten(leaves, spec):
    it = iter(leaves)

    def build(s):
        if s is None:
            return next(it)
        t, children = s
        if t is dict:
            return {k: build(c) for k, c in children.items()}
        if hasattr(t, "_fields"):                 # a namedtuple (torch.return_types.*)
            return t(*(build(c) for c in children))
        return t(build(c) for c in children)
    return build(spec)


def make_fx(f, decomposition_table=None, tracing_mode="real", _allow_non_fake_inputs=False,
            pre_dispatch=False, record_module_stack=False, _allow_fake_constant=False, _error_on_data_dependent_ops=True,
            record_stack_traces=False):
    """Return a function that traces `f` on example inputs into an aten-level GraphModule (torch's make_fx).

    tracing_mode "real" runs the ops on the inputs; "fake" converts them to FakeTensors first, so only
    metadata is computed. Placeholders are named as torch names them: `x_1` for parameter x (`pair_1, pair_2` for
    the leaves of a nested one), `arg0_1, arg1_1, ...` for *args. With record_stack_traces=True each node's
    `stack_trace` holds the user's frames (shown as `# File:` comments in the code); off by default, as torch's,
    because walking and formatting the stack per op is a large part of tracing time.
    """
    if tracing_mode not in ("real", "fake", "symbolic"):
        raise NotImplementedError(f"make_fx: tracing_mode={tracing_mode!r} (expected 'real', 'fake' or 'symbolic')")
    if pre_dispatch:
        raise NotImplementedError("make_fx: pre_dispatch tracing is not supported by ember")

    @functools.wraps(f)
    def wrapped(*args):
        return _trace(f, args, decomposition_table or {}, tracing_mode, _allow_non_fake_inputs,
                      record_stack_traces)
    return wrapped


def _trace(f, args, decomposition_table, tracing_mode, allow_non_fake_inputs, record_stack_traces=False):
    from ember.nn import Module
    flat_args, spec = _tree_flatten(list(args))
    tracer = PythonKeyTracer()
    from ember.fx import config as fx_config
    tracer.record_stack_traces = record_stack_traces and not fx_config.do_not_emit_stack_traces
    tracer.root = Module()
    tracer.graph = Graph(tracer_cls=PythonKeyTracer)
    fake_mode = None
    names = _placeholder_names(f, args)
    if tracing_mode == "fake":
        from ember._subclasses.fake_tensor import FakeTensorMode
        fake_mode = _current_fake_mode(flat_args) or FakeTensorMode(allow_non_fake_inputs=allow_non_fake_inputs)
        flat_args = [fake_mode.from_tensor(a) if isinstance(a, Tensor) else a for a in flat_args]
    elif tracing_mode == "symbolic":
        # every size of every input a symbol (duck-sized, 0/1 specialised), unless the inputs are fake already
        from ember._subclasses.fake_tensor import FakeTensorMode
        from .symbolic_shapes import ShapeEnv
        fake_mode = _current_fake_mode(flat_args)
        if fake_mode is None or fake_mode.shape_env is None:
            fake_mode = FakeTensorMode(allow_non_fake_inputs=allow_non_fake_inputs, shape_env=ShapeEnv())
        flat_args = [fake_mode.from_tensor(a, static_shapes=False, source=n) if isinstance(a, Tensor) else a
                     for a, n in zip(flat_args, names)]
    mode = ProxyTorchDispatchMode(tracer, tracing_mode, decomposition_table)
    for i, (a, name) in enumerate(zip(flat_args, names)):
        node = tracer.graph.placeholder(name)
        if isinstance(a, Tensor):
            node.meta["val"] = _snapshot(a)
            mode.tracker.set(a, tracer.proxy(node))
            mode.track_sizes(a, tracer.proxy(node))
        elif a.__class__ is SymInt:
            node.meta["val"] = a
            if a.node.expr.is_Symbol:
                mode.expr_proxies.setdefault(a.node.expr, tracer.proxy(node))
    call_args = _tree_unflatten(flat_args, spec)
    with contextlib.ExitStack() as stack:
        if fake_mode is not None and fake_mode not in _tls.mode_stack:
            stack.enter_context(fake_mode)
        stack.enter_context(mode)
        out = f(*call_args)
    flat_out, _ = _tree_flatten(out)

    def out_arg(o):
        if isinstance(o, Tensor):
            p = mode.tracker.get(o)
            return p.node if p is not None else tracer.create_arg(o)
        if o.__class__ in (SymInt, SymFloat, SymBool):
            p = mode.sym_proxy(o)
            return p.node if hasattr(p, "node") else p
        return o
    out_nodes = [out_arg(o) for o in flat_out]
    result = _tree_unflatten(out_nodes, _plain_spec(_tree_flatten(out)[1]))   # namedtuples are returned as tuples
    tracer.graph.output(result)
    gm = GraphModule(tracer.root, tracer.graph)
    return gm


def _placeholder_names(f, args):
    """torch's names: the leaves of parameter `p` are p_1, p_2, ...; *args (or no signature) give arg{i}_1."""
    try:
        params = [p for p in inspect.signature(f).parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        params = []
    names, flat_i = [], 0
    for i, a in enumerate(args):
        leaves = _tree_flatten(a)[0]
        for k in range(len(leaves)):
            names.append(f"{params[i].name}_{k + 1}" if i < len(params) else f"arg{flat_i}_1")
            flat_i += 1
    return names


def _plain_spec(spec):
    if spec is None:
        return None
    t, children = spec
    if t is dict:
        return (dict, {k: _plain_spec(c) for k, c in children.items()})
    return (tuple if hasattr(t, "_fields") else t, [_plain_spec(c) for c in children])


def _current_fake_mode(flat_args):
    from ember._subclasses.fake_tensor import FakeTensor, FakeTensorMode
    for a in flat_args:
        if isinstance(a, FakeTensor):
            return a.fake_mode
    for m in _tls.mode_stack:
        if isinstance(m, FakeTensorMode):
            return m
    return None


def get_isolated_graphmodule(func, args, kwargs, tracing_mode="real"):
    """make_fx of func(*args, **kwargs) (torch's helper for tracing a sub-function)."""
    sig = inspect.signature(func)
    bound = sig.bind(*args, **kwargs)
    return make_fx(lambda *a: func(*a))(*bound.args)


_SYM_SIZE = []


def _sym_size_int():
    """aten.sym_size.int(Tensor self, int dim) -> SymInt: the graph node that reads a dynamic size at run time
    (defined here, in the aten namespace as torch has it, when the first symbolic graph needs it)."""
    if not _SYM_SIZE:
        from ember import ops
        if not hasattr(ops.aten, "sym_size"):
            from ember.library import Library
            lib = Library("aten", "FRAGMENT")
            lib.define("sym_size.int(Tensor self, int dim) -> SymInt")
            lib.impl("sym_size.int", _sym_size_kernel, "CompositeExplicitAutograd")
            _SYM_SIZE.append(lib)
        _SYM_SIZE.insert(0, ops.aten.sym_size.int)
    return _SYM_SIZE[0]


def _sym_size_kernel(self, dim):
    return self.size(dim)


_sym_size_int()          # defined with the graph layer, so graphs and user code can name it
