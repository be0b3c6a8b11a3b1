"""torch.overrides: the Python side of the `__torch_function__` protocol.

The protocol (torch's "Extending torch with a Tensor-like type"): every public function, Tensor method and property
of ember first looks at its tensor arguments; an argument whose type defines `__torch_function__` (a Tensor subclass,
or any object: duck-typed arrays, wrappers), or a TorchFunctionMode pushed with `with mode:`, gets the call as
`__torch_function__(func, types, args, kwargs)` instead. Order: the innermost mode first (popped while it runs),
then the overloaded arguments left to right with subclasses before their superclasses; the first result that is
not NotImplemented is the result, and when all are NotImplemented the call raises TypeError. The default
`Tensor.__torch_function__` runs the function with the protocol off for subclasses and gives tensor results the
caller's subclass; nn.Parameter opts out (`_disabled_torch_function_impl`).

The machinery and its cost on the hot path are described in `ember/_core/torch_function.py`; this module holds the
names torch.overrides exports.
"""
import contextlib
import functools
import inspect
import warnings

from ._core import torch_function as _tf
from ._core.torch_function import _disabled_torch_function_impl  # noqa: F401
from ._tensor import Tensor

__all__ = [
    "get_ignored_functions", "get_overridable_functions", "get_testing_overrides", "get_default_nowrap_functions",
    "handle_torch_function", "has_torch_function", "resolve_name", "is_tensor_like", "is_tensor_method_or_property",
    "wrap_torch_function", "enable_reentrant_dispatch", "TorchFunctionMode", "BaseTorchFunctionMode",
    "has_torch_function_unary", "has_torch_function_variadic",
]


# ------------------------------------------------------------------ checks
def has_torch_function(relevant_args):
    """True when a mode is active or an element of `relevant_args` (not a plain Tensor or Parameter) has a
    `__torch_function__` that takes part in the protocol (torch._C._has_torch_function)."""
    return _tf.is_torch_function_mode_enabled() or bool(_tf.overloaded_args(relevant_args))


def has_torch_function_unary(obj):
    """has_torch_function((obj,)) without building the tuple (torch._C._has_torch_function_unary)."""
    return _tf.is_torch_function_mode_enabled() or bool(_tf.overloaded_args((obj,)))


def has_torch_function_variadic(*args):
    """has_torch_function(args) (torch._C._has_torch_function_variadic)."""
    return _tf.is_torch_function_mode_enabled() or bool(_tf.overloaded_args(args))


def _get_overloaded_args(relevant_args, get_type_fn=None):
    """The arguments whose `__torch_function__` is called, in call order: one per type, subclasses before their
    superclasses, else left to right. Plain Tensors count (their default override). Empty under
    DisableTorchFunctionSubclass / DisableTorchFunction."""
    if get_type_fn is None:
        return _tf.overloaded_args(relevant_args, exact_tensor_too=True)
    if not _tf.is_torch_function_enabled():
        return []
    overloaded, types = [], []
    for arg in relevant_args:
        tp = get_type_fn(arg)
        if tp in types or _tf._tf_of(tp) is None:
            continue
        types.append(tp)
        for i, old in enumerate(overloaded):
            if issubclass(tp, get_type_fn(old)):
                overloaded.insert(i, arg)
                break
        else:
            overloaded.append(arg)
    return overloaded


def handle_torch_function(public_api, relevant_args, *args, **kwargs):
    """Call the overrides of `public_api(*args, **kwargs)` found among `relevant_args` (and the active mode) in
    torch's order; the first result that is not NotImplemented is returned. TypeError when all return it."""
    return _tf.dispatch(public_api, _get_overloaded_args(relevant_args), args, kwargs)


def is_tensor_like(inp):
    """True for a Tensor (exactly) and for any object or class with a `__torch_function__` attribute."""
    return type(inp) is Tensor or hasattr(inp, "__torch_function__")


