"""Operators: the registry, OpOverloadPacket / OpOverload and the `ember.ops` namespace (torch/_ops.py).

`ember.ops.aten.add` is an OpOverloadPacket built lazily on first access; `ember.ops.aten.add.Tensor`
is an OpOverload. Calling an OpOverload computes the dispatch key set of its arguments (an OR of
int bitmasks plus the thread-local include set, minus the exclude set) and looks the set up in a
per-op cache; a miss resolves the kernel in PyTorch's order (py_kernel, direct kernel,
CompositeExplicitAutograd, CompositeImplicitAutograd, key fallback, fallthrough) and caches it.
Registering a kernel clears the caches.
"""
import importlib

from ._core.tls import GRAD_OFF as _GRAD_OFF, KEYS_ACTIVE as _KEYS_ACTIVE, state
from ._arg_parser import bind_packet_call
from ._core.tensor_impl import TENSOR_TYPES as _TENSOR_TYPES
from ._core.dispatch_keys import (AUTOGRAD_BIT, BACKEND_SELECT_BIT, CPU_BIT, META_BIT, PYTHON_BIT, DispatchKey,
                             BACKEND_KEYS)

K = DispatchKey
_BACKEND_BITS = CPU_BIT | META_BIT


class OpEntry:
    """Everything registered for one operator overload: its schema text and kernels per key."""

    __slots__ = ("qualname", "schema_str", "kernels", "py_kernels", "tags", "owner", "overload", "fake", "cache")

    def __init__(self, qualname, schema_str, tags=(), owner=None):
        self.qualname = qualname          # "aten::add.Tensor"
        self.schema_str = schema_str      # "add.Tensor(Tensor self, ...) -> Tensor" (no namespace)
        self.kernels = {}                 # DispatchKey -> callable or "module:function"
        self.py_kernels = {}
        self.tags = tuple(tags)
        self.owner = owner
        self.overload = None              # the OpOverload once built
        self.fake = None
        self.cache = {}                   # its OpOverload's dispatch cache: made here, so that bindings can hold
                                          # it before the OpOverload is built (see LazyOverload)


_REGISTRY = {}          # "ns::name" -> {overload_name: OpEntry}
_FALLBACKS = {}         # DispatchKey -> boxed fallback fn(op, keyset_below, *args, **kwargs), or None
FALLTHROUGH = object()  # registered as an op's kernel for a key: skip the key (and its fallback) for that op


def _split(qualname):
    ns, _, rest = qualname.partition("::")
    name, _, overload = rest.partition(".")
    return ns, name, overload


def define(ns, schema_str, tags=(), owner=None):
    """Add an operator overload; `schema_str` has no namespace. Returns its OpEntry."""
    head = schema_str.split("(", 1)[0].strip()
    name, _, overload = head.partition(".")
    by_name = _REGISTRY.setdefault(f"{ns}::{name}", {})
    if overload in by_name:
        raise RuntimeError(f"operator {ns}::{head} is already defined")
    entry = OpEntry(f"{ns}::{head}", schema_str, tags, owner)
    by_name[overload] = entry
    pkt = _PACKETS.get(f"{ns}::{name}")
    if pkt is not None:
        pkt._overload_names = None
    return entry


def define_many(ns, rows, kernel_prefix=""):
    """define() for many overloads at once, as `_generated/registrations.py` does at import: each row is
    (name, overload, schema_str, ((dispatch key name, kernel), ...), tags), the name and overload already
    split off the schema; each kernel is registered as `kernel_prefix + kernel`. One loop here instead of
    two calls and a schema split per overload."""
    reg, keys, new = _REGISTRY, DispatchKey.__members__, object.__new__
    for name, overload, schema_str, dispatch, tags in rows:
        q = ns + "::" + name
        by_name = reg.get(q)
        if by_name is None:
            by_name = reg[q] = {}
        elif overload in by_name:
            raise RuntimeError(f"operator {q}{'.' + overload if overload else ''} is already defined")
        e = new(OpEntry)            # OpEntry.__init__ inlined
        e.qualname = q + "." + overload if overload else q
        e.schema_str, e.tags, e.owner, e.overload, e.fake, e.py_kernels, e.cache = schema_str, tags, None, None, \
            None, {}, {}
        e.kernels = {keys[k]: kernel_prefix + fn for k, fn in dispatch}
        by_name[overload] = e
        pkt = _PACKETS.get(q)
        if pkt is not None:
            pkt._overload_names = None


