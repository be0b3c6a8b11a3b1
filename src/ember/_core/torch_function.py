"""The `__torch_function__` protocol's state and dispatch: torch/csrc/utils/disable_torch_function.cpp (the
disabled states, `_disabled_torch_function_impl`), ATen's PythonTorchFunctionTLS (the mode stack) and
python_arg_parser.cpp's handle_torch_function (the order rules and the error). The public names are in
`ember/overrides.py` and `ember/_C.py`; the default `Tensor.__torch_function__` is in `_tensor.py`.

Cost on the hot path. Every public binding (the generated ones, and the hand-written functions, methods and
properties that handle the protocol) starts with one check, `if TF_ACTIVE[0]:` (a global list read, as the
bindings' `KEYS_ACTIVE`); only when it is set does the binding look at its arguments. It is set while

- any thread has a TorchFunctionMode pushed (`_modes_pushed`), or
- a Tensor subclass whose `__torch_function__` is not `_disabled_torch_function_impl` has been defined
  (`note_tensor_subclass`, from TensorImpl.__init_subclass__: torch's default `Tensor.__torch_function__`
  re-wraps results in the subclass, so a subclass without its own one counts too). It stays set: a class
  once defined may have instances anywhere. ember's own subclasses (Parameter, Buffer, the lazy modules'
  Uninitialized*, FakeTensor) have the protocol disabled, so `import ember.nn` leaves it clear.

Once set by a subclass, the flag stays, and each binding would pay for its look at the arguments (locals(), a
call, the overloaded-argument scan: 1-1.7 us per op on plain tensors, 4 us for `1 + a`). So a binding first
checks inline `_TFM` (a mode is pushed on some thread: kept like `_TF`) and the classes of its Tensor parameters
against PLAIN_TYPES (the public Tensor, the subclasses that opted out, numbers, None): plain arguments and no
mode mean no override can apply, and the binding runs on (`plain_args` for the `*args` bindings).

Objects that are not tensors (duck-typed arrays, wrappers) cannot set it when their class is defined: a binding
given one in a Tensor parameter fails its argument check with a TypeError. The bindings catch that (a `try` costs
nothing until something raises, Python 3.11's zero-cost exceptions) and ask `duck_retry`: if an argument has a
`__torch_function__`, the flag is set from then on and the call is dispatched to it; else the TypeError goes on.

Thread-local state (`_tls`): `disabled` (ENABLED, SUBCLASSES_DISABLED under DisableTorchFunctionSubclass,
ALL_DISABLED under DisableTorchFunction, which also hides the modes) and `stack`, the modes, innermost last.
"""
import sys
import threading

from .device import device as _device
from .dtype import dtype as _dtype

ENABLED, SUBCLASSES_DISABLED, ALL_DISABLED = 0, 1, 2

TF_ACTIVE = [0]          # nonzero: bindings look for overrides (see the module docstring)
NOT_HANDLED = object()   # what the dispatch helpers return when no override applies: the binding runs itself

_lock = threading.Lock()
_modes_pushed = [0]      # modes on every thread's stack, together
_subclass_seen = [False]
# classes whose instances never override anything (a binding's inline check, see the module docstring): numbers,
# None, str, slices, Ellipsis, dtypes and devices here; the public Tensor (set_public_tensor) and each subclass defined with the protocol disabled
# (note_tensor_subclass) are added
PLAIN_TYPES = {int, float, bool, complex, type(None), str, slice, type(Ellipsis), _dtype, _device}


def plain_args(args, kwargs):
    """True when no argument of an `*args, **kwargs` binding can override (lists and tuples are looked into by
    the full check instead)."""
    plain = PLAIN_TYPES
    for a in args:
        if a.__class__ not in plain:
            return False
    if kwargs:
        for a in kwargs.values():
            if a.__class__ not in plain:
                return False
    return True


class _State(threading.local):
    def __init__(self):
        self.disabled = ENABLED
        self.stack = []


_tls = _State()


def _disabled_torch_function_impl(func, types, args=(), kwargs=None):
    """The `__torch_function__` of classes that take no part in the protocol (nn.Parameter, FakeTensor):
    ops on their instances are ops on plain tensors. Calling it runs `func` without the protocol."""
    if kwargs is None:
        kwargs = {}
    with DisableTorchFunctionSubclass():
        return func(*args, **kwargs)


_NAMESPACES = []          # module globals holding `_TF`, kept equal to bool(TF_ACTIVE[0]) (see `register`)


