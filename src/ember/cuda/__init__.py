"""torch.cuda on a build without CUDA: ember has no GPU backend, so this module answers the way torch's
CPU-only build does. Queries say "none" (`is_available()` False, `device_count()` 0, memory counters 0),
seeding is accepted and ignored (torch queues it for a lazy init that never happens), and everything that
needs a device raises torch's `AssertionError("Torch not compiled with CUDA enabled")`.
"""
from .._core.unimplemented import missing_attribute as _missing_attribute
import collections
import warnings

from . import amp, nvtx  # noqa: F401

_NOT_COMPILED = "Torch not compiled with CUDA enabled"


def _not_compiled(*args, **kwargs):
    raise AssertionError(_NOT_COMPILED)


def _is_compiled():
    return False


def is_available():
    return False


def device_count():
    return 0


def is_initialized():
    return False


def init():
    _not_compiled()


def is_bf16_supported(including_emulation=True):
    return False


def is_tf32_supported():
    return False


def get_arch_list():
    return []


def get_gencode_flags():
    return ""


# seeding: accepted and dropped, as torch queues it until a CUDA init that never comes
def manual_seed(seed):
    int(seed)


def manual_seed_all(seed):
    int(seed)


def seed():
    return None


def seed_all():
    return None


def get_rng_state_all():
    return []


def set_rng_state(new_state, device="cuda"):
    return None


def set_rng_state_all(new_states):
    for state in new_states:
        set_rng_state(state)


default_generators = ()

# anything that needs the runtime
current_device = _not_compiled
get_device_name = _not_compiled
get_device_properties = _not_compiled
get_device_capability = _not_compiled
synchronize = _not_compiled
current_stream = _not_compiled
default_stream = _not_compiled
current_blas_handle = _not_compiled
initial_seed = _not_compiled
get_rng_state = _not_compiled
ipc_collect = _not_compiled
mem_get_info = _not_compiled
set_per_process_memory_fraction = _not_compiled
caching_allocator_alloc = _not_compiled
caching_allocator_delete = _not_compiled


def set_device(device):
    from .._core.device import device as _device
    if isinstance(device, str) or isinstance(device, _device):
        d = _device(device)
        if d.type != "cuda":
            raise ValueError(f"Expected a cuda device, but got: {d}")
    _not_compiled()


# the caching allocator's counters: nothing is ever allocated
def empty_cache():
    return None


def memory_allocated(device=None):
    return 0


def max_memory_allocated(device=None):
    return 0


def memory_reserved(device=None):
    return 0


def max_memory_reserved(device=None):
    return 0


def memory_cached(device=None):
    warnings.warn("`torch.cuda.memory_cached` has been renamed to `torch.cuda.memory_reserved`", FutureWarning,
                  stacklevel=2)
    return 0


def memory_stats(device=None):
    return collections.OrderedDict()


def reset_peak_memory_stats(device=None):
    _not_compiled()


def reset_max_memory_allocated(device=None):
    _not_compiled()


def reset_accumulated_memory_stats(device=None):
    _not_compiled()


class device:
    """Context manager that makes `idx` the current CUDA device; entering it with a real index raises."""

    def __init__(self, device):
        from .._core.device import device as _device
        if isinstance(device, (str, _device)):
            device = _device(device).index
        self.idx = device
        self.prev_idx = -1

    def __enter__(self):
        if self.idx is None or self.idx == -1:
            return None
        raise RuntimeError("PyTorch was compiled without CUDA support")

    def __exit__(self, *exc):
        return False


class device_of(device):
    """Context manager selecting the device of a tensor (a no-op for a cpu tensor)."""

    def __init__(self, obj):
        super().__init__(obj.get_device() if obj.device.type == "cuda" else -1)


class StreamContext:
    """`with torch.cuda.stream(s)`: a no-op for `None`, as in torch."""

    def __init__(self, stream):
        self.stream = stream
        if stream is not None:
            _not_compiled()

    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return False


def stream(stream):
    return StreamContext(stream)


class Stream:
    def __new__(cls, *args, **kwargs):
        raise RuntimeError("torch.cuda.Stream requires CUDA support")


class Event:
    def __new__(cls, *args, **kwargs):
        raise RuntimeError("Tried to instantiate dummy base class Event")


def _legacy_type(name):
    def __new__(cls, *args, **kwargs):
        raise TypeError(f"type torch.cuda.{name} not available. {_NOT_COMPILED}.")
    return type(name, (), {"__new__": __new__, "__module__": __name__})


FloatTensor = _legacy_type("FloatTensor")
DoubleTensor = _legacy_type("DoubleTensor")
HalfTensor = _legacy_type("HalfTensor")
BFloat16Tensor = _legacy_type("BFloat16Tensor")
ByteTensor = _legacy_type("ByteTensor")
CharTensor = _legacy_type("CharTensor")
ShortTensor = _legacy_type("ShortTensor")
IntTensor = _legacy_type("IntTensor")
LongTensor = _legacy_type("LongTensor")
BoolTensor = _legacy_type("BoolTensor")


def __getattr__(name):   # torch names ember lacks say so (see ember/_core/unimplemented.py)
    return _missing_attribute(__name__, name)
