"""torch.fx._symbolic_trace: Tracer, symbolic_trace, wrap and PH (symbolic tracing of modules and functions).

The Tracer calls the root's forward with Proxies. While it runs, `Module.__call__` and `Module.__getattr__`
are patched so leaf submodules become `call_module` nodes and parameters/buffers `get_attr` nodes, and the
functions of ember's public namespaces (`ember.*`, `ember.nn.functional.*`, `ember.linalg.*`, ...) plus any
`wrap()`ed function become `call_function` nodes when they receive a Proxy (torch reaches the same result
through `__torch_function__`). Everything is restored when tracing ends.
"""
import builtins
import functools
import inspect
import math
import sys
import types

from ember.nn import Module, Sequential

from .graph import Graph
from .graph_module import GraphModule
from .node import map_aggregate
from .proxy import Proxy, TracerBase

_orig_module_call = Module.__call__
_orig_module_getattr = Module.__getattr__

_wrapped_fns_to_patch = []        # (globals dict, name) registered by wrap()
_wrapped_methods_to_patch = []

_AUTOWRAP_NAMESPACES = ("ember", "ember.nn.functional", "ember.linalg", "ember.special", "ember.fft", "ember._nn",
                        "ember._linalg")
_NOT_WRAPPED = {"is_tensor", "is_grad_enabled", "get_default_dtype", "set_default_dtype", "manual_seed", "seed",
                "initial_seed", "no_grad", "enable_grad", "set_grad_enabled", "inference_mode", "result_type",
                "is_floating_point", "is_complex", "numel", "typename", "is_storage"}


class PHBase:
    """A placeholder marker for concrete_args: this argument stays an input."""

    def __repr__(self):
        return "PH"


PH = PHBase()


def _find_proxy(args, kwargs):
    found = []

    def f(x):
        if isinstance(x, Proxy) and not found:
            found.append(x)
        return x
    map_aggregate(args, f)
    map_aggregate(kwargs, f)
    return found[0] if found else None


def _create_wrapped_func(orig_fn):
    @functools.wraps(orig_fn)
    def wrapped(*args, **kwargs):
        proxy = _find_proxy(args, kwargs)
        if proxy is not None:
            return proxy.tracer.create_proxy("call_function", orig_fn, args, kwargs)
        return orig_fn(*args, **kwargs)
    wrapped.__fx_wrapped__ = orig_fn
    return wrapped


class _Patcher:
    """Set attributes for the length of a trace and restore them afterwards."""

    def __init__(self):
        self.patches = []
        self.visited = set()

    def patch(self, obj, name, new, is_dict=False):
        if is_dict:
            had = name in obj
            self.patches.append((obj, name, obj.get(name), had, True))
            obj[name] = new
        else:
            had = name in obj.__dict__ if hasattr(obj, "__dict__") else True
            self.patches.append((obj, name, getattr(obj, name, None), had, False))
            setattr(obj, name, new)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        while self.patches:
            obj, name, old, had, is_dict = self.patches.pop()
            if is_dict:
                if had:
                    obj[name] = old
                else:
                    del obj[name]
            elif had:
                setattr(obj, name, old)
            else:
                delattr(obj, name)


def _autowrap_table():
    """id(function) -> function for every public ember function that may receive a Proxy."""
    table = {}
    for modname in _AUTOWRAP_NAMESPACES:
        mod = sys.modules.get(modname)
        if mod is None:
            try:
                mod = __import__(modname, fromlist=["_"])
            except ImportError:
                continue
        for name in getattr(mod, "_BINDINGS", ()):   # ember's generated bindings load on first access: load
            getattr(mod, name)                        # them, so that the loop below sees and wraps every one
        for name, fn in list(vars(mod).items()):
            if name.startswith("__") or name in _NOT_WRAPPED:
                continue
            if isinstance(fn, types.FunctionType) and not hasattr(fn, "__fx_wrapped__"):
                table.setdefault(id(fn), (fn, []))[1].append((mod, name))
    return table


