"""Custom operators: `ember.library.Library` (define/impl) and the `custom_op` decorator (torch/library.py).

Custom ops live in the same registry as aten's, appear under `ember.ops.<ns>` and dispatch exactly
like built-ins. `register_fake` gives an op its Meta kernel (ember's fake tensors are meta tensors); inside it
`get_ctx()` returns a FakeImplCtx under FakeTensorMode (torch/_library/fake_impl.py). `fallthrough_kernel`
registered for a key makes the op skip that key.
"""
from ._core.unimplemented import missing_attribute as _missing_attribute
import inspect
import typing

from . import _ops
from ._core.dispatch_keys import DispatchKey
from ._schema import FunctionSchema

__all__ = ["Library", "custom_op", "define", "impl", "register_fake", "CustomOpDef", "get_ctx", "impl_abstract",
           "fallthrough_kernel", "register_torch_dispatch"]

_DEF_NAMESPACES = set()


def _key(dispatch_key):
    if not dispatch_key:
        return DispatchKey.CompositeImplicitAutograd
    if isinstance(dispatch_key, DispatchKey):
        return dispatch_key
    try:
        return DispatchKey[dispatch_key]
    except KeyError:
        raise ValueError(f"unknown dispatch key {dispatch_key!r}; expected one of "
                         f"{[k.name for k in DispatchKey]}") from None


class Library:
    """A handle for registering into namespace `ns`: kind "DEF" (owns it), "IMPL" or "FRAGMENT"."""

    def __init__(self, ns, kind, dispatch_key=""):
        if kind not in ("DEF", "IMPL", "FRAGMENT"):
            raise ValueError(f"Unsupported kind: {kind}; expected DEF, IMPL or FRAGMENT")
        if not ns.isidentifier():
            raise ValueError(f"namespace {ns!r} is not a valid identifier")
        if kind == "DEF":
            if ns in _DEF_NAMESPACES or ns == "aten":
                raise RuntimeError(f"Only a single Library(ns, 'DEF') is allowed per namespace; {ns!r} already has one. "
                                   "Use Library(ns, 'FRAGMENT') to add more definitions.")
            _DEF_NAMESPACES.add(ns)
        self.ns, self.kind, self.dispatch_key = ns, kind, dispatch_key
        self._defs = []
        self._impls = []
        self._torch_dispatch_rules = []

    def define(self, schema, alias_analysis="", *, tags=()):
        if self.kind == "IMPL":
            raise RuntimeError("Library(ns, 'IMPL') cannot define operators; use 'DEF' or 'FRAGMENT'")
        parsed = FunctionSchema.parse(schema)
        text = str(parsed)
        if parsed.name.name.namespace:
            text = text.split("::", 1)[1]
        entry = _ops.define(self.ns, text, tags=tags, owner=self)
        self._defs.append(entry)
        return str(parsed.name)

    def impl(self, op_name, fn, dispatch_key="", *, with_keyset=False):
        if isinstance(op_name, _ops.OpOverload):
            entry = op_name._entry
        else:
            name = op_name.split("::", 1)[-1]
            base, _, overload = name.partition(".")
            entry = _ops.lookup(self.ns, base, "" if overload in ("", "default") else overload)
        key = _key(dispatch_key or self.dispatch_key)
        if fn is fallthrough_kernel:
            fn = _ops.FALLTHROUGH
        elif with_keyset:
            raw = fn

            def fn(*args, **kwargs):
                return raw(None, *args, **kwargs)
        _ops.register_kernel(entry, key, fn)
        self._impls.append((entry, key))

    def fallback(self, fn, dispatch_key="", *, with_keyset=False):
        raise NotImplementedError("Library.fallback: boxed per-namespace fallbacks are not supported yet")

    def _destroy(self):
        from ._dispatch.modes import TORCH_DISPATCH_RULES
        for qualname, cls in self._torch_dispatch_rules:
            TORCH_DISPATCH_RULES.get(qualname, {}).pop(cls, None)
        self._torch_dispatch_rules = []
        for entry, key in self._impls:
            _ops.deregister_kernel(entry, key)
        for entry in self._defs:
            ns, rest = entry.qualname.split("::", 1)
            name, _, ov = rest.partition(".")
            by_name = _ops._REGISTRY.get(f"{ns}::{name}", {})
            by_name.pop(ov, None)
            if not by_name:
                _ops._REGISTRY.pop(f"{ns}::{name}", None)
                _ops._PACKETS.pop(f"{ns}::{name}", None)
                nsobj = _ops.ops._namespaces.get(ns)
                if nsobj is not None and name in nsobj.__dict__:
                    delattr(nsobj, name)
        if self.kind == "DEF":
            _DEF_NAMESPACES.discard(self.ns)
        self._defs, self._impls = [], []