def register(namespace):
    """Keep `namespace["_TF"]` (a module's globals) equal to bool(TF_ACTIVE[0]): the bindings' check is then
    `if _TF:`, one global read (LOAD_GLOBAL + a jump: about half the instructions of reading `TF_ACTIVE[0]`,
    measured with callgrind on `a + b`). Every module whose functions check the protocol registers itself."""
    with _lock:
        _NAMESPACES.append(namespace)
        namespace["_TF"] = bool(TF_ACTIVE[0])
        namespace["_TFM"] = bool(_modes_pushed[0])


def _recompute():
    v = 1 if (_subclass_seen[0] or _modes_pushed[0]) else 0
    m = bool(_modes_pushed[0])
    if v != TF_ACTIVE[0] or _NAMESPACES and _NAMESPACES[0].get("_TFM") is not m:
        TF_ACTIVE[0] = v
        for ns in _NAMESPACES:
            ns["_TF"] = bool(v)
            ns["_TFM"] = m
    if m != _switched_on[0]:
        _switch(m)


def note_tensor_subclass(cls):
    """A Tensor subclass was defined: from now on the bindings look for overrides if it takes part in the protocol
    (its `__torch_function__` is a method other than `_disabled_torch_function_impl`), and the attribute reads
    ember writes in Python get their checks on the class (`_SUBCLASS_HOOK`, see "Attribute reads" below)."""
    tf = getattr(cls, "__torch_function__", None)
    if tf is None or tf is _disabled_torch_function_impl:
        PLAIN_TYPES.add(cls)
        return
    if _PUBLIC_CLS[0] is None:
        return                    # the public ember.Tensor itself (defined before it registers): never overloaded
    if _SUBCLASS_HOOK[0] is not None:
        _SUBCLASS_HOOK[0](cls)
    if _subclass_seen[0]:
        return
    with _lock:
        _subclass_seen[0] = True
        _recompute()


def _note_duck():
    with _lock:
        _subclass_seen[0] = True
        _recompute()


# ------------------------------------------------------------------ state queries (torch._C's)
def is_torch_function_enabled():
    """torch._C._is_torch_function_enabled: False under DisableTorchFunctionSubclass and DisableTorchFunction."""
    return _tls.disabled == ENABLED


def is_torch_function_mode_enabled():
    """torch._C._is_torch_function_mode_enabled: a mode is pushed and DisableTorchFunction is not active."""
    st = _tls
    return bool(st.stack) and st.disabled != ALL_DISABLED


def is_torch_function_all_disabled():
    return _tls.disabled == ALL_DISABLED


class DisableTorchFunctionSubclass:
    """torch._C.DisableTorchFunctionSubclass: inside, `__torch_function__` overrides of arguments are not called
    (modes still are). Entered under DisableTorchFunction it keeps everything disabled."""
    __slots__ = ("_old",)

    def __enter__(self):
        st = _tls
        self._old = st.disabled
        if st.disabled == ENABLED:
            st.disabled = SUBCLASSES_DISABLED

    def __exit__(self, *exc):
        _tls.disabled = self._old


DisableTorchFunctionSubclass.__module__ = "ember._C"


class DisableTorchFunction:
    """torch._C.DisableTorchFunction: inside, neither overrides of arguments nor modes are called."""
    __slots__ = ("_old",)

    def __enter__(self):
        st = _tls
        self._old = st.disabled
        st.disabled = ALL_DISABLED

    def __exit__(self, *exc):
        _tls.disabled = self._old


DisableTorchFunction.__module__ = "ember._C"


# ------------------------------------------------------------------ the mode stack
def push_mode(mode):
    _tls.stack.append(mode)
    with _lock:
        _modes_pushed[0] += 1
        _recompute()


def pop_mode():
    st = _tls
    if not st.stack:
        raise RuntimeError("Trying to pop from an empty mode stack")
    mode = st.stack.pop()
    with _lock:
        _modes_pushed[0] -= 1
        _recompute()
    return mode


def stack_len():
    return len(_tls.stack)


def get_stack_at(i):
    st = _tls.stack
    if not -len(st) <= i < len(st):
        raise IndexError("Index out of range for torch function mode stack")   # (illustrative; torch asserts)
    return st[i]


