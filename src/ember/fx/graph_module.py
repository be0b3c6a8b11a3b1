"""torch.fx.graph_module: GraphModule, an nn.Module whose forward is Python generated from a Graph.

`recompile()` generates the source, registers it with `linecache` (so tracebacks and `inspect` show the
generated lines) and execs it as the `forward` of a class made for this one instance. A GraphModule
survives `copy.deepcopy` and pickling: the graph pickles as a list of node records, and OpOverload
targets pickle by their qualified name.
"""
import copy
import copyreg
import itertools
import linecache
import sys

from ember._ops import OpOverload, OpOverloadPacket, ops
from ember.nn import Module

from .graph import Graph

_next_id = itertools.count()


def _load_overload(ns, name, overload):
    return getattr(getattr(getattr(ops, ns), name), overload)


def _load_packet(ns, name):
    return getattr(getattr(ops, ns), name)


copyreg.pickle(OpOverload, lambda op: (_load_overload, (op.namespace, op._packet.__name__, op._overloadname)))
copyreg.pickle(OpOverloadPacket, lambda p: (_load_packet, (p._ns, p.__name__)))


def _exec_with_source(src, globals_):
    key = f"<eval_with_key>.{next(_next_id)}"
    linecache.cache[key] = (len(src), None, src.splitlines(True), key)
    exec(compile(src, key, "exec"), globals_)
    return key


def _forward_from_src(src, globals_):
    globals_copy = dict(globals_)
    _exec_with_source(src, globals_copy)
    return globals_copy["forward"]


_lazy_recompile = [False]


class _use_lazy_graph_module:
    """torch.fx._lazy_graph_module._use_lazy_graph_module: GraphModules made inside this context generate their
    code when first needed (a call, `.code`, `print`) instead of at construction. For graphs that are only
    transformed (AOT autograd's joint graph, which is partitioned and never run)."""

    def __init__(self, enable=True):
        self.enable = enable

    def __enter__(self):
        self.prev = _lazy_recompile[0]
        _lazy_recompile[0] = self.enable

    def __exit__(self, *exc):
        _lazy_recompile[0] = self.prev


def _lazy_forward(self, *args, **kwargs):
    """The forward of a GraphModule whose code is not generated yet: generate it, then run it."""
    self.real_recompile()
    return type(self).forward(self, *args, **kwargs)


def _copy_attr(from_module, to_module, target):
    """Copy from_module's attribute at dotted `target` into to_module, creating empty Modules on the way."""
    *prefix, field = target.split(".")
    for item in prefix:
        f = getattr(from_module, item)
        t = getattr(to_module, item, None)
        if f is t:
            return
        if t is None:
            t = Module()
            setattr(to_module, item, t)
        from_module, to_module = f, t
    orig = getattr(from_module, field)
    from ember import Tensor
    from ember.nn import Parameter
    if isinstance(orig, Tensor) and not isinstance(orig, Parameter):
        to_module.register_buffer(field, orig)
    else:
        setattr(to_module, field, orig)


def _assign_attr(from_obj, to_module, target):
    *prefix, field = target.split(".")
    for item in prefix:
        t = getattr(to_module, item, None)
        if t is None:
            t = Module()
            setattr(to_module, item, t)
        to_module = t
    from ember import Tensor
    from ember.nn import Parameter
    if isinstance(from_obj, Tensor) and not isinstance(from_obj, Parameter):
        to_module.register_buffer(field, from_obj)
    else:
        setattr(to_module, field, from_obj)


