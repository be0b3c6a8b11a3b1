"""torch's process-wide numeric switches that scripts set in their setup code: deterministic algorithms
(`use_deterministic_algorithms`), the float32 matmul precision (`set_float32_matmul_precision`) and whether
once-per-process warnings repeat (`set_warn_always`).

ember's CPU kernels are deterministic (numpy and its own C kernels, no atomics) and compute float32
matmuls in float32 (no TF32 or bfloat16 passes), so the settings change no result: they are recorded and
read back as torch does, with torch's argument checks.
"""
import warnings

_STATE = {"deterministic": False, "warn_only": False, "debug_mode": 0, "matmul_precision": "highest",
          "warn_always": False}


def set_warn_always(b, /):
    if not isinstance(b, bool):
        raise RuntimeError(f"setWarnOnlyOnce expects a bool, but got {type(b).__name__}")
    _STATE["warn_always"] = b


def is_warn_always_enabled():
    return _STATE["warn_always"]


def use_deterministic_algorithms(mode, *, warn_only=False):
    if not isinstance(mode, bool):
        raise TypeError(f"_set_deterministic_algorithms(): argument 'mode' (position 1) must be bool, not "
                        f"{type(mode).__name__}")
    if not isinstance(warn_only, bool):
        raise TypeError(f"_set_deterministic_algorithms(): argument 'warn_only' must be bool, not "
                        f"{type(warn_only).__name__}")
    _STATE["deterministic"], _STATE["warn_only"] = mode, warn_only and mode
    _STATE["debug_mode"] = (1 if warn_only else 2) if mode else 0


def are_deterministic_algorithms_enabled():
    return _STATE["deterministic"]


def is_deterministic_algorithms_warn_only_enabled():
    return _STATE["warn_only"]


def set_deterministic_debug_mode(debug_mode):
    names = {"default": 0, "warn": 1, "error": 2}
    if isinstance(debug_mode, str):
        if debug_mode not in names:
            raise RuntimeError(f"invalid value of debug_mode, expected one of `default`, `warn`, `error`, but got "
                               f"{debug_mode}")
        debug_mode = names[debug_mode]
    if debug_mode not in (0, 1, 2):
        raise RuntimeError(f"invalid value of debug_mode, expected 0, 1, or 2, but got {debug_mode}")
    use_deterministic_algorithms(debug_mode != 0, warn_only=debug_mode == 1)


def get_deterministic_debug_mode():
    return _STATE["debug_mode"]


def set_float32_matmul_precision(precision):
    if not isinstance(precision, str):
        raise RuntimeError(f"set_float32_matmul_precision expects a str, but got {type(precision).__name__}")
    if precision not in ("highest", "high", "medium"):
        warnings.warn(f"{precision} is not one of 'highest', 'high', or 'medium'; the current"
                      f"setFloat32MatmulPrecision call has no effect.", stacklevel=2)
        return
    _STATE["matmul_precision"] = precision


def get_float32_matmul_precision():
    return _STATE["matmul_precision"]
