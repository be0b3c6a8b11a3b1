"""torch.amp.autocast_mode: the `autocast` context manager and decorator, and the per-device
autocast state (`is_autocast_enabled`, `get_autocast_dtype`, ...). CPU autocast is real (see
cast_policy); CUDA autocast is accepted and disabled with torch's warning, as on a machine without CUDA.
"""
import functools
import warnings

from .._core import dtype as D
from . import cast_policy

_DEVICES = ("cpu", "cuda")
_cuda_dtype = [D.float16]


def is_autocast_available(device_type):
    return device_type in _DEVICES


def _check_device(device_type):
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if device_type not in _DEVICES:
        raise RuntimeError(f"User specified an unsupported autocast device_type '{device_type}'")


def is_autocast_enabled(device_type="cuda"):
    _check_device(device_type)
    return cast_policy.is_enabled() if device_type == "cpu" else False


def set_autocast_enabled(device_type, enabled):
    _check_device(device_type)
    if device_type == "cpu":
        cast_policy.set_enabled(enabled)


def get_autocast_dtype(device_type):
    _check_device(device_type)
    return cast_policy.get_dtype() if device_type == "cpu" else _cuda_dtype[0]


def set_autocast_dtype(device_type, dtype):
    _check_device(device_type)
    if device_type == "cpu":
        cast_policy.set_dtype(dtype)
    else:
        _cuda_dtype[0] = dtype


def is_autocast_cache_enabled():
    return cast_policy.is_cache_enabled()


def set_autocast_cache_enabled(enabled):
    cast_policy.set_cache_enabled(enabled)


def clear_autocast_cache():
    cast_policy.clear_cache()


def autocast_increment_nesting():
    return cast_policy.increment_nesting()


def autocast_decrement_nesting():
    return cast_policy.decrement_nesting()


def _deprecated(old, new):
    warnings.warn(f"torch.{old}() is deprecated. Please use torch.{new} instead.", DeprecationWarning, stacklevel=3)


def is_autocast_cpu_enabled():
    _deprecated("is_autocast_cpu_enabled", "is_autocast_enabled('cpu')")
    return is_autocast_enabled("cpu")


def set_autocast_cpu_enabled(enabled):
    _deprecated("set_autocast_cpu_enabled", "set_autocast_enabled('cpu', enabled)")
    set_autocast_enabled("cpu", enabled)


def get_autocast_cpu_dtype():
    _deprecated("get_autocast_cpu_dtype", "get_autocast_dtype('cpu')")
    return get_autocast_dtype("cpu")


def set_autocast_cpu_dtype(dtype):
    _deprecated("set_autocast_cpu_dtype", "set_autocast_dtype('cpu', dtype)")
    set_autocast_dtype("cpu", dtype)


def get_autocast_gpu_dtype():
    _deprecated("get_autocast_gpu_dtype", "get_autocast_dtype('cuda')")
    return get_autocast_dtype("cuda")


class autocast:
    """`with ember.autocast("cpu", dtype=ember.bfloat16): ...` (or as a decorator). Regions nest; leaving
    one restores the enclosing state. Only float16 and bfloat16 are accepted on the CPU (another dtype
    warns and disables the region, as in torch)."""

    def __init__(self, device_type, dtype=None, enabled=True, cache_enabled=None):
        _check_device(device_type)
        self.device = device_type
        self.fast_dtype = get_autocast_dtype(device_type) if dtype is None else dtype
        self._cache_enabled = is_autocast_cache_enabled() if cache_enabled is None else cache_enabled
        if enabled:
            if device_type == "cuda":
                warnings.warn("CUDA is not available or torch_xla is imported. Disabling autocast.", stacklevel=2)
                enabled = False
            elif self.fast_dtype not in (D.bfloat16, D.float16):
                warnings.warn(f"In CPU autocast, but the target dtype is not supported. Disabling autocast.\n"
                              f"CPU Autocast only supports dtypes of {D.bfloat16}, {D.float16} currently.",
                              stacklevel=2)
                enabled = False
        self._enabled = enabled

    def __enter__(self):
        self.prev_cache_enabled = is_autocast_cache_enabled()
        self.prev = is_autocast_enabled(self.device)
        self.prev_fastdtype = get_autocast_dtype(self.device)
        set_autocast_enabled(self.device, self._enabled)
        set_autocast_dtype(self.device, self.fast_dtype)
        autocast_increment_nesting()
        set_autocast_cache_enabled(self._cache_enabled)
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        if autocast_decrement_nesting() == 0:     # left the outermost region: drop the cached casts
            clear_autocast_cache()
        set_autocast_enabled(self.device, self.prev)
        set_autocast_dtype(self.device, self.prev_fastdtype)
        set_autocast_cache_enabled(self.prev_cache_enabled)
        return False

    def __call__(self, func):
        @functools.wraps(func)
        def decorate_autocast(*args, **kwargs):
            with self:
                return func(*args, **kwargs)
        return decorate_autocast


def custom_fwd(fwd=None, *, device_type, cast_inputs=None):
    """Decorator for a custom autograd Function's forward: with `cast_inputs`, runs it with autocast off
    and its floating tensor arguments cast to `cast_inputs` when autocast is on."""
    if fwd is None:
        return functools.partial(custom_fwd, device_type=device_type, cast_inputs=cast_inputs)
    _check_device(device_type)

    @functools.wraps(fwd)
    def decorate_fwd(*args, **kwargs):
        args[0]._fwd_used_autocast = is_autocast_enabled(device_type)
        args[0]._dtype = get_autocast_dtype(device_type)
        if cast_inputs is None or not is_autocast_enabled(device_type):
            return fwd(*args, **kwargs)
        cast = cast_policy._cast_to(cast_inputs, (D.float32, D.float16, D.bfloat16))
        args, kwargs = cast_policy._map(cast, args, kwargs)
        with autocast(device_type=device_type, enabled=False):
            return fwd(*args, **kwargs)
    return decorate_fwd


def custom_bwd(bwd=None, *, device_type):
    """Decorator for a custom autograd Function's backward: runs it under the autocast state its
    forward saw."""
    if bwd is None:
        return functools.partial(custom_bwd, device_type=device_type)
    _check_device(device_type)

    @functools.wraps(bwd)
    def decorate_bwd(*args, **kwargs):
        with autocast(device_type=device_type, enabled=args[0]._fwd_used_autocast, dtype=args[0]._dtype):
            return bwd(*args, **kwargs)
    return decorate_bwd
