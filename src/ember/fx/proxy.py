"""torch.fx.proxy: Proxy (a traced value), Attribute, TracerBase and GraphAppendingTracer.

Every operation on a Proxy records a Node instead of computing: Python operators become
`call_function` nodes on `operator.*`, attribute access then a call becomes `call_method`, and
`proxy.attr` alone a `getattr` node. Control flow on a Proxy (`bool`, iteration, `len`) raises TraceError.
"""
import operator
import os
import sys
import traceback

from copy import copy as _copy

from . import traceback as fx_traceback
from .graph import Graph
from .node import Node

_EMBER_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class TraceError(ValueError):
    pass


def _user_stack():
    """The formatted stack of the frames outside ember (the user's lines), innermost last."""
    frames = []
    f = sys._getframe(2)
    while f is not None:
        fn = f.f_code.co_filename
        if not fn.startswith(_EMBER_DIR) and not fn.startswith("<eval_with_key>") and "/contextlib.py" not in fn:
            frames.append((fn, f.f_lineno, f.f_code.co_name))
        f = f.f_back
        if len(frames) >= 8:
            break
    if not frames:
        return None
    summary = traceback.StackSummary.from_list([(fn, ln, name, None) for fn, ln, name in reversed(frames)])
    return "".join(summary.format())


class TracerBase:
    """Turns operations on Proxies into Nodes of `self.graph`."""

    graph: Graph
    record_stack_traces = True
    check_mutable_operations = False
    trace_asserts = False
    proxy_buffer_attributes = False
    traced_func_name = "forward"
    scope = None
    module_stack = None

    def create_node(self, kind, target, args, kwargs, name=None, type_expr=None):
        node = self.graph.create_node(kind, target, args, kwargs, name, type_expr)
        current = getattr(self, "_current_meta", None)
        preserved = current is None and fx_traceback.should_preserve_node_meta
        if preserved:
            # inside fx.traceback.preserve_node_meta: the node being run lends its metadata (torch's TracerBase)
            meta = fx_traceback.current_meta
            if meta.get("stack_trace"):
                node.stack_trace = meta["stack_trace"]
            for field in fx_traceback._COPY_META_FIELDS:
                if field in meta:
                    node.meta[field] = _copy(meta[field])
        elif current is not None:       # a Transformer re-emitting a node keeps where it came from
            for k in ("stack_trace", "nn_module_stack"):
                if k in current:
                    node.meta[k] = current[k]
        elif self.record_stack_traces and kind not in ("placeholder", "output"):
            st = _user_stack()
            if st:
                node.stack_trace = st
        if self.module_stack and not preserved:
            node.meta["nn_module_stack"] = dict(self.module_stack)
        return node

    def proxy(self, node):
        return Proxy(node, self)

    def create_proxy(self, kind, target, args, kwargs, name=None, type_expr=None, proxy_factory_fn=None):
        args_ = self.create_arg(args)
        kwargs_ = self.create_arg(kwargs)
        node = self.create_node(kind, target, args_, kwargs_, name, type_expr)
        return self.proxy(node) if proxy_factory_fn is None else proxy_factory_fn(node)

    def create_arg(self, a):
        """Turn a value into something a Node may hold (Proxies become their Nodes)."""
        if isinstance(a, Proxy):
            return a.node
        if isinstance(a, Node):
            return a
        t = type(a)
        if t is tuple:
            return tuple(self.create_arg(e) for e in a)
        if isinstance(a, tuple) and hasattr(a, "_fields"):
            return t(*(self.create_arg(e) for e in a))
        if isinstance(a, tuple):                 # ember.Size and other tuple subclasses: a plain tuple
            return tuple(self.create_arg(e) for e in a)
        if t is list:
            return [self.create_arg(e) for e in a]
        if t is dict:
            out = {}
            for k, v in a.items():
                if not isinstance(k, str):
                    raise TraceError(f"Keys for dictionaries used as an argument cannot contain a Node. Got key: {k}")
                out[k] = self.create_arg(v)
            return out
        if t is slice:
            return slice(self.create_arg(a.start), self.create_arg(a.stop), self.create_arg(a.step))
        if t is range:
            return range(self.create_arg(a.start), self.create_arg(a.stop), self.create_arg(a.step))
        if a is None or a is Ellipsis or t in (bool, int, float, complex, str, bytes):
            return a
        from ember._core.device import device
        from ember._core.dtype import dtype
        from ember._core.memory_format import layout, memory_format
        if isinstance(a, (dtype, device, memory_format, layout)) or callable(a):
            return a
        raise NotImplementedError(f"argument of type: {type(a)}")

    def to_bool(self, obj):
        raise TraceError("symbolically traced variables cannot be used as inputs to control flow")

    def iter(self, obj):
        raise TraceError("Proxy object cannot be iterated. This can be attempted when the Proxy is used in a loop "
                         "or as a *args or **kwargs function argument. See the torch.fx docs on pytorch.org for a "
                         "more detailed explanation of what types of control flow can be traced, and check out the "
                         "Proxy docstring for help troubleshooting Proxy iteration errors")

    def keys(self, obj):
        return Attribute(obj, "keys")()


