"""ember: PyTorch's architecture, rebuilt in readable Python (the `torch` package namespace).

`import ember` loads the core and the bindings; everything else loads on first attribute access.
The namespace is filled in this order, later entries winning where a name repeats:

1. `_core`: dtypes (and their short aliases below), device, Size, UntypedStorage, default dtype and promotion;
2. `Tensor` (`_tensor.py`; importing it loads the op registry, the generated bindings and the fallbacks),
   `ops`, and the generated aten op table (`_generated/registrations.py`);
3. the generated bindings (ember.add, ...), named by the index `_generated/functions.py`: each op family's
   module loads on the first access to one of its names (`__getattr__` below, see `_bindings.py`), and the name
   is kept in this namespace; `ember._nn` / `ember._linalg` (torch._C._nn / torch._C._linalg,
   `_generated/{nn,linalg}_functions.py`) load on first access;
4. the hand-written functions of `functional.py` (ember.tensor, ember.split, ember.einsum, ...), which
   replace the generated binding of the same name where torch's Python signature differs;
5. finfo/iinfo, the random-number functions and the grad-mode context managers;
6. lazily, on first access: the subpackages in `_LAZY_SUBMODULES` that exist in this tree, and the
   names in `_LAZY_ATTRS`. A name in `_LAZY_SUBMODULES` whose package does not exist yet (fx, distributed,
   ...) is simply absent: `hasattr(ember, "fx")` is False until `ember/fx/` is written, then True.
"""
import importlib as _importlib
import math as _math

import gc as _gc

# The import makes some tens of thousands of long-lived objects (functions, code, op entries): with the cycle
# collector on, its young-generation passes ran again and again over them (about a tenth of the import).
# With it off, the first allocation after re-enabling it ran one young pass over all ~26k of them (10-20 ms,
# the largest self time of `import ember` in -X importtime) and left them one step from an older pass, and
# every full collection of the program walked them again. They live as long as the process, so they are
# frozen (gc.freeze: moved to the permanent generation the collector never walks; freed by reference count
# as before). Objects that existed before `import ember` are frozen with them: a reference cycle among those
# that becomes garbage later is not collected (torch does not freeze; a program importing ember at start has
# only the interpreter's and its other imports' objects then).
_gc_was_enabled = _gc.isenabled()
_gc.disable()
try:
    from ._core.dtype import (dtype, bool_ as bool, uint8, int8, int16, uint16, int32, uint32, int64, uint64,  # noqa: F401
                              float8_e4m3fn, float8_e5m2, float8_e4m3fnuz, float8_e5m2fnuz, float16, bfloat16, float32,
                              float64, complex64, complex128, promote_types)
    from ._core.device import device  # noqa: F401
    from ._core.device import device as _device_cls
    from ._core.size import Size  # noqa: F401
    from ._core.symint import SymInt, SymFloat, SymBool, sym_int, sym_float, sym_max, sym_min, sym_not, sym_ite  # noqa: F401
    from ._core.storage import UntypedStorage  # noqa: F401
    from ._core import unimplemented as _unimplemented
    from ._core.promotion import get_default_dtype, set_default_dtype, can_cast  # noqa: F401
    from ._tensor import Tensor  # noqa: F401
    from ._ops import ops  # noqa: F401
    from . import _fallbacks  # noqa: F401  (Python-mode, ADInplaceOrView and BackendSelect fallbacks)
    from . import _math_bits  # noqa: F401  (the Conjugate and Negative fallbacks: lazy conj and neg bits)
    from ._generated import registrations as _registrations  # noqa: F401
    from ._generated import functions as _functions    # the bindings' index: ember.add etc. come from __getattr__
    from .functional import *  # noqa: F401,F403
    from .functional import deprecated_range as range  # noqa: F401,A001  (torch.range: not in functional's globals)
    from ._tensor_types import *  # noqa: F401,F403  (the legacy FloatTensor, LongTensor, ... constructors)
    from ._core.device import set_default_device, get_default_device  # noqa: F401
    from ._tensor_str import set_printoptions, get_printoptions  # noqa: F401
    from ._numeric_flags import (set_warn_always, is_warn_always_enabled, use_deterministic_algorithms, are_deterministic_algorithms_enabled,  # noqa: F401
                                 is_deterministic_algorithms_warn_only_enabled, set_deterministic_debug_mode,
                                 get_deterministic_debug_mode, set_float32_matmul_precision, get_float32_matmul_precision)
    from .kernels.cpu.runtime.pool import (get_num_threads, set_num_threads, get_num_interop_threads,  # noqa: F401
                                           set_num_interop_threads)
    from ._dtype_info import finfo, iinfo  # noqa: F401
    from ._random import manual_seed, seed, initial_seed, Generator, default_generator, get_rng_state, set_rng_state  # noqa: F401
    from ._grad_mode import no_grad, enable_grad, set_grad_enabled, is_grad_enabled, inference_mode, is_inference_mode_enabled  # noqa: F401
finally:
    if _gc_was_enabled:
        _gc.freeze()
        _gc.enable()
    del _gc, _gc_was_enabled

