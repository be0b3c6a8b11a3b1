"""torch._dynamo.eval_frame: what `ember.compile` returns (a compiled function, OptimizedModule), the cache of
entries per code object, recompiles and their limits.

CPython has no frame-evaluation hook reachable from pure Python, so capture happens where the compiled callable
is called: the arguments are bound to the code's parameters (a generated binder), each cache entry's guard
function is tried in order, and a miss captures a new entry (convert_frame). Calls into other user functions are
inlined during capture; at a graph break they go through `call_at_break`, which compiles them in turn.
"""
import functools
import inspect
import sys
import types
import warnings

from ember.nn import Module

from . import config, utils
from . import convert_frame
from .convert_frame import SkipFrame, capture
from .exc import Unsupported
from .opcodes import SUPPORTED_VERSIONS
from .trace_rules import _disallowed, _is_ember_leaf

_STATES = {}             # (code, options key) -> FrameState
_TOTAL_COMPILES = [0]
_COMPILED_FNS = {}       # (function, options key) -> compiled function (calls at graph breaks)
_warned_version = [False]


def options_key(options):
    backend = options.get("backend")
    return (bool(options.get("fullgraph")), options.get("dynamic"),
            backend if isinstance(backend, str) else id(backend), options.get("mode"),
            repr(sorted((options.get("options") or {}).items())))


class FrameState:
    """The cache of one code object under one set of compile options."""

    def __init__(self, code, options, name):
        self.code, self.options, self.name = code, options, name
        self.entries = []
        self.n_compiles = 0
        self.eager = False
        self.eager_reason = None
        self.dynamic_dims = {}
        self.dynamic_ints = set()       # sources of int arguments that changed value (SymInt inputs from now on)
        self.break_log = []
        self.last_failure = None


def get_state(code, options, name):
    key = (code, options_key(options))
    st = _STATES.get(key)
    if st is None:
        st = _STATES[key] = FrameState(code, options, name)
    return st


def run_frame(state, L, G, C, eager, args, kwargs):
    for entry in state.entries:
        ins = entry.check(L, G, C)
        if ins is not None:
            return entry.run(ins, L, G, C)
    if state.eager:
        return eager(*args, **kwargs)
    return _miss(state, L, G, C, eager, args, kwargs)


def _miss(state, L, G, C, eager, args, kwargs):
    reason = None
    if state.entries:
        last = state.entries[-1]
        reason = last.guard_builder.failure_reason(L, G, C) or "a guard of the entry"
        state.last_failure = reason
        utils.counters["recompiles"][state.name] += 1
        utils.log("recompiles", f"Recompiling function {state.name}\n  triggered by the guard failure: {reason}")
        if config.verbose:
            print(f"ember._dynamo: recompiling {state.name}: {reason}", file=sys.stderr)
        if state.options.get("dynamic") is not False and config.automatic_dynamic_shapes:
            _mark_changed_dims(state, last, L, G, C)
    if state.n_compiles >= config.recompile_limit or _TOTAL_COMPILES[0] >= config.accumulated_recompile_limit:
        which = "recompile_limit" if state.n_compiles >= config.recompile_limit else "accumulated_recompile_limit"
        limit = getattr(config, which)
        state.eager = True
        state.eager_reason = f"hit config.{which} ({limit})"
        warnings.warn(f"ember._dynamo hit config.{which} ({limit}) for function {state.name!r}; it runs "
                      f"eagerly from now on. Last guard that failed: {reason}", UserWarning, stacklevel=4)
        return eager(*args, **kwargs)
    try:
        entry = capture(state, L, G, C)
    except SkipFrame as e:
        if state.options.get("fullgraph"):
            raise Unsupported(str(e)) from None
        state.eager = True
        state.eager_reason = str(e)
        utils.counters["frames"]["skipped"] += 1
        utils.log("graph_breaks", f"{state.name} runs eagerly: {e}")
        return eager(*args, **kwargs)
    state.n_compiles += 1
    _TOTAL_COMPILES[0] += 1
    utils.counters["frames"]["ok"] += 1
    state.entries.append(entry)
    ins = entry.check(L, G, C)
    if ins is None:
        return eager(*args, **kwargs)
    return entry.run(ins, L, G, C)


def _mark_changed_dims(state, entry, L, G, C):
    gb = entry.guard_builder
    for (kind, name), g in gb.guards.items():
        if kind == "EQUALS_MATCH" and getattr(g, "int_value", None) is not None:
            # an int argument whose value changed becomes a SymInt input (torch's automatic dynamic for ints,
            # specialize_int=False)
            try:
                now = eval(name, {"L": L, "G": G, "C": C, "___modules": sys.modules})
            except Exception:
                continue
            if type(now) is int and now != g.int_value and name not in state.dynamic_ints:
                state.dynamic_ints.add(name)
                utils.log("recompiles", f"automatic dynamic: int {name}")
            continue
        if kind != "TENSOR_MATCH":
            continue
        try:
            now = eval(name, {"L": L, "G": G, "C": C, "___modules": sys.modules})
        except Exception:
            continue
        old = getattr(g, "sizes", None)
        if old is None or not hasattr(now, "shape") or len(now.shape) != len(old):
            continue
        dims = {d for d in range(len(old)) if now.shape[d] != old[d]}
        if dims:
            state.dynamic_dims.setdefault(name, set()).update(dims)
            utils.log("recompiles", f"automatic dynamic: {name} dims {sorted(dims)}")