class GraphAppendingTracer(TracerBase):
    """A tracer that only appends to an existing graph (for Proxies made by hand)."""

    def __init__(self, graph):
        super().__init__()
        self.graph = graph
        self.scope = None
        self.module_stack = {}


class Proxy:
    """torch.fx.Proxy: a value flowing through a symbolic trace; wraps the Node that produces it."""

    def __init__(self, node, tracer=None):
        if tracer is None:
            tracer = GraphAppendingTracer(node.graph)
        self.tracer = tracer
        self.node = node

    def __repr__(self):
        return f"Proxy({self.node.name})"

    def __getattr__(self, k):
        if k.startswith("__") and k.endswith("__"):
            raise AttributeError(k)
        return Attribute(self, k)

    def __getstate__(self):
        return self.__dict__

    def __setstate__(self, d):
        self.__dict__ = d

    def __deepcopy__(self, memo):
        raise TraceError("Proxy objects cannot be deep-copied while tracing")

    def __call__(self, *args, **kwargs):
        return self.tracer.create_proxy("call_method", "__call__", (self,) + args, kwargs)

    def __iter__(self):
        # `a, b = proxy` unpacks by index when the caller's bytecode says how many values it wants
        frame = sys._getframe(1)
        import dis
        insts = list(dis.get_instructions(frame.f_code))
        for i, inst in enumerate(insts):
            if inst.offset == frame.f_lasti:
                for nxt in insts[i:i + 2]:
                    if nxt.opname == "UNPACK_SEQUENCE":
                        return (self[j] for j in range(nxt.argval))
                break
        return self.tracer.iter(self)

    def __bool__(self):
        return self.tracer.to_bool(self)

    def __len__(self):
        raise RuntimeError("'len' is not supported in symbolic tracing by default. If you want this call to be "
                           "recorded, please call ember.fx.wrap('len') at module scope")

    def keys(self):
        return self.tracer.keys(self)

    def __hash__(self):
        return id(self)

    def __index__(self):
        raise TraceError("symbolically traced variables cannot be used as an index (__index__)")


class Attribute(Proxy):
    """`proxy.name`: a call_method when called, a getattr node when used as a value."""

    def __init__(self, root, attr):
        self.root = root
        self.attr = attr
        self.tracer = root.tracer
        self._node = None

    @property
    def node(self):
        if self._node is None:
            self._node = self.tracer.create_proxy("call_function", getattr, (self.root, self.attr), {}).node
        return self._node

    def __call__(self, *args, **kwargs):
        return self.tracer.create_proxy("call_method", self.attr, (self.root,) + args, kwargs)


def _binary(op):
    def impl(self, rhs):
        return self.tracer.create_proxy("call_function", op, (self, rhs), {})

    def rimpl(self, lhs):
        return self.tracer.create_proxy("call_function", op, (lhs, self), {})
    return impl, rimpl


for _name in ("add", "sub", "mul", "floordiv", "truediv", "mod", "pow", "lshift", "rshift", "and_", "or_", "xor",
              "matmul"):
    _op = getattr(operator, _name)
    _impl, _rimpl = _binary(_op)
    _dunder = _name.rstrip("_")
    setattr(Proxy, f"__{_dunder}__", _impl)
    setattr(Proxy, f"__r{_dunder}__", _rimpl)

for _name in ("eq", "ne", "lt", "le", "gt", "ge", "getitem"):
    setattr(Proxy, f"__{_name}__", _binary(getattr(operator, _name))[0])

for _name in ("neg", "pos", "invert", "abs"):
    _op = getattr(operator, _name)
    setattr(Proxy, f"__{_name}__", (lambda op: lambda self: self.tracer.create_proxy("call_function", op,
                                                                                      (self,), {}))(_op))

Proxy.__hash__ = lambda self: id(self)