half, float, double, long, int, short, cfloat, cdouble = float16, float32, float64, int64, int32, int16, complex64, complex128  # noqa: A001
from ._core.memory_format import memory_format, layout, MEMORY_FORMATS as _MF, LAYOUTS as _LAYOUTS  # noqa: E402
contiguous_format, preserve_format, channels_last, channels_last_3d, legacy_contiguous_format = (
    _MF["contiguous_format"], _MF["preserve_format"], _MF["channels_last"], _MF["channels_last_3d"],
    _MF["legacy_contiguous_format"])
strided, sparse_coo, sparse_csr, sparse_csc, sparse_bsr, sparse_bsc, _mkldnn, jagged = (
    _LAYOUTS["strided"], _LAYOUTS["sparse_coo"], _LAYOUTS["sparse_csr"], _LAYOUTS["sparse_csc"],
    _LAYOUTS["sparse_bsr"], _LAYOUTS["sparse_bsc"], _LAYOUTS["_mkldnn"], _LAYOUTS["jagged"])
pi, e, inf, nan, newaxis = _math.pi, _math.e, _math.inf, _math.nan, None

# Subpackages imported on first access, with torch's names. Adding one is one entry here; an entry whose
# package does not exist yet is not an attribute (tests/core/test_namespace.py imports every one that exists).
_LAZY_SUBMODULES = (
    "nn", "optim", "autograd", "utils", "library", "testing", "serialization", "linalg", "func", "return_types",
    "overrides", "distributions", "fx", "compiler", "distributed", "_dynamo", "_functorch", "_inductor",
    "cuda", "backends", "onnx", "jit", "amp", "version", "fft", "special", "cpu", "accelerator", "random",
    "profiler", "multiprocessing", "types", "torch_version", "signal", "hub", "export", "_C",
)
_LAZY_MODULES = {"_nn": "ember._generated.nn_functions", "_linalg": "ember._generated.linalg_functions"}
# __version__ is a TorchVersion (torch's str subclass): lazy, its comparisons import packaging
_LAZY_ATTRS = {"__version__": ("ember.torch_version", "__version__"), "save": ("ember.serialization", "save"), "load": ("ember.serialization", "load"),
               "compile": ("ember.compiler", "compile"), "vmap": ("ember.func", "vmap"),
               "autocast": ("ember.amp", "autocast"), "GradScaler": ("ember.amp", "GradScaler"),
               **{n: ("ember.autograd.anomaly_mode", n) for n in (
                   "is_anomaly_enabled", "is_anomaly_check_nan_enabled", "set_anomaly_enabled")}, "is_autocast_enabled": ("ember.amp", "is_autocast_enabled"),
               "set_autocast_enabled": ("ember.amp", "set_autocast_enabled"),
               "get_autocast_dtype": ("ember.amp", "get_autocast_dtype"),
               "set_autocast_dtype": ("ember.amp", "set_autocast_dtype"),
               **{n: ("ember.amp", n) for n in (
                   "is_autocast_cache_enabled", "set_autocast_cache_enabled", "clear_autocast_cache",
                   "autocast_increment_nesting", "autocast_decrement_nesting", "is_autocast_cpu_enabled",
                   "set_autocast_cpu_enabled", "get_autocast_cpu_dtype", "set_autocast_cpu_dtype",
                   "get_autocast_gpu_dtype")}}


_BINDINGS = _functions._FAMILIES   # the generated ember.<name> bindings, by name: loaded on first access

_unimplemented.install()    # `import ember.<torch submodule ember lacks>` names the missing torch module


def _lazy_submodule_exists(name):
    import importlib.util      # first needed here, not by `import ember`
    return importlib.util.find_spec(f"{__name__}.{name}") is not None


def get_device_module(device=None):   # noqa: F811  (torch's parameter name)
    """The module of a device type (`ember.get_device_module("cuda")` is ember.cuda); None: the current
    accelerator's, which is the cpu's here."""
    if isinstance(device, _device_cls):
        name = device.type
    elif isinstance(device, str):
        name = _device_cls(device).type
    elif device is None:
        name = "cpu"
    else:
        raise RuntimeError(f"Invalid value of device '{device}', expect torch.device, str, or None")
    mod = globals().get(name) or (__getattr__(name) if name in _LAZY_SUBMODULES and _lazy_submodule_exists(name)
                                  else None)
    if mod is None:
        raise RuntimeError(f"Device '{name}' does not have a corresponding module registered as 'torch.{name}'.")
    return mod


def is_vulkan_available():
    """No Vulkan backend in ember (torch's answer on a build without one)."""
    return False


def __getattr__(name):
    if name in _BINDINGS:      # first: these were plain globals of ember before any lazy name
        val = getattr(_functions, name)
        globals()[name] = val
        return val
    if name in _LAZY_SUBMODULES and _lazy_submodule_exists(name):
        mod = _importlib.import_module(f"{__name__}.{name}")
        globals()[name] = mod
        return mod
    if name in _LAZY_MODULES:
        mod = _importlib.import_module(_LAZY_MODULES[name])
        globals()[name] = mod
        return mod
    if name in _LAZY_ATTRS:
        mod, attr = _LAZY_ATTRS[name]
        val = getattr(_importlib.import_module(mod), attr)
        globals()[name] = val
        return val
    raise _unimplemented.no_attribute("ember", name)


def __dir__():
    return sorted(set(globals()) | {n for n in _LAZY_SUBMODULES if _lazy_submodule_exists(n)} | set(_LAZY_ATTRS)
                  | set(_LAZY_MODULES) | set(_BINDINGS))