_LIBS = {}


def _fragment(ns):
    lib = _LIBS.get(ns)
    if lib is None:
        lib = _LIBS[ns] = Library(ns, "FRAGMENT")
    return lib


def define(qualname, schema, *, lib=None, tags=()):
    ns, name = qualname.split("::", 1)
    return (lib or _fragment(ns)).define(name + schema, tags=tags)


def impl(qualname, types, func=None, *, lib=None):
    ns, name = qualname.split("::", 1)
    keys = [types] if isinstance(types, str) else list(types)

    def register(fn):
        for t in keys:
            (lib or _fragment(ns)).impl(name, fn, {"cpu": "CPU", "meta": "Meta"}.get(t, t))
        return fn
    return register(func) if func is not None else register


# ---------------------------------------------------------------- custom_op
def _schema_type(ann, name):
    from ._core.tensor_impl import TensorImpl as Tensor
    opt = False
    origin = typing.get_origin(ann)
    if origin is typing.Union:
        args = [a for a in typing.get_args(ann) if a is not type(None)]
        if len(args) == 1:
            ann, opt = args[0], True
            origin = typing.get_origin(ann)
    if isinstance(ann, type) and issubclass(ann, Tensor):
        t = "Tensor"
    elif ann is int:
        t = "SymInt"
    elif ann is float:
        t = "float"
    elif ann is bool:
        t = "bool"
    elif ann is str:
        t = "str"
    elif origin in (list, typing.Sequence) or origin is getattr(__import__("collections.abc").abc, "Sequence"):
        (elem,) = typing.get_args(ann)
        t = _schema_type(elem, name) + "[]"
    else:
        raise ValueError(f"custom_op: parameter {name!r} has unsupported type annotation {ann!r}; "
                         "expected Tensor, int, float, bool, str, a list of those, or Optional[...]")
    return t + ("?" if opt else "")


def infer_schema(fn, mutates_args=()):
    sig = inspect.signature(fn)
    hints = typing.get_type_hints(fn)
    params = []
    kw = False
    for p in sig.parameters.values():
        if p.name not in hints:
            raise ValueError(f"custom_op: parameter {p.name!r} needs a type annotation")
        t = _schema_type(hints[p.name], p.name)
        if p.name in mutates_args:
            if not t.startswith("Tensor"):
                raise ValueError(f"custom_op: mutated argument {p.name!r} must be a Tensor")
            t = "Tensor(a!)" if t == "Tensor" else t
        if p.kind == p.KEYWORD_ONLY and not kw:
            params.append("*")
            kw = True
        d = "" if p.default is p.empty else "=" + ("None" if p.default is None else repr(p.default))
        params.append(f"{t} {p.name}{d}")
    ret = hints.get("return", type(None))
    from ._core.tensor_impl import TensorImpl as Tensor
    if ret is type(None):
        rs = "()"
    elif isinstance(ret, type) and issubclass(ret, Tensor):
        rs = "Tensor"
    elif typing.get_origin(ret) is tuple:
        rs = "(" + ", ".join(_schema_type(a, "return") for a in typing.get_args(ret)) + ")"
    elif typing.get_origin(ret) is list:
        rs = "Tensor[]"
    else:
        raise ValueError(f"custom_op: unsupported return annotation {ret!r}")
    return "(" + ", ".join(params) + ") -> " + rs