# ---------------------------------------------------------------------- binding arguments to locals
def make_binder(fn):
    """A generated function with `fn`'s signature returning its parameters in co_varnames order."""
    sig = inspect.signature(fn, follow_wrapped=False)
    parts, ns, seen_kwonly, posonly_done = [], {}, False, True
    order_pos, order_kw, star, dstar = [], [], None, None
    for i, p in enumerate(sig.parameters.values()):
        text = p.name
        if p.default is not inspect.Parameter.empty:
            ns[f"___d{i}"] = p.default
            text += f"=___d{i}"
        if p.kind is p.POSITIONAL_ONLY:
            posonly_done = False
            order_pos.append(p.name)
        elif p.kind is p.POSITIONAL_OR_KEYWORD:
            if not posonly_done:
                parts.append("/")
                posonly_done = True
            order_pos.append(p.name)
        elif p.kind is p.VAR_POSITIONAL:
            if not posonly_done:
                parts.append("/")
                posonly_done = True
            text = "*" + p.name
            star = p.name
            seen_kwonly = True
        elif p.kind is p.KEYWORD_ONLY:
            if not posonly_done:
                parts.append("/")
                posonly_done = True
            if not seen_kwonly:
                parts.append("*")
                seen_kwonly = True
            order_kw.append(p.name)
        else:
            if not posonly_done:
                parts.append("/")
                posonly_done = True
            text = "**" + p.name
            dstar = p.name
        parts.append(text)
    if not posonly_done:
        parts.append("/")
    names = order_pos + order_kw + ([star] if star else []) + ([dstar] if dstar else [])
    src = f"def ___bind({', '.join(parts)}):\n    return ({''.join(n + ', ' for n in names)})\n"
    exec(src, ns)
    return ns["___bind"]


def _version_ok():
    if sys.version_info[:2] in SUPPORTED_VERSIONS:
        return True
    if not _warned_version[0]:
        _warned_version[0] = True
        warnings.warn(f"ember.compile has no opcode table for Python {sys.version_info[0]}.{sys.version_info[1]} "
                      f"(supported: {sorted(SUPPORTED_VERSIONS)}); functions run eagerly", UserWarning,
                      stacklevel=3)
    return False


class CompiledFunction:
    """`ember.compile(fn)`: binds the call's arguments, checks the cache of fn's code object, captures on a miss."""

    def __init__(self, fn, options):
        self._orig_fn = fn
        self._options = options
        self._state = get_state(fn.__code__, options, fn.__qualname__)
        self._bind = make_binder(fn)
        self._G = fn.__globals__
        self._C = tuple(fn.__closure__ or ())
        functools.update_wrapper(self, fn)

    def __call__(self, *args, **kwargs):
        fn = self._orig_fn
        if fn in _disallowed:
            return fn(*args, **kwargs)
        return run_frame(self._state, self._bind(*args, **kwargs), self._G, self._C, fn, args, kwargs)

    def __get__(self, obj, objtype=None):
        if obj is None:
            return self
        return types.MethodType(self, obj)


class _ResumeRunner:
    """A compiled resume function: called with (locals..., stack values...)."""

    def __init__(self, fn, state):
        self.fn = fn
        self.state = get_state(fn.__code__, state.options, fn.__code__.co_qualname)
        self.G = fn.__globals__
        self.C = tuple(fn.__closure__ or ())

    def __call__(self, *args):
        return run_frame(self.state, args, self.G, self.C, self.fn, args, {})


def compiled_resume(fn, parent_state):
    return _ResumeRunner(fn, parent_state)


def _is_user_function(fn):
    """A function compiled in turn when a graph breaks at a call to it: user code, and ember.optim's steps (their
    tensor-op path is captured, see optim/optimizer.py `_compiling`)."""
    mod = fn.__module__ or "" if isinstance(fn, types.FunctionType) else ""
    return isinstance(fn, types.FunctionType) and not _is_ember_leaf(fn) and fn not in _disallowed and \
        (not mod.startswith("ember.") or mod.startswith("ember.optim."))