def define_table(ns, table, kernel_prefix=""):
    """define_many() for an op table given as text, as `_generated/registrations.py` passes it: one overload per
    line, `schema | kernels` or `schema | kernels | tags`, the kernels as `<dispatch key name>=<kernel>` and the
    tags separated by spaces. Text, not a tuple literal: Python compiles one string constant in no time, where
    the 1,500 rows as tuples took ~15 ms of every import without cached bytecode (PYTHONDONTWRITEBYTECODE, CI,
    test subprocesses); splitting the text costs ~1 ms (and ~1 ms more than unmarshalling the tuples when the
    bytecode is cached)."""
    rows = []
    for line in table.splitlines():
        parts = line.split(" | ")
        schema_str = parts[0]
        name, _, overload = schema_str[:schema_str.index("(")].partition(".")
        rows.append((name, overload, schema_str, [k.split("=", 1) for k in parts[1].split(" ")],
                     tuple(parts[2].split(" ")) if len(parts) > 2 else ()))
    define_many(ns, rows, kernel_prefix)


def lookup(ns, name, overload=""):
    try:
        return _REGISTRY[f"{ns}::{name}"][overload]
    except KeyError:
        raise RuntimeError(f"operator {ns}::{name}{'.' + overload if overload else ''} does not exist") from None


def register_kernel(entry, key, fn, allow_override=False):
    key = DispatchKey(key)
    if key in entry.kernels and not allow_override:
        raise RuntimeError(f"a kernel for {entry.qualname} at dispatch key {key.name} is already registered")
    entry.kernels[key] = fn
    clear_dispatch_caches()


def deregister_kernel(entry, key):
    entry.kernels.pop(DispatchKey(key), None)
    clear_dispatch_caches()


def register_fallback(key, fn):
    """A boxed kernel used for `key` by every op without its own kernel there (None = fallthrough)."""
    _FALLBACKS[DispatchKey(key)] = fn
    clear_dispatch_caches()


_FILLED = set()         # the OpOverloads whose dispatch cache holds something (OpOverload._resolve adds them)


def clear_dispatch_caches():
    # only the caches that were filled: at import every registration lands here with all of them empty
    while _FILLED:
        _FILLED.pop()._dispatch_cache.clear()


_observer = None   # fn(op) -> None or an end callback; see set_dispatch_observer
_observer_args = False


def set_dispatch_observer(fn, with_args=False):
    """Call ``fn(op)`` before every OpOverload call (``fn`` may return a callable, called when the op
    returns or raises); None removes it. With ``with_args`` the call is ``fn(op, args, kwargs)`` and the
    callable gets the op's result (None when it raised). Off by default: the observer is woven into the
    kernels the dispatch caches hold, which are rebuilt here, so calls pay nothing when none is installed.
    A redispatch (autograd handing the call to the backend) is observed again, nested in the first call.
    Used by tools/overload_coverage.py and the profiler (ember.autograd.profiler)."""
    global _observer, _observer_args
    _observer = fn
    _observer_args = bool(with_args)
    clear_dispatch_caches()


def _observed(op, kernel):
    observer = _observer
    if _observer_args:
        def run_with_args(*args, **kwargs):
            end = observer(op, args, kwargs)
            if end is None:
                return kernel(*args, **kwargs)
            out = None
            try:
                out = kernel(*args, **kwargs)
                return out
            finally:
                end(out)
        return run_with_args

    def run(*args, **kwargs):
        end = observer(op)
        if end is None:
            return kernel(*args, **kwargs)
        try:
            return kernel(*args, **kwargs)
        finally:
            end()
    return run