class CustomOpDef:
    def __init__(self, ns, name, schema, fn, device_types):
        self._ns, self._name = ns, name
        self._lib = _fragment(ns)
        self._lib.define(name + schema)
        self._opoverload = getattr(getattr(_ops.ops, ns), name).default
        keys = ["CompositeExplicitAutograd"] if device_types is None else \
            [{"cpu": "CPU", "meta": "Meta"}[d] for d in ([device_types] if isinstance(device_types, str) else device_types)]
        for k in keys:
            self._lib.impl(name, fn, k)
        self.__name__ = name
        self.__doc__ = fn.__doc__

    def register_fake(self, fn):
        self._lib.impl(self._name, _fake_kernel(f"{self._ns}::{self._name}", fn), "Meta")
        return fn

    def register_kernel(self, device_types, fn=None):
        def reg(f):
            for d in [device_types] if isinstance(device_types, str) else device_types:
                self._lib.impl(self._name, f, {"cpu": "CPU", "meta": "Meta"}[d])
            return f
        return reg(fn) if fn is not None else reg

    def __call__(self, *args, **kwargs):
        return self._opoverload(*args, **kwargs)


def custom_op(name, fn=None, /, *, mutates_args, device_types=None, schema=None):
    """Decorator turning a Python function into an operator `ns::name` (torch.library.custom_op)."""
    if mutates_args != "unknown" and not isinstance(mutates_args, (tuple, list, set, frozenset)):
        raise TypeError("custom_op: mutates_args must be an iterable of argument names (or 'unknown')")
    ns, _, opname = name.partition("::")
    if not opname:
        raise ValueError(f"custom_op: name must look like 'namespace::opname', got {name!r}")

    def wrap(f):
        s = schema if schema is not None else infer_schema(f, () if mutates_args == "unknown" else mutates_args)
        return CustomOpDef(ns, opname, s, f, device_types)
    return wrap(fn) if fn is not None else wrap


def fallthrough_kernel():
    """A dummy function to pass to ``Library.impl`` in order to register a fallthrough."""
    raise NotImplementedError("fallthrough_kernel() should never be called.")


# ---------------------------------------------------------------- fake impls and their context
def _no_ctx():
    return None


_ctx_getter = [_no_ctx]


def get_ctx():
    """The FakeImplCtx of the fake impl being run (None outside one); see torch.library.get_ctx."""
    return _ctx_getter[0]()


class FakeImplCtx:
    """Context object for writing fake implementations for custom operators (torch._library.fake_impl)."""

    def __init__(self, _fake_mode, _op):
        self._fake_mode = _fake_mode
        self._shape_env = getattr(_fake_mode, "shape_env", None)
        self._op = _op

    def new_dynamic_size(self, *, min=0, max=None):
        """A symbolic size for a data-dependent output dimension. Needs a ShapeEnv that allows dynamic output
        shapes; ember's ShapeEnv has no unbacked symbols, so with one this raises NotImplementedError."""
        if self._shape_env is None or not getattr(self._shape_env, "allow_dynamic_output_shape_ops", False):
            # the fake mode's own exception class (ember._subclasses.fake_tensor, loaded with the mode)
            import sys
            raise sys.modules[type(self._fake_mode).__module__].DynamicOutputShapeException(self._op)
        raise NotImplementedError("torch.library.get_ctx().new_dynamic_size: unbacked symbolic sizes are not "
                                  "supported by ember's ShapeEnv")

    def create_unbacked_symint(self, *, min=2, max=None):
        import warnings
        warnings.warn("`create_unbacked_symint` is deprecated, please use `new_dynamic_size` instead",
                      FutureWarning, stacklevel=2)
        return self.new_dynamic_size(min=min, max=max)