def call_at_break(fn, args, kwargs, options):
    """Run a call that broke the graph: user functions and modules are compiled in turn."""
    if not _version_ok():
        return fn(*args, **kwargs)
    target, pre = fn, ()
    if isinstance(fn, types.MethodType):
        target, pre = fn.__func__, (fn.__self__,)
    elif isinstance(fn, Module) and fn._compiled_call_impl is None:
        from ember.nn.modules import module as _mm
        m = fn
        if not (m._forward_hooks or m._forward_pre_hooks or m._backward_hooks or m._backward_pre_hooks
                or _mm._global_forward_hooks or _mm._global_forward_pre_hooks or _mm._global_backward_hooks
                or _mm._global_backward_pre_hooks) and "forward" not in m.__dict__:
            target, pre = type(m).forward, (m,)
    if _is_user_function(target) and not (target.__code__.co_flags & 0xA0):
        key = (target, options_key(options))
        cf = _COMPILED_FNS.get(key)
        if cf is None:
            cf = _COMPILED_FNS[key] = CompiledFunction(target, options)
        return cf(*pre, *args, **kwargs)
    return fn(*args, **kwargs)


convert_frame.RUNTIME.update(call_at_break=call_at_break, compiled_resume=compiled_resume)


def _call_module(self, *args, **kwargs):
    return self(*args, **kwargs)


class OptimizedModule(Module):
    """`ember.compile(module)`: calls run the captured graphs of `module`'s call. As torch's, the original module
    is the submodule `_orig_mod`, so state_dict keys carry the `_orig_mod.` prefix; other attributes are read from
    and written to the original module, and the training flag is the original module's."""

    def __init__(self, mod, options):
        super().__init__()
        Module.__setattr__(self, "_orig_mod", mod)            # a submodule, as torch registers it
        object.__setattr__(self, "_ember_orig", mod)           # the same, read without __getattr__ per call
        code = _call_module.__code__.replace(co_name=f"{type(mod).__name__}_compiled_call")
        fn = types.FunctionType(code, _call_module.__globals__, code.co_name)
        fn.__qualname__ = f"{type(mod).__qualname__}.forward"
        object.__setattr__(self, "_compiled", CompiledFunction(fn, options) if _version_ok() else None)

    @property
    def training(self):
        orig = self.__dict__.get("_ember_orig")
        return orig.training if orig is not None else True

    @training.setter
    def training(self, value):
        orig = self.__dict__.get("_ember_orig")
        if orig is not None:
            orig.training = value

    def __call__(self, *args, **kwargs):
        c = self._compiled
        if c is None:
            return self._ember_orig(*args, **kwargs)
        return c(self._ember_orig, *args, **kwargs)

    def forward(self, *args, **kwargs):
        return self(*args, **kwargs)

    def __getattr__(self, name):
        orig = self.__dict__.get("_ember_orig")
        if orig is None:
            raise AttributeError(f"'OptimizedModule' object has no attribute '{name}'")
        if name == "_orig_mod":
            return orig
        return getattr(orig, name)

    def __setattr__(self, name, value):
        if name == "training":
            object.__setattr__(self, name, value)
        elif "_ember_orig" not in self.__dict__:
            Module.__setattr__(self, name, value)               # during Module.__init__
        else:
            setattr(self._ember_orig, name, value)

    def __delattr__(self, name):
        delattr(self._ember_orig, name)


def optimize(model, options):
    """ember.compile's implementation (options: fullgraph, dynamic, backend, mode, options)."""
    if isinstance(model, Module):
        return OptimizedModule(model, options)
    if isinstance(model, types.MethodType):
        if model.__func__ is Module._call_impl:          # Module.compile()
            return compiled_call_impl(model.__self__, options)
        inner = optimize(model.__func__, options)
        return types.MethodType(inner, model.__self__)
    if not callable(model):
        raise RuntimeError("ember.compile: model must be a callable or an nn.Module")
    if not isinstance(model, types.FunctionType):
        if hasattr(type(model), "__call__") and isinstance(type(model).__call__, types.FunctionType):
            return types.MethodType(optimize(type(model).__call__, options), model)
        raise RuntimeError(f"ember.compile: cannot compile {type(model).__name__} objects")
    if not _version_ok():
        return model
    return CompiledFunction(model, options)


def compiled_call_impl(module, options):
    """For Module.compile(): the callable stored as module._compiled_call_impl."""
    code = _call_module.__code__.replace(co_name=f"{type(module).__name__}_compiled_call")
    fn = types.FunctionType(code, _call_module.__globals__, code.co_name)
    fn.__qualname__ = f"{type(module).__qualname__}.forward"
    cf = CompiledFunction(fn, options)

    def call(*args, **kwargs):
        object.__setattr__(module, "_compiled_call_impl", None)
        try:
            return cf(module, *args, **kwargs)
        finally:
            object.__setattr__(module, "_compiled_call_impl", call)
    return call


def reset():
    from . import resume_execution
    for st in _STATES.values():
        st.__init__(st.code, st.options, st.name)
    _STATES.clear()
    _TOTAL_COMPILES[0] = 0
    _COMPILED_FNS.clear()
    resume_execution.clear()
    utils.reset_counters()