class GraphModule(Module):
    """torch.fx.GraphModule: holds `graph` and the submodules/attributes it references; `code` is its forward."""

    def __new__(cls, *args, **kwargs):
        # each instance gets its own class, so assigning `forward` on recompile affects only this instance
        for t in cls.__mro__:
            c = t.__qualname__.split(".")[-1]
            if c != "GraphModuleImpl":
                cls = t
                break

        class GraphModuleImpl(cls):
            pass
        return super().__new__(GraphModuleImpl)

    def __init__(self, root, graph, class_name="GraphModule"):
        super().__init__()
        self.__class__.__name__ = class_name
        if isinstance(root, Module):
            if hasattr(root, "training"):
                self.training = root.training
            for node in graph.nodes:
                if node.op in ("get_attr", "call_module"):
                    _copy_attr(root, self, node.target)
        elif isinstance(root, dict):
            targets = [n.target for n in graph.nodes if n.op in ("get_attr", "call_module")]
            for target in sorted(targets, key=lambda t: t.count(".")):
                if target not in root:
                    raise RuntimeError(f"Node {target} referenced target {target} but that target was not "
                                       f"provided in ``root``!")
                _assign_attr(root[target], self, target)
        else:
            raise RuntimeError(f"Unsupported type {root} passed for root!")
        self.graph = graph
        self.meta = getattr(root, "meta", {}) if isinstance(root, Module) else {}
        self._tracer_cls = graph._tracer_cls

    @property
    def graph(self):
        return self._graph

    @graph.setter
    def graph(self, g):
        if not isinstance(g, Graph):
            raise TypeError(f"Expected a Graph instance, but got {type(g)}")
        self.__dict__["_graph"] = g
        g.owning_module = self
        if _lazy_recompile[0]:
            self.__dict__.pop("_code", None)
            type(self).forward = _lazy_forward
            type(self).__call__ = _wrapped_call
        else:
            self.recompile()

    @property
    def code(self):
        if "_code" not in self.__dict__ and type(self).forward is _lazy_forward:
            self.real_recompile()
        if not hasattr(self, "_code"):
            raise RuntimeError("Code has not been generated! Please report a bug to PyTorch")
        return self._code

    def real_recompile(self):
        """Generate the code now (what a lazily built GraphModule does when first needed)."""
        return GraphModule.recompile(self)

    def recompile(self):
        """Regenerate `code` from `graph` and install it as this instance's `forward`."""
        python_code = self._graph.python_code(root_module="self")
        self.__dict__["_code"] = python_code.src
        self.__dict__["_lineno_map"] = python_code._lineno_map
        cls = type(self)
        cls.forward = _forward_from_src(python_code.src, python_code.globals)
        cls.__call__ = _wrapped_call
        return python_code

    def print_readable(self, print_output=True, include_stride=False, include_device=False, colored=False):
        """The module as a class definition (its submodules' GraphModules nested), printed and returned."""
        name = self.__class__.__name__
        body = self.code.strip("\n")
        out = f"class {name}(ember.nn.Module):\n" + "\n".join("    " + ln if ln else ln
                                                               for ln in body.splitlines()) + "\n"
        if print_output:
            print(out)
        return out

    def __str__(self):
        orig = super().__str__()
        return "\n".join([orig, self.code])

    def __copy__(self):
        res = GraphModule(self, self.graph, self.__class__.__name__)
        res.meta = getattr(self, "meta", {})
        return res

    def __deepcopy__(self, memo):
        res = Module.__new__(Module)
        memo[id(self)] = res
        fake = Module()
        skip = ("_graph", "_code", "_lineno_map")
        fake.__dict__.update({k: copy.deepcopy(v, memo) for k, v in self.__dict__.items() if k not in skip})
        graph = copy.deepcopy(self._graph)
        new = GraphModule(fake, graph, self.__class__.__name__)
        for k, v in fake.__dict__.items():     # plain attributes (not referenced by the graph) come along
            if k not in new.__dict__:
                new.__dict__[k] = v
        for k in ("_modules", "_parameters", "_buffers"):
            for name, v in fake.__dict__[k].items():
                new.__dict__[k].setdefault(name, v)
        res.__class__ = new.__class__
        res.__dict__ = new.__dict__
        res.graph.owning_module = res
        return res

    def __reduce__(self):
        state = {k: v for k, v in self.__dict__.items() if k not in ("_code", "_lineno_map")}
        return (_reduce_graph_module, (self.__class__.__name__, state))

    def add_submodule(self, target, m):
        *prefix, field = target.split(".")
        mod = self
        for item in prefix:
            sub = getattr(mod, item, None)
            if sub is None:
                sub = Module()
                mod.add_module(item, sub)
            if not isinstance(sub, Module):
                return False
            mod = sub
        mod.add_module(field, m)
        return True

    def delete_submodule(self, target):
        *path, name = target.split(".")
        mod = self
        for item in path:
            if not hasattr(mod, item):
                return False
            mod = getattr(mod, item)
        if not hasattr(mod, name) or not isinstance(getattr(mod, name), Module):
            return False
        delattr(mod, name)
        return True

    def delete_all_unused_submodules(self):
        used = set()
        for node in self.graph.nodes:
            if node.op in ("call_module", "get_attr"):
                atoms = node.target.split(".")
                for i in range(1, len(atoms) + 1):
                    used.add(".".join(atoms[:i]))
        for name, _ in list(self.named_modules()):
            if name and name not in used:
                self.delete_submodule(name)


def _wrapped_call(self, *args, **kwargs):
    try:
        return Module.__call__(self, *args, **kwargs)   # looked up per call: tracers patch it
    except Exception as e:
        tb = e.__traceback__
        while tb is not None and not tb.tb_frame.f_code.co_filename.startswith("<eval_with_key>"):
            tb = tb.tb_next
        if tb is not None and not getattr(e, "_fx_noted", False):
            lines = linecache.getlines(tb.tb_frame.f_code.co_filename)
            lineno = tb.tb_lineno
            ctx = "".join(("--> " if i + 1 == lineno else "    ") + lines[i]
                          for i in range(max(0, lineno - 3), min(len(lines), lineno + 2)))
            msg = f"Call using an FX-traced Module, line {lineno} of the traced Module's generated forward " \
                  f"function:\n{ctx}"
            print(msg, file=sys.stderr)
            e._fx_noted = True
        raise


def _reduce_graph_module(class_name, state):
    root = Module()
    graph = state["_graph"]
    for k, v in state.items():
        if k != "_graph":
            root.__dict__[k] = v
    gm = GraphModule(root, Graph(), class_name)
    gm.__dict__.update({k: v for k, v in state.items() if k != "_graph"})
    gm.graph = graph
    return gm