def _decompose_above_python(decomposition, python_kernel):
    """The kernel of a CompositeImplicitAutograd op for a key set holding the Python key (a dispatch mode, or a
    tensor subclass with __torch_dispatch__). Torch registers such a decomposition on its Autograd keys, which sit
    above the Python key and are in every tensor's key set, so a mode or subclass sees the ops the decomposition
    calls (`x.to(float64)` is aten._to_copy.default, `x.reshape(n)` aten.view.default), never the composite op
    itself. Ember's Python key is above Autograd, and a tensor not needing grad has no Autograd key: the
    decomposition runs here instead. Inference mode excludes torch's Autograd keys, and there the mode does see
    the composite op (`python_kernel`)."""
    def kernel(*args, **kwargs):
        if state.inference_mode:
            return python_kernel(*args, **kwargs)
        return decomposition(*args, **kwargs)
    return kernel


def _resolve_fn(fn):
    if isinstance(fn, str):
        mod, _, attr = fn.partition(":")
        return getattr(importlib.import_module(mod), attr)
    return fn


# ------------------------------------------------------------------ key set of a call
def _keyset(args, kwargs):
    ks = 0
    for a in args:
        if a.__class__ in _TENSOR_TYPES:
            ks |= a._ks
        elif type(a) in (list, tuple):
            for t in a:
                if t.__class__ in _TENSOR_TYPES:
                    ks |= t._ks
    if kwargs:
        for a in kwargs.values():
            if a.__class__ in _TENSOR_TYPES:
                ks |= a._ks
            elif type(a) in (list, tuple):
                for t in a:
                    if t.__class__ in _TENSOR_TYPES:
                        ks |= t._ks
    if not ks & (CPU_BIT | META_BIT):
        ks |= BACKEND_SELECT_BIT
    return (ks | state._include) & ~state._exclude


