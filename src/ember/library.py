"""Custom operators: `ember.library.Library` (define/impl) and the `custom_op` decorator (torch/library.py).

Custom ops live in the same registry as aten's, appear under `ember.ops.<ns>` and dispatch exactly
like built-ins. `register_fake` gives an op its Meta kernel (ember's fake tensors are meta tensors).
"""
from ._core.unimplemented import missing_attribute as _missing_attribute
import inspect
import typing

from . import _ops
from ._core.dispatch_keys import DispatchKey
from ._schema import FunctionSchema

__all__ = ["Library", "custom_op", "define", "impl", "register_fake", "CustomOpDef"]

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
        if with_keyset:
            raw = fn

            def fn(*args, **kwargs):
                return raw(None, *args, **kwargs)
        _ops.register_kernel(entry, key, fn)
        self._impls.append((entry, key))

    def fallback(self, fn, dispatch_key="", *, with_keyset=False):
        raise NotImplementedError("Library.fallback: boxed per-namespace fallbacks are not supported yet")

    def _destroy(self):
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
        self._lib.impl(self._name, fn, "Meta")
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


def register_fake(op, fn=None, *, lib=None):
    def reg(f):
        if isinstance(op, CustomOpDef):
            return op.register_fake(f)
        if isinstance(op, _ops.OpOverload):
            _ops.register_kernel(op._entry, DispatchKey.Meta, f)
            return f
        ns, name = op.split("::", 1)
        (lib or _fragment(ns)).impl(name, f, "Meta")
        return f
    return reg(fn) if fn is not None else reg


def __getattr__(name):   # torch names ember lacks say so (see ember/_core/unimplemented.py)
    return _missing_attribute(__name__, name)
