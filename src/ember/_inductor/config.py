"""torch._inductor.config: the knobs of ember's C code generator, torch's names, read when a graph is compiled.

    from ember._inductor import config
    config.cpp.threads = 1                       # set for the process
    with config.patch("max_autotune", True):     # or patch({"cpp.threads": 1}), patch(debug=True)
        ...
    @config.patch(fallback_random=True)          # a decorator too
    def test(): ...

Top-level knobs are module attributes; `cpp` is a namespace class (`config.cpp.threads`) as in torch. There is
no `triton` namespace (ember generates C for the CPU only). Patches are process-wide (torch's are thread-local),
and restore the previous values on exit even when the body raises.

Who reads what today: `fallback_by_default` (modes.InductorWrapper runs the graphs with aot_eager), `cpp.cxx` and
`cpp.simdlen` (codecache: the compiler and a vector-width flag, both in the cache key), `fx_graph_cache`
(compile_fx: the graph-level disk cache of fxgraph_cache.py; every knob is part of its key), `cpp.threads` and
`cpp.enable_kernel_profile` (codegen/wrapper.py: parallel outer loops, per-entry timing), `max_autotune`
(autotune.py: each graph generated with several tile parameters, the fastest variant kept and stored on disk),
`debug` (re-raises lowering errors). `UNREAD` lists the knobs that exist for torch's names but change nothing yet,
with why; ember.compile(options=...) warns when one of them is set. Random ops are always extern calls to eager
(what `fallback_random=True` asks for). Each graph is compiled under the config the backend was called with
(compile_fx snapshots it: AOT autograd compiles the backward later, on the first backward).

What ember.compile's `mode=` selects (ember._inductor.modes, torch's `list_mode_options`; docs/inductor_modes.md):
  "default"                      nothing changes.
  "lite"                         fallback_by_default: the graphs run op by op (AOT autograd, no generated C).
  "reduce-overhead"              cpp_wrapper (torch: CUDA graphs). Compiles as "default", whose wrapper already
                                 makes one ctypes call per run of kernels and BLAS matmuls (the gemms are called
                                 from the C entry) and reuses its storage arenas between calls.
  "max-autotune-no-cudagraphs"   max_autotune + coordinate_descent_tuning: try tile sizes per graph (column-reduction
                                 blocks, float32 sum blocks, the parallel threshold), keep the fastest (cached).
  "max-autotune"                 the above and cpp_wrapper (not implemented, as above).
"""
import contextlib
import os


def _env_flag(name, default=False):
    v = os.environ.get(name)
    return default if v is None else v not in ("", "0", "false", "False")


# Print the generated code and keep more of the intermediate state (torch: also TORCH_COMPILE_DEBUG=1).
debug = _env_flag("EMBER_COMPILE_DEBUG")
# Try several tile sizes / loop orders per kernel and keep the fastest (mode="max-autotune").
max_autotune = _env_flag("EMBER_INDUCTOR_MAX_AUTOTUNE")
# Tune one parameter at a time around the best configuration (mode="max-autotune").
coordinate_descent_tuning = False
# Random ops (rand, dropout) run as extern calls to eager so compiled code gives eager's numbers for a seed.
fallback_random = False
# Constant-fold parameters of inference graphs (no grad) into the generated code.
freezing = _env_flag("EMBER_INDUCTOR_FREEZING")
# Every graph runs op by op through AOT autograd instead of generated C (mode="lite").
fallback_by_default = False
# One C entry point per graph that calls every kernel and extern op (mode="reduce-overhead"). Not read: the
# default wrapper calls kernels and BLAS matmuls from C already (docs/inductor_modes.md).
cpp_wrapper = False
# The graph-level disk cache (fxgraph_cache.py): a new process reuses the AOT graphs and generated code of a graph
# it compiled before (torch: fx_graph_cache, TORCHINDUCTOR_FX_GRAPH_CACHE).
fx_graph_cache = _env_flag("EMBER_INDUCTOR_FX_GRAPH_CACHE", True)
# Processes compiling kernels in parallel.
compile_threads = max(1, min(32, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity")
                             else os.cpu_count() or 1))