def wrap_torch_function(dispatcher):
    """Decorator: the wrapped function checks the arguments `dispatcher(*args, **kwargs)` returns for overrides
    first (torch.overrides.wrap_torch_function)."""
    def inner(func):
        @functools.wraps(func)
        def wrapped(*args, **kwargs):
            relevant = dispatcher(*args, **kwargs)
            if has_torch_function(relevant):
                return handle_torch_function(wrapped, relevant, *args, **kwargs)
            return func(*args, **kwargs)
        return wrapped
    return inner


# ------------------------------------------------------------------ modes
class TorchFunctionMode:
    """A mode overrides every overridable ember function within a `with` block, without subclasses (factory
    functions too, which take no tensor). Modes nest: the innermost one gets the call, and calls of ember functions
    inside its `__torch_function__` go on to the next one down (the mode is popped while it runs)."""

    inner: "TorchFunctionMode"

    def __init__(self):
        pass

    def __torch_function__(self, func, types, args=(), kwargs=None):
        raise NotImplementedError

    def __enter__(self):
        _push_mode(self)
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        _pop_mode()

    @classmethod
    def push(cls, *args, **kwargs):
        warnings.warn("`Mode.push()` is no longer necessary and can be replaced with just `with Mode()`",
                      stacklevel=2)
        return cls(*args, **kwargs)


class BaseTorchFunctionMode(TorchFunctionMode):
    """A mode that runs every function as it is (a base for modes overriding a few)."""

    def __torch_function__(self, func, types, args=(), kwargs=None):
        if kwargs is None:
            kwargs = {}
        return func(*args, **kwargs)


def _get_current_function_mode():
    return _tf._tls.stack[-1] if _tf._tls.stack else None


def _get_current_function_mode_stack():
    return list(_tf._tls.stack)


def _push_mode(mode):
    _tf.push_mode(mode)


def _pop_mode():
    return _tf.pop_mode()


@contextlib.contextmanager
def _pop_mode_temporarily():
    old = _pop_mode()
    try:
        yield old
    finally:
        _push_mode(old)


def _is_torch_function_mode_enabled():
    return _tf.is_torch_function_mode_enabled()


@contextlib.contextmanager
def enable_reentrant_dispatch():
    """torch's context manager for re-entering the dispatcher from __torch_dispatch__; ember's dispatcher needs
    nothing done for it."""
    yield


# ------------------------------------------------------------------ the lists
def get_default_nowrap_functions():
    """Functions whose results the default Tensor.__torch_function__ does not re-wrap in the subclass."""
    from ._tensor import _NOWRAP
    return set(_NOWRAP)


def _handles_protocol(fn):
    """True when `fn` checks the protocol: a generated binding, a hand-written function reading the flag, or one
    of the attribute reads whose check is switched in while a mode is pushed (a property's `__get__` by its
    getter)."""
    from ._tensor import _INSTANCE_PROPS
    owner = getattr(fn, "__self__", None)
    if isinstance(owner, property):
        if any(owner is p for p in _INSTANCE_PROPS.values()):
            return True
        fn = owner.fget
    if any(fn is f for f, _, _ in _tf._SWITCHED):
        return True
    code = getattr(fn, "__code__", None)
    return code is not None and ("_TF" in code.co_names or "_handled" in code.co_names)


def _tensor_property_name(prop):
    """The name Tensor gives the property `prop` (its getset descriptor's name in torch), or None."""
    from ._tensor import _INSTANCE_PROPS
    for n, p in _INSTANCE_PROPS.items():
        if p is prop:
            return n
    for n in dir(Tensor):
        a = inspect.getattr_static(Tensor, n, None)
        if a is prop or isinstance(a, staticmethod) and a.__func__ is prop:
            return n
    return None