# ------------------------------------------------------------------ overloaded arguments
def _tf_of(tp):
    """The `__torch_function__` of type `tp` if it takes part in the protocol, else None."""
    tf = getattr(tp, "__torch_function__", None)
    if tf is None or tf is _disabled_torch_function_impl:
        return None
    if _real_torch_tensor(tp):
        raise TypeError(REAL_TORCH_TENSOR_MSG)
    return tf


REAL_TORCH_TENSOR_MSG = (
    "a PyTorch tensor (torch.Tensor of the real `torch` package) was passed to an ember function; the two "
    "libraries' tensors do not mix. Convert it with ember.from_dlpack(t) or ember.from_numpy(t.numpy()), or make it "
    "with ember: after `import ember as torch`, `from torch import ...` or `import torch.<module>` lines still "
    "import PyTorch itself.")


def _real_torch_tensor(tp):
    """True for PyTorch's own Tensor class (or a subclass): its `__torch_function__` would call the ember
    function back under PyTorch's (not ember's) protocol switch, recursing until Python's limit."""
    torch = sys.modules.get("torch")
    real = getattr(torch, "Tensor", None)
    return (isinstance(real, type) and real is not _PUBLIC_CLS[0] and issubclass(tp, real)
            and not issubclass(tp, _PUBLIC_CLS[0]))


def _insert(overloaded, types, arg, tp):
    """Add `arg` (of type `tp`, not seen yet) in torch's order: left to right, but an instance of a subclass of a
    type already there goes before that type's argument."""
    types.append(tp)
    for i, old in enumerate(overloaded):
        if issubclass(tp, type(old)):
            overloaded.insert(i, arg)
            return
    overloaded.append(arg)


def overloaded_args(relevant, exact_tensor_too=False):
    """The arguments whose `__torch_function__` is to be called, in call order (torch's _get_overloaded_args):
    one per type. Lists and tuples among `relevant` are looked into (a Tensor[] parameter). The bindings skip
    exact Tensors and Parameters (python_arg_parser's check_has_torch_function); torch.overrides' Python helper
    (`exact_tensor_too`) counts plain Tensors as overloaded too (their default `__torch_function__`)."""
    if _tls.disabled != ENABLED:
        return []
    from_tensor = _PUBLIC_CLS[0]
    overloaded, types = [], []
    for a in relevant:
        tp = a.__class__
        if tp is list or tp is tuple:
            for b in a:
                bt = b.__class__
                if (bt is not from_tensor or exact_tensor_too) and bt not in types and _tf_of(bt) is not None:
                    _insert(overloaded, types, b, bt)
            continue
        if (tp is not from_tensor or exact_tensor_too) and tp not in types and _tf_of(tp) is not None:
            _insert(overloaded, types, a, tp)
    return overloaded


_PUBLIC_CLS = [None]    # ember.Tensor (set by _tensor.py)


def set_public_tensor(cls):
    _PUBLIC_CLS[0] = cls
    PLAIN_TYPES.add(cls)


# ------------------------------------------------------------------ dispatch
class _PopModeTemporarily:
    """The mode off the stack while its __torch_function__ runs. The flag is left set meanwhile (no rewrite of
    every registered namespace twice per call): a binding reached inside finds the stack as it is."""
    __slots__ = ("mode",)

    def __enter__(self):
        st = _tls.stack
        if not st:
            raise RuntimeError("Trying to pop from an empty mode stack")
        self.mode = st.pop()
        return self.mode

    def __exit__(self, *exc):
        _tls.stack.append(self.mode)


def dispatch(public_api, overloaded, args, kwargs, name=None):
    """Call the overrides in torch's order: the innermost mode (popped while it runs, so calls inside it reach the
    next one), then each overloaded argument's `__torch_function__`; the first result that is not NotImplemented
    is the call's result. All NotImplemented: torch's TypeError. `name` given: the bindings' error (python_arg_
    parser's "Multiple dispatch failed"); None: torch.overrides.handle_torch_function's."""
    types = tuple(a.__class__ for a in overloaded)
    mode = None
    if is_torch_function_mode_enabled():
        with _PopModeTemporarily() as mode:
            result = mode.__torch_function__(public_api, types, args, kwargs)
        if result is not NotImplemented:
            return result
    for a in overloaded:
        tf = a.__torch_function__
        if getattr(tf, "__self__", None) is a and tf is not _disabled_torch_function_impl:
            import warnings
            warnings.warn("Defining your `__torch_function__` as a plain method is deprecated and will be an error "
                          "in future, please define it as a classmethod.", DeprecationWarning, stacklevel=3)
        result = tf(public_api, types, args, kwargs)
        if result is not NotImplemented:
            return result
    if name is None:
        func_name = f"{public_api.__module__}.{public_api.__name__}"
        msg = (f"no implementation found for '{func_name}' on types that implement __torch_function__: "
               f"{[type(a) for a in overloaded]}")
        if mode is not None:
            msg += f" nor in mode {mode}"
        raise TypeError(msg)
    lines = [f"Multiple dispatch failed for '{name}'; all __torch_function__ handlers returned NotImplemented:", ""]
    if mode is not None:
        lines.append(f"  - mode object {mode!r}")
    lines += [f"  - tensor subclass {t!r}" for t in types]
    lines += ["", "For more information, try re-running with TORCH_LOGS=not_implemented"]
    raise TypeError("\n".join(lines))