class cpp:
    """Knobs of the C backend (torch: `config.cpp`)."""
    # threads of a parallel outer loop; -1 = ember.get_num_threads()
    threads = -1
    # elements per vector lane group gcc should assume; None = what -march=native offers
    simdlen = None
    # record each kernel's time (ember.profiler) around its call
    enable_kernel_profile = False
    # the compiler, torch's (None, name) form; the name may also be a path
    cxx = (None, os.environ.get("CC", "gcc"))


# knobs that exist (torch's names, settable, part of the cache keys) but that nothing reads yet: name -> why
UNREAD = {
    "coordinate_descent_tuning": "max_autotune's variant set is searched exhaustively; there is no separate "
                                 "coordinate descent",
    "cpp_wrapper": "the default wrapper already calls kernels and BLAS matmuls from one C entry per run of them; "
                   "the other extern ops (attention, convolution, fallbacks) are called from Python",
    "freezing": "parameters are not constant-folded into the generated code",
    "fallback_random": "random ops are always extern calls to eager's generator (as if True)",
}

_NAMESPACES = {"cpp": cpp}
_TOP = ("debug", "max_autotune", "coordinate_descent_tuning", "fallback_random", "freezing",
        "fallback_by_default", "cpp_wrapper", "compile_threads", "fx_graph_cache")
_CPP = ("threads", "simdlen", "enable_kernel_profile", "cxx")
_KEYS = _TOP + tuple(f"cpp.{k}" for k in _CPP)
_TYPES = {"debug": bool, "max_autotune": bool, "coordinate_descent_tuning": bool, "fallback_random": bool,
          "freezing": bool, "fallback_by_default": bool, "cpp_wrapper": bool, "compile_threads": int,
          "fx_graph_cache": bool,
          "cpp.threads": int, "cpp.simdlen": (int, type(None)), "cpp.enable_kernel_profile": bool,
          "cpp.cxx": tuple}


def _owner(key):
    if key not in _KEYS:
        raise AttributeError(f"{__name__}.{key} does not exist")
    if "." in key:
        ns, attr = key.split(".", 1)
        return _NAMESPACES[ns], attr
    import sys
    return sys.modules[__name__], key


def _get(key):
    """The value of a knob by its dotted name ("cpp.threads")."""
    obj, attr = _owner(key)
    return getattr(obj, attr)


def _set(key, value):
    obj, attr = _owner(key)
    setattr(obj, attr, value)


def get_type(key):
    _owner(key)
    return _TYPES[key]


def get_config_copy():
    """{dotted name: value} of every knob."""
    return {k: _get(k) for k in _KEYS}


def load_config(values):
    """Set the knobs of a dict made by get_config_copy (or part of one)."""
    for k, v in values.items():
        _set(k, v)


class _Patch(contextlib.ContextDecorator):
    def __init__(self, changes):
        for k in changes:
            _owner(k)                     # unknown names raise before anything changes
        self.changes = dict(changes)
        self._saved = []

    def __enter__(self):
        prior = {k: _get(k) for k in self.changes}
        self._saved.append(prior)
        try:
            for k, v in self.changes.items():
                _set(k, v)
        except Exception:
            load_config(self._saved.pop())
            raise
        return self

    def __exit__(self, *exc):
        load_config(self._saved.pop())
        return False


def patch(arg1=None, arg2=None, **kwargs):
    """Change knobs for a `with` block or a decorated function: patch("name", value), patch({"cpp.threads": 1})
    or patch(debug=True)."""
    if arg1 is not None:
        if arg2 is not None:
            if not isinstance(arg1, str):
                raise AssertionError("first argument must be a string when passing 2 positional args to patch")
            changes = {arg1: arg2}
        else:
            if not isinstance(arg1, dict):
                raise AssertionError("first argument must be a dict when passing a single positional arg to patch")
            changes = arg1
        if kwargs:
            raise AssertionError("cannot pass both positional and keyword arguments to patch")
    else:
        if arg2 is not None:
            raise AssertionError("second positional argument is only valid when first argument is a key string")
        changes = kwargs
    return _Patch(changes)


def threads():
    """The thread count generated parallel loops use: cpp.threads, or ember's (-1)."""
    if cpp.threads > 0:
        return cpp.threads
    from ember.kernels.cpu.runtime.pool import get_num_threads
    return get_num_threads()