class OpOverload:
    """One overload of an operator: `ember.ops.aten.add.Tensor`."""

    def __init__(self, packet, entry):
        self._packet = packet
        self._entry = entry
        name, _, overload = entry.qualname.partition(".")       # "ns::name", "overload" (one split: ~1000 at import)
        self._overloadname = overload = overload or "default"
        self._name = self.__qualname__ = name
        self.__name__ = packet.__name__ + "." + overload
        self.namespace = packet._ns
        self._dispatch_cache = entry.cache
        self._schema_obj = None
        entry.overload = self

    # -- metadata
    @property
    def _schema(self):
        if self._schema_obj is None:
            from ._schema import FunctionSchema
            self._schema_obj = FunctionSchema.parse(self._entry.schema_str)
        return self._schema_obj

    @property
    def tags(self):
        return self._entry.tags

    @property
    def overloadpacket(self):
        return self._packet

    def name(self):
        return self._entry.qualname if self._overloadname != "default" else self._name

    def __repr__(self):
        return f"<OpOverload(op='{self.namespace}.{self._packet.__name__}', overload='{self._overloadname}')>"

    def __str__(self):
        return f"{self.namespace}.{self.__name__}"

    def __hash__(self):
        return id(self)

    # -- calling
    def __call__(self, *args, **kwargs):
        # inlined common case of _keyset: positional args only (tensors, scalars, lists of tensors)
        if not kwargs:
            ks = 0
            for a in args:
                if a.__class__ in _TENSOR_TYPES:
                    ks |= a._ks
                elif type(a) in (list, tuple):
                    for t in a:
                        if t.__class__ in _TENSOR_TYPES:
                            ks |= t._ks
            if ks & _BACKEND_BITS:
                if _KEYS_ACTIVE[0]:
                    ks = (ks | state._include) & ~state._exclude
                elif ks & AUTOGRAD_BIT and _GRAD_OFF:     # only grad mode can be in the thread's sets: see _core/tls
                    ks &= ~state._exclude
                try:
                    k = self._dispatch_cache[ks]
                except KeyError:
                    k = self._resolve(ks)
                return k(*args)
        ks = _keyset(args, kwargs)
        try:
            k = self._dispatch_cache[ks]
        except KeyError:
            k = self._resolve(ks)
        return k(*args, **kwargs)

    def redispatch(self, keyset, *args, **kwargs):
        ks = keyset if keyset.__class__ is int else keyset.repr if hasattr(keyset, "repr") else int(keyset)
        try:
            k = self._dispatch_cache[ks]
        except KeyError:
            k = self._resolve(ks)
        return k(*args, **kwargs)

    def _resolve(self, ks):
        k = self._kernel_for_keyset(ks)
        if _observer is not None:
            k = _observed(self, k)
        self._dispatch_cache[ks] = k
        _FILLED.add(self)
        return k

    def _kernel_for_keyset(self, ks):
        orig = ks
        while ks:
            key = DispatchKey(ks.bit_length() - 1)
            below = ks & ((1 << int(key)) - 1)
            if self._entry.kernels.get(key) is FALLTHROUGH:      # torch.library.fallthrough_kernel
                ks = below
                continue
            if key == K.Python and K.Python not in self._entry.py_kernels:
                dec = self._entry.kernels.get(K.CompositeImplicitAutograd)
                if dec is not None:
                    return _decompose_above_python(_resolve_fn(dec), self._kernel_for_python(below))
            fn = self._kernel_for_key(key)
            if fn is not None:
                return fn
            fb = _FALLBACKS.get(key)
            if fb is not None:
                bound = fb(self, below)   # a fallback may decline (return None) for this op
                if bound is not None:
                    return bound
            ks = below
        raise NotImplementedError(
            f"Could not run '{self._entry.qualname}' with arguments from the "
            f"'{_backend_name(orig)}' backend: no kernel is registered for it.")

    def _kernel_for_python(self, below):
        """The Python key's own kernel (its fallback: the mode or subclass sees this op), `below` the keys under it."""
        fn = self._kernel_for_key(K.Python)
        if fn is None:
            fb = _FALLBACKS.get(K.Python)
            fn = fb(self, below) if fb is not None else None
        if fn is None:
            return self._kernel_for_keyset(below)
        return fn

    def _kernel_for_key(self, key):
        e = self._entry
        fn = e.py_kernels.get(key)
        if fn is not None:
            return fn
        fn = e.kernels.get(key)
        if fn is FALLTHROUGH:
            return None
        if fn is None and key in BACKEND_KEYS:
            fn = e.kernels.get(K.CompositeExplicitAutograd) or e.kernels.get(K.CompositeExplicitAutogradNonFunctional)
        if fn is None and (key in BACKEND_KEYS or key == K.Autograd):
            fn = e.kernels.get(K.CompositeImplicitAutograd)
        if fn is None:
            return None
        fn = _resolve_fn(fn)
        return fn

    def has_kernel_for_dispatch_key(self, key):
        return self._kernel_for_key(DispatchKey(key)) is not None

    def has_kernel_for_any_dispatch_key(self, keys):
        return any(self.has_kernel_for_dispatch_key(k) for k in keys)

    # -- extension points
    def py_impl(self, key):
        """Decorator: a Python kernel for `key` that takes precedence over registered kernels."""
        def deco(fn):
            self._entry.py_kernels[DispatchKey(key)] = fn
            clear_dispatch_caches()
            return fn
        return deco

    def decompose(self, *args, **kwargs):
        """Run the CompositeImplicitAutograd kernel, if any; NotImplemented otherwise."""
        fn = self._entry.kernels.get(K.CompositeImplicitAutograd)
        if fn is None:
            return NotImplemented
        return _resolve_fn(fn)(*args, **kwargs)