def _binding_call(api, loc):
    """(args, kwargs) of a named-parameter binding's call from its bound locals: the positional parameters up to
    the last one not left at its default, the keyword-only ones not at their default (torch passes what the
    caller wrote; a default left alone is the very default object). kwargs None when empty, as torch's bindings."""
    code = api.__code__
    names = code.co_varnames
    npos, nkw = code.co_argcount, code.co_kwonlyargcount
    if code.co_flags & 0x04:          # `*_va` (a `*size` parameter): every positional argument, then the sizes
        args = tuple(loc[n] for n in names[:npos]) + tuple(loc[names[npos + nkw]])
    else:
        defaults = api.__defaults__ or ()
        first_default = npos - len(defaults)
        end = npos
        while end > first_default and loc[names[end - 1]] is defaults[end - 1 - first_default]:
            end -= 1
        args = tuple(loc[n] for n in names[:end])
    kwd = api.__kwdefaults__ or {}
    kwargs = {}
    for n in names[npos:npos + nkw]:
        v = loc[n]
        if n not in kwd or v is not kwd[n]:
            kwargs[n] = v
    return args, (kwargs or None)


def bound(api, loc, relevant, name):
    """A named-parameter binding's check (generated: `if _TF[0]:` then this): `loc` is its locals() at entry,
    `relevant` the names of its Tensor and Tensor[] parameters. NOT_HANDLED when no override applies."""
    st = _tls
    if st.disabled == ALL_DISABLED:
        return NOT_HANDLED
    over = overloaded_args([loc[n] for n in relevant]) if st.disabled == ENABLED else []
    if not over and not st.stack:
        return NOT_HANDLED
    args, kwargs = _binding_call(api, loc)
    return dispatch(api, over, args, kwargs, name)


def varargs(api, args, kwargs, name):
    """The check of a binding taking `*args, **kwargs` (several overloads): every argument is looked at."""
    st = _tls
    if st.disabled == ALL_DISABLED:
        return NOT_HANDLED
    over = overloaded_args(list(args) + list(kwargs.values())) if st.disabled == ENABLED else []
    if not over and not st.stack:
        return NOT_HANDLED
    return dispatch(api, over, args, kwargs or None, name)


def duck_retry(api, args, kwargs, name):
    """A binding's argument check failed with a TypeError: if an argument (or an element of a list or tuple one) is
    an object with a `__torch_function__` that is not a tensor, it is the override torch would have called before
    parsing. Sets TF_ACTIVE for good (later calls take the ordinary check) and dispatches; NOT_HANDLED otherwise."""
    if _tls.disabled != ENABLED:
        return NOT_HANDLED
    over = overloaded_args(list(args) + list((kwargs or {}).values()))
    if not over:
        return NOT_HANDLED
    _note_duck()
    return dispatch(api, over, args, kwargs or None, name)


def duck_retry_bound(api, loc, relevant, name):
    """duck_retry for a named-parameter binding (`loc`: its locals at entry)."""
    if _tls.disabled != ENABLED:
        return NOT_HANDLED
    over = overloaded_args([loc[n] for n in relevant])
    if not over:
        return NOT_HANDLED
    _note_duck()
    args, kwargs = _binding_call(api, loc)
    return dispatch(api, over, args, kwargs, name)