def _namespaces():
    """(namespace object, its public callables by name): ember, ember.Tensor, ember.nn.functional, ember.linalg,
    ember.fft, ember.special. Loads every binding family (this is not for hot code)."""
    import ember
    from . import functional as _functional
    from ._generated import functions as _functions
    out = []
    names = set(_functions._FAMILIES) | set(getattr(_functional, "__all__", ()))
    fns = {}
    for n in sorted(names):
        if n.startswith("_"):
            continue
        f = getattr(ember, n, None)
        if callable(f) and not isinstance(f, type):
            fns[n] = f
    out.append((ember, fns))
    meths = {}
    for n in sorted(dir(Tensor)):
        if n.startswith("_") and not (n.startswith("__") and n.endswith("__")):
            continue
        a = inspect.getattr_static(Tensor, n)
        if isinstance(a, staticmethod) and isinstance(a.__func__, property):
            a = a.__func__            # `dtype`: the property a mode is given (see _tensor.py)
        if isinstance(a, property):
            meths[n] = a.__get__
        elif inspect.isfunction(a) or isinstance(a, classmethod):
            meths[n] = getattr(Tensor, n)
    from ._tensor import _INSTANCE_PROPS
    for n, p in _INSTANCE_PROPS.items():
        meths.setdefault(n, p.__get__)           # grad_fn, _base: instance attributes outside a mode
    out.append((Tensor, meths))
    for modname in ("ember.nn.functional", "ember.linalg", "ember.fft", "ember.special"):
        import importlib
        mod = importlib.import_module(modname)
        fns = {}
        for n in getattr(mod, "__all__", dir(mod)):
            f = getattr(mod, n, None)
            if inspect.isfunction(f) and not n.startswith("_"):
                fns[n] = f
        out.append((mod, fns))
    return out


def get_overridable_functions():
    """{namespace: [functions that dispatch to __torch_function__]} (torch.overrides.get_overridable_functions)."""
    # (torch lists no property here: its getset descriptors are not callable; get_testing_overrides has them)
    return {ns: [f for f in fns.values() if _handles_protocol(f) and not isinstance(getattr(f, "__self__", None),
                                                                                     property)]
            for ns, fns in _namespaces()}


def get_ignored_functions():
    """The public functions of those namespaces that do not take part in the protocol (torch's: functions with no
    tensor arguments to look at, or that are not dispatched, as `ember.is_tensor`)."""
    out = set()
    for _, fns in _namespaces():
        out.update(f for f in fns.values() if not _handles_protocol(f))
    return out


def get_testing_overrides():
    """{overridable function: a function with its signature returning -1}: for testing a Tensor-like type's
    coverage (torch.overrides.get_testing_overrides). Signatures are read from ember's functions: generated
    bindings of several overloads take `*args, **kwargs`."""
    out = {}
    for _, fns in _namespaces():
        for f in fns.values():
            if not _handles_protocol(f):
                continue
            try:
                sig = inspect.signature(f)
            except (TypeError, ValueError):
                sig = None

            def dummy(*args, __sig=sig, **kwargs):
                if __sig is not None:
                    __sig.bind(*args, **kwargs)
                return -1
            if sig is not None:
                dummy.__signature__ = sig
            out[f] = dummy
    return out


def resolve_name(f):
    """The public name of an overridable function ("ember.add", "ember.Tensor.add"), or None."""
    if isinstance(f, (classmethod, staticmethod)):
        f = f.__func__
    owner = getattr(f, "__self__", None)
    if isinstance(owner, property):          # `ember.Tensor.shape.__get__`, as torch names its getset descriptors'
        name = _tensor_property_name(owner)
        return f"ember.Tensor.{name}.{f.__name__}" if name else None
    mod = getattr(f, "__module__", "") or ""
    if mod.startswith("ember._generated.variable_methods") or getattr(f, "__qualname__", "").startswith("Tensor.") \
            or getattr(Tensor, getattr(f, "__name__", "") or "_", None) is f:        # (TensorImpl's, as size)
        return f"ember.Tensor.{f.__name__}"
    if mod.startswith("ember._generated.torch_functions") or mod in ("ember.functional",):
        return f"ember.{f.__name__}"
    name = getattr(f, "__name__", None)
    return f"{mod}.{name}" if name else None


def is_tensor_method_or_property(func):
    """True for a Tensor method or property getter (their first argument is the tensor)."""
    if getattr(func, "__self__", None) is not None and isinstance(func.__self__, property):
        return True
    name = getattr(func, "__name__", None)
    return name is not None and getattr(Tensor, name, None) is func