def _fake_kernel(qualname, fn):
    """The Meta kernel running fake impl `fn`: get_ctx() inside it is a FakeImplCtx when the arguments are
    FakeTensors, an error for plain meta tensors (torch's construct_meta_kernel)."""
    code = getattr(fn, "__code__", None)
    source = f"{code.co_filename}:{code.co_firstlineno}" if code is not None else repr(fn)

    def error_on_ctx():
        raise RuntimeError(
            f"{qualname} ({source}): You're trying to run this operator with meta Tensors (as opposed to "
            f"FakeTensors), but this operator may return an output Tensor with data-dependent shape. Meta Tensors "
            f"don't support operators with outputs that have data-dependent shapes but FakeTensors do. If your "
            f"operator does not return an output with data-dependent shape, make sure the FakeTensor and/or meta "
            f"kernel does not call torch.library.get_ctx(). Otherwise, please use FakeTensors.")

    def meta_kernel(*args, **kwargs):
        mode = next((a.fake_mode for a in (*args, *kwargs.values()) if getattr(a, "fake_mode", None) is not None),
                    None)
        prev = _ctx_getter[0]
        if mode is None:
            _ctx_getter[0] = error_on_ctx
        else:
            ctx = FakeImplCtx(mode, _op_of(qualname))
            _ctx_getter[0] = lambda: ctx
        try:
            return fn(*args, **kwargs)
        finally:
            _ctx_getter[0] = prev
    meta_kernel.__wrapped__ = fn
    return meta_kernel


def _op_of(qualname):
    ns, rest = qualname.split("::", 1)
    name, _, ov = rest.partition(".")
    return getattr(getattr(getattr(_ops.ops, ns), name), ov or "default")


def register_fake(op, fn=None, *, lib=None):
    def reg(f):
        if isinstance(op, CustomOpDef):
            return op.register_fake(f)
        if isinstance(op, _ops.OpOverload):
            _ops.register_kernel(op._entry, DispatchKey.Meta, _fake_kernel(op._entry.qualname, f))
            return f
        ns, name = op.split("::", 1)
        (lib or _fragment(ns)).impl(name, _fake_kernel(op, f), "Meta")
        return f
    return reg(fn) if fn is not None else reg


def register_torch_dispatch(op, torch_dispatch_class, func=None, /, *, lib=None):
    """Register `func(mode_or_class, func, types, args, kwargs)` as op's rule for `torch_dispatch_class` (a
    TorchDispatchMode class or a tensor subclass): under that mode (or for that subclass) the op runs the rule
    instead of the class's __torch_dispatch__."""
    from ._dispatch.modes import TORCH_DISPATCH_RULES
    if isinstance(op, CustomOpDef):
        qualname = f"{op._ns}::{op._name}"
    elif isinstance(op, _ops.OpOverload):
        qualname = op._entry.qualname
    elif isinstance(op, str):
        qualname = op[:-len(".default")] if op.endswith(".default") else op
    else:
        raise ValueError(f"register_torch_dispatch(op): got unexpected type for op: {type(op)}")

    def register(fn):
        rules = TORCH_DISPATCH_RULES.setdefault(qualname, {})
        if torch_dispatch_class in rules:
            raise RuntimeError(f"{torch_dispatch_class} already has a `__torch_dispatch__` rule registered for "
                               f"{qualname}")
        rules[torch_dispatch_class] = fn
        _ops.clear_dispatch_caches()
        if lib is not None:
            lib._torch_dispatch_rules.append((qualname, torch_dispatch_class))
        return fn
    return register(func) if func is not None else register


def impl_abstract(qualname, func=None, *, lib=None, _stacklevel=1):
    """Deprecated name of register_fake (torch 2.4 renamed it)."""
    import warnings
    warnings.warn("`torch.library.impl_abstract` was renamed to `torch.library.register_fake`. Please use that "
                  "instead; we will remove `torch.library.impl_abstract` in a future version of PyTorch.",
                  FutureWarning, stacklevel=2)
    return register_fake(qualname, func, lib=lib)


def __getattr__(name):   # torch names ember lacks say so (see ember/_core/unimplemented.py)
    return _missing_attribute(__name__, name)