def handle(api, relevant, args, kwargs):
    """The check of a function ember writes in Python (torch's `has_torch_function(relevant)` then
    `handle_torch_function(api, relevant, *args, **kwargs)`): NOT_HANDLED when no override applies. As in
    torch's Python helpers, a plain Tensor among `relevant` is overloaded too (its default `__torch_function__`
    is called if a mode returns NotImplemented; a mode sees it in `types`)."""
    st = _tls
    if st.disabled == ALL_DISABLED:
        return NOT_HANDLED
    pub = _PUBLIC_CLS[0]
    if not st.stack:
        for a in relevant:
            tp = a.__class__
            if tp is list or tp is tuple:
                if any(b.__class__ is not pub and _tf_of(b.__class__) is not None for b in a):
                    break
            elif tp is not pub and _tf_of(tp) is not None:
                break
        else:
            return NOT_HANDLED
        if st.disabled != ENABLED:
            return NOT_HANDLED
    return dispatch(api, overloaded_args(relevant, exact_tensor_too=True), args, kwargs)


def handle_getter(prop, self):
    """A Tensor property read (torch's handle_torch_function_getter): `Tensor.<name>.__get__` called with the
    tensor, kwargs None."""
    st = _tls
    if st.disabled == ALL_DISABLED:
        return NOT_HANDLED
    if not st.stack and (st.disabled != ENABLED or self.__class__ is _PUBLIC_CLS[0]
                         or _tf_of(self.__class__) is None):
        return NOT_HANDLED
    return dispatch(prop.__get__, [self] if st.disabled == ENABLED else [], (self,), None)   # (self whatever its class)


def handle_setter(prop, self, value):
    """A Tensor property write (torch's handle_torch_function_setter): `Tensor.<name>.__set__` called with the
    tensor and the value, kwargs None."""
    st = _tls
    if st.disabled == ALL_DISABLED:
        return NOT_HANDLED
    if not st.stack and (st.disabled != ENABLED or not overloaded_args((self, value))):
        return NOT_HANDLED
    return dispatch(prop.__set__, [self] if st.disabled == ENABLED else [], (self, value), None)


def handle_locals(api, loc):
    """`handle` for a function ember writes in Python, from its locals() at entry: every argument is looked at
    (lists and tuples one level down); the call is passed on as torch's Python functions pass it: the positional
    parameters without a default (and `*args`) positionally, the rest by keyword."""
    code = api.__code__
    names = code.co_varnames
    npos, nkw = code.co_argcount, code.co_kwonlyargcount
    defaults = api.__defaults__ or ()
    first_default = npos - len(defaults)
    args = [loc[n] for n in names[:first_default]]
    kwargs = {n: loc[n] for n in names[first_default:npos]}
    i = npos + nkw
    relevant = list(args) + list(kwargs.values())
    if code.co_flags & 0x04:
        va = loc[names[i]]
        args.extend(va)
        relevant.extend(va)
        i += 1
    for n in names[npos:npos + nkw]:
        kwargs[n] = loc[n]
        relevant.append(loc[n])
    if code.co_flags & 0x08:
        kwargs.update(loc[names[i]])
        relevant.extend(loc[names[i]].values())
    return handle(api, relevant, tuple(args), kwargs)


def binding_call(api, relevant, args, name):
    """The check of a hand-written binding-like entry (indexing): kwargs None, exact tensors not overloaded."""
    st = _tls
    if st.disabled == ALL_DISABLED:
        return NOT_HANDLED
    over = overloaded_args(relevant) if st.disabled == ENABLED else []
    if not over and not st.stack:
        return NOT_HANDLED
    return dispatch(api, over, args, None, name)


# ------------------------------------------------------------------ attribute reads
# torch dispatches every TensorBase method and property (`x.shape` as `Tensor.shape.__get__(x)`, `x.size()`,
# `x.item()`, `bool(x)`, `x.grad = g` as `Tensor.grad.__set__(x, g)`). ember writes these in Python on TensorImpl,
# and they are the hottest reads there are (kernels and the autograd engine read `.shape`, `.dtype`, `dim()` on every
# op), so their plain-tensor code carries no check at all. The check is put in place only where it can apply:
#
# - While a TorchFunctionMode is pushed (on any thread), each such function (a method, or a property's fget/fset/
#   fdel) runs other code: its `__code__` is swapped for a two-line twin that calls its `check` (see `switched`),
#   and swapped back when the last mode is popped. The function object stays the same, so `ember.Tensor.size` is
#   the function a mode received, during the mode and after it (torch's `func == Tensor.size`). The instance
#   attributes (`dtype`, `grad_fn`, `_base`) get a property on the class meanwhile (`_SWITCH_HOOKS`, _tensor.py).
# - A Tensor subclass taking part in the protocol gets, when it is defined, its own copies of these methods and
#   properties calling the same checks (`_SUBCLASS_HOOK`, set by _tensor.py): its instances pay, plain tensors don't.
#
# Measured (callgrind, `a + b` and the small-model steps): no instruction more on plain tensors with no mode.
# Under a mode every switched read costs a call and a thread-local read (~0.2 us) on every thread.