class Tracer(TracerBase):
    """torch.fx.Tracer: symbolic tracing of an nn.Module or function into a Graph."""

    def __init__(self, autowrap_modules=(math,), autowrap_functions=(), param_shapes_constant=False):
        super().__init__()
        self._autowrap_function_ids = {id(v) for m in autowrap_modules for k, v in vars(m).items()
                                       if not k.startswith("_") and callable(v)}
        self._autowrap_function_ids.update(id(f) for f in autowrap_functions)
        self._autowrap_search = list(autowrap_modules)
        self.param_shapes_constant = param_shapes_constant
        self.submodule_paths = None
        self.root = None
        self.module_stack = {}
        self.scope = None

    # -- policies a subclass may override
    def is_leaf_module(self, m, module_qualified_name):
        """ember.nn's own modules (except Sequential) are leaves; user modules are traced through."""
        return (m.__module__.startswith("ember.nn") or m.__module__.startswith("ember.ao.nn")) \
            and not isinstance(m, Sequential)

    def path_of_module(self, mod):
        if self.submodule_paths is None:
            self.submodule_paths = {id(m): n for n, m in self.root.named_modules(remove_duplicate=False)}
        path = self.submodule_paths.get(id(mod))
        if path is None:
            raise NameError("module is not installed as a submodule")
        return path

    def call_module(self, m, forward, args, kwargs):
        module_qualified_name = self.path_of_module(m)
        old = dict(self.module_stack)
        self.module_stack[module_qualified_name] = (module_qualified_name, type(m))
        try:
            if not self.is_leaf_module(m, module_qualified_name):
                return forward(*args, **kwargs)
            return self.create_proxy("call_module", module_qualified_name, args, kwargs)
        finally:
            self.module_stack = old

    def getattr(self, attr, attr_val, parameter_proxy_cache):
        from ember import Tensor
        if not isinstance(attr_val, Tensor):
            return attr_val
        if id(attr_val) in parameter_proxy_cache:
            return parameter_proxy_cache[id(attr_val)]
        for n, p in self.root.named_parameters():
            if attr_val is p:
                proxy = self.create_proxy("get_attr", n, (), {})
                parameter_proxy_cache[id(attr_val)] = proxy
                return proxy
        for n, b in self.root.named_buffers():
            if attr_val is b:
                proxy = self.create_proxy("get_attr", n, (), {})
                parameter_proxy_cache[id(attr_val)] = proxy
                return proxy
        return attr_val

    def create_arg(self, a):
        from ember import Tensor
        from ember.nn import Parameter
        if isinstance(a, Parameter):
            for n, p in self.root.named_parameters():
                if a is p:
                    return self.create_node("get_attr", n, (), {})
            raise NameError("parameter is not a member of this module")
        if isinstance(a, Module):
            raise NameError(f"Module {type(a).__name__} is not installed as a submodule of the traced root")
        if isinstance(a, Tensor):
            for n_, p_ in self.root.named_buffers():
                if a is p_:
                    return self.create_node("get_attr", n_, (), {})
            qualname = self.tensor_attrs.get(id(a))
            if qualname is None:
                i = 0
                while hasattr(self.root, f"_tensor_constant{i}"):
                    i += 1
                qualname = f"_tensor_constant{i}"
                setattr(self.root, qualname, a)
                self.tensor_attrs[id(a)] = qualname
            return self.create_node("get_attr", qualname, (), {})
        return super().create_arg(a)

    # -- tracing
    def create_args_for_root(self, root_fn, is_module, concrete_args=None):
        fn_for_analysis = inspect.unwrap(root_fn)
        sig = inspect.signature(fn_for_analysis)
        params = list(sig.parameters.values())
        skip = 1 if is_module else 0
        concrete_args = concrete_args or {}
        if isinstance(concrete_args, tuple):
            names = [p.name for p in params[skip:]]
            concrete_args = dict(zip(names, concrete_args))
        args = []
        for p in params[skip:]:
            if p.kind is p.VAR_KEYWORD:
                raise NotImplementedError("symbolic_trace: **kwargs in the traced signature is not supported by "
                                          "ember.fx; pass concrete_args or trace a wrapper with named arguments")
            if p.name in concrete_args and concrete_args[p.name] is not PH:
                val = concrete_args[p.name]
                self.create_proxy("placeholder", p.name, (val,), {}, type_expr=None)
                args.append(val)
                continue
            default = () if p.default is inspect.Parameter.empty else (p.default,)
            ann = None if p.annotation is inspect.Parameter.empty else p.annotation
            target = ("*" + p.name) if p.kind is p.VAR_POSITIONAL else p.name
            proxy = self.create_proxy("placeholder", target, default, {}, type_expr=ann)
            args.append(proxy)
        if any(p.kind is p.VAR_POSITIONAL for p in params[skip:]):
            *head, star = args
            return root_fn, head, star
        return root_fn, args, None

    def trace(self, root, concrete_args=None):
        """Trace root (an nn.Module or a function) into a Graph."""
        if isinstance(root, Module):
            self.root = root
            fn = type(root).forward
            self.traced_func_name = "forward"
        else:
            self.root = Module()
            fn = root
            self.traced_func_name = getattr(fn, "__name__", "forward")
        self.submodule_paths = None
        tracer_cls = getattr(self, "__class__", None)
        self.graph = Graph(tracer_cls=tracer_cls)
        self.tensor_attrs = {}
        for name, v in _all_tensor_attrs(self.root):
            self.tensor_attrs.setdefault(id(v), name)
        fn_globals = getattr(inspect.unwrap(fn), "__globals__", {})
        fn, args, star = self.create_args_for_root(fn, isinstance(root, Module), concrete_args)
        if isinstance(root, Module):
            args = [root] + list(args)
        parameter_proxy_cache = {}
        tracer = self

        def module_getattr_wrapper(mod, attr):
            attr_val = _orig_module_getattr(mod, attr)
            return tracer.getattr(attr, attr_val, parameter_proxy_cache)

        def module_call_wrapper(mod, *args, **kwargs):
            def forward(*args, **kwargs):
                return _orig_module_call(mod, *args, **kwargs)
            return tracer.call_module(mod, forward, args, kwargs)

        with _Patcher() as patcher:
            patcher.patch(Module, "__getattr__", module_getattr_wrapper)
            patcher.patch(Module, "__call__", module_call_wrapper)
            self._patch_wrapped_functions(patcher, fn_globals)
            out = fn(*args, *(star if star is not None else ()))
            self.create_node("output", "output", (self.create_arg(out),), {},
                             type_expr=fn.__annotations__.get("return", None) if hasattr(fn, "__annotations__")
                             else None)
        self.submodule_paths = None
        return self.graph

    def _patch_wrapped_functions(self, patcher, fn_globals):
        wrappers = {}
        for (globals_, name) in _wrapped_fns_to_patch:
            orig = globals_.get(name, getattr(builtins, name, None))
            if orig is None:
                continue
            w = wrappers.setdefault(id(orig), _create_wrapped_func(orig))
            patcher.patch(globals_, name, w, is_dict=True)
        for cls, name in _wrapped_methods_to_patch:
            orig = getattr(cls, name)
            patcher.patch(cls, name, _create_wrapped_func(orig))
        table = _autowrap_table()
        for fid, (fn, places) in table.items():
            w = wrappers.setdefault(fid, _create_wrapped_func(fn))
            for mod, name in places:
                patcher.patch(mod, name, w)
        # functions imported by name into the traced code's module, and autowrap_modules (math)
        for name, value in list(fn_globals.items()):
            if name.startswith("__"):
                continue
            if id(value) in table or id(value) in self._autowrap_function_ids:
                w = wrappers.setdefault(id(value), _create_wrapped_func(value))
                patcher.patch(fn_globals, name, w, is_dict=True)
        for m in self._autowrap_search:
            for name, value in list(vars(m).items()):
                if id(value) in self._autowrap_function_ids and callable(value) and not name.startswith("_"):
                    w = wrappers.setdefault(id(value), _create_wrapped_func(value))
                    patcher.patch(m, name, w)


def _all_tensor_attrs(root):
    from ember import Tensor
    for mname, m in root.named_modules():
        for k, v in m.__dict__.items():
            if isinstance(v, Tensor):
                yield (f"{mname}.{k}" if mname else k), v


def wrap(fn_or_name):
    """Make calls to a module-level function leaves of symbolic tracing (call_function nodes)."""
    if callable(fn_or_name):
        fn_name = fn_or_name.__name__
    elif isinstance(fn_or_name, str):
        fn_name = fn_or_name
    else:
        raise AssertionError("Unsupported type for global function! Must be either a callable or string name")
    currentframe = inspect.currentframe()
    f = currentframe.f_back
    if f.f_code.co_name != "<module>":
        raise NotImplementedError("wrap must be called at the top level of a module")
    _wrapped_fns_to_patch.append((f.f_globals, fn_name))
    return fn_or_name


def symbolic_trace(root, concrete_args=None):
    """Trace an nn.Module or function into a GraphModule (torch.fx.symbolic_trace)."""
    tracer = Tracer()
    graph = tracer.trace(root, concrete_args)
    name = root.__class__.__name__ if isinstance(root, Module) else root.__name__
    return GraphModule(tracer.root, graph, name)