class LazyOverload:
    """Stands for `ops.<ns>.<name>.<overload>` in a generated binding module until first used, then puts
    the OpOverload in its place (the module global `var` of `module_globals`). `import ember` names
    about a thousand overloads in the bindings and calls few of them: building each OpOverload (and
    its packet) there was about a fifth of the import."""

    __slots__ = ("_globals", "_var", "_ns", "_name", "_overload")

    def __init__(self, module_globals, var, ns, name, overload):
        self._globals, self._var, self._ns, self._name, self._overload = module_globals, var, ns, name, overload

    def _op(self):
        op = getattr(getattr(getattr(ops, self._ns), self._name), self._overload)
        self._globals[self._var] = op
        return op

    def __call__(self, *args, **kwargs):
        return self._op()(*args, **kwargs)

    def __getattr__(self, attr):
        return getattr(self._op(), attr)

    def __repr__(self):
        return repr(self._op())


def lazy_overload(module_globals, var, ns, name, overload):
    """(a LazyOverload for ops.<ns>.<name>.<overload>, that overload's dispatch cache): what a generated
    binding module binds as `_op_<name>_<overload>` and `_c_<name>_<overload>`."""
    entry = _REGISTRY[f"{ns}::{name}"]["" if overload == "default" else overload]
    return LazyOverload(module_globals, var, ns, name, overload), entry.cache


def _backend_name(ks):
    if ks & META_BIT:
        return "Meta"
    if ks & CPU_BIT:
        return "CPU"
    return DispatchKey(ks.bit_length() - 1).name if ks else "Undefined"


class OpOverloadPacket:
    """All overloads of one operator name: `ember.ops.aten.add`. Calling it picks `.default`
    when no overload resolution is possible; overloads are built lazily."""

    def __init__(self, ns, name):
        self._ns = ns
        self.__name__ = name
        self._qualified_op_name = f"{ns}::{name}"
        self._overload_names = None

    def overloads(self):
        return ["default" if o == "" else o for o in _REGISTRY.get(self._qualified_op_name, {})]

    def __getattr__(self, attr):
        if attr.startswith("__"):
            raise AttributeError(attr)
        by_name = _REGISTRY.get(self._qualified_op_name, {})
        key = "" if attr == "default" else attr
        entry = by_name.get(key)
        if entry is None:
            raise AttributeError(f"The underlying op of '{self._ns}.{self.__name__}' has no overload name '{attr}'")
        ov = entry.overload or OpOverload(self, entry)
        setattr(self, attr, ov)
        return ov

    def __call__(self, *args, **kwargs):
        # like torch: try overloads in definition order, choosing the first whose schema binds
        return bind_packet_call(self, args, kwargs)

    def __repr__(self):
        return f"<OpOverloadPacket(op='{self._ns}.{self.__name__}')>"

    def __str__(self):
        return f"{self._ns}.{self.__name__}"        # torch's: "aten.mm" (FlopCounterMode's table prints it)


_PACKETS = {}


class _OpNamespace:
    def __init__(self, name):
        self.name = name

    def __getattr__(self, op_name):
        if op_name.startswith("__"):
            raise AttributeError(op_name)
        q = f"{self.name}::{op_name}"
        if q not in _REGISTRY:
            raise AttributeError(f"'_OpNamespace' '{self.name}' object has no attribute '{op_name}'")
        pkt = _PACKETS.get(q)
        if pkt is None:
            pkt = _PACKETS[q] = OpOverloadPacket(self.name, op_name)
        setattr(self, op_name, pkt)
        return pkt

    def __iter__(self):
        return iter(sorted(q.split("::", 1)[1] for q in _REGISTRY if q.startswith(self.name + "::")))


class _Ops:
    def __init__(self):
        self._namespaces = {}

    def __getattr__(self, ns):
        if ns.startswith("__"):
            raise AttributeError(ns)
        n = self._namespaces.get(ns)
        if n is None:
            n = self._namespaces[ns] = _OpNamespace(ns)
            setattr(self, ns, n)
        return n


ops = _Ops()