_SUBCLASS_HOOK = [None]   # fn(cls): install the checked reads on a participating Tensor subclass (_tensor.py)
_SWITCH_HOOKS = []        # fn(on): run when the first mode is pushed (on=True) and when the last one is popped
_SWITCHED = []            # [function, its own code, its twin's code]: swapped while a mode is pushed
_switched_on = [False]
_SLOT = "__ember_torch_function_check__"
_TWIN = []                # the twins' template code (compiled once)


def _switch(on):
    _switched_on[0] = on
    for f, own, twin in _SWITCHED:
        f.__code__ = twin if on else own
    for hook in _SWITCH_HOOKS:
        hook(on)


def make_check(api, orig, exact=True, kwargs_dict=False):
    """The check a switched read runs, called as `check(args, kwargs)`: the overrides of `api(*args, **kwargs)`
    when a mode is pushed on this thread or an argument's class takes part in the protocol, else `orig` (the
    read's own code). `exact`: plain tensors count as overloaded (their `Tensor` is in `types`), as for the
    TensorBase methods that call handle_torch_function on `self` and every property; False for those torch
    binds through its argument parser (size, stride, is_contiguous, numpy...). `kwargs_dict`: the methods torch
    writes in Python pass `{}` for no keyword arguments, its C methods None. The C ones with `exact` (its
    handle_torch_function(self, name) and the property getters and setters) overload `self` alone, whatever its
    class (a Parameter's type is in `types` too)."""
    self_only = exact and not kwargs_dict

    def check(args, kwargs):
        st = _tls
        if st.disabled != ALL_DISABLED:
            relevant = args + tuple(kwargs.values()) if kwargs else args
            if st.stack or (st.disabled == ENABLED and overloaded_args(relevant)):
                over = [args[0]] if self_only and st.disabled == ENABLED else \
                    overloaded_args(relevant, exact_tensor_too=exact)
                return dispatch(api, over, args, kwargs if kwargs or kwargs_dict else None)
        return orig(*args, **kwargs)
    return check


def twin(f, check):
    """A function of `f`'s name whose code is `return check(args, kwargs)` (taking `*args, **kwargs`): the code
    `switched` swaps in, and the checked copy a subclass gets. `check` is a constant of the code object, so the twin
    needs no global name in `f`'s module."""
    import types
    if not _TWIN:
        import warnings
        src = f"def _twin(*args, **kwargs):\n    return {_SLOT!r}(args, kwargs)\n"
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")          # "'str' object is not callable": the string is replaced below
            mod = compile(src, __file__, "exec")
        _TWIN.append(next(c for c in mod.co_consts if isinstance(c, types.CodeType)))
    code = _TWIN[0]
    code = code.replace(co_consts=tuple(check if c == _SLOT else c for c in code.co_consts), co_name=f.__name__,
                        co_qualname=f.__qualname__, co_filename=f.__code__.co_filename,
                        co_firstlineno=f.__code__.co_firstlineno)
    fn = types.FunctionType(code, f.__globals__, f.__name__)
    fn.__qualname__, fn.__doc__, fn.__module__ = f.__qualname__, f.__doc__, f.__module__
    return fn


def own_copy(f):
    """A second function object running `f`'s code as it is now (the body a switched function falls back to)."""
    import types
    g = types.FunctionType(f.__code__, f.__globals__, f.__name__, f.__defaults__, f.__closure__)
    g.__kwdefaults__, g.__qualname__, g.__doc__ = f.__kwdefaults__, f.__qualname__, f.__doc__
    return g


def switched(f, check):
    """Make `f` (a function without free variables) run `check` while a mode is pushed; returns the twin."""
    if f.__code__.co_freevars:
        raise ValueError(f"{f.__qualname__} has free variables: its code cannot be swapped")
    tw = twin(f, check)
    with _lock:
        entry = [f, f.__code__, tw.__code__]
        _SWITCHED.append(entry)
        if _switched_on[0]:
            f.__code__ = entry[2]
    return tw
