"""torch.backends.cuda without CUDA: `is_built()` False, `matmul` holding cuBLAS's precision switches
(`allow_tf32`, which is set_float32_matmul_precision's "high" as in torch; reduced-precision reductions)
with torch's defaults and torch's "Unknown attribute" error
for any other name, and the scaled-dot-product-attention backend switches."""
import contextlib
import warnings


def is_built():
    return False


class cuBLASModule:
    """`torch.backends.cuda.matmul`: a fixed set of settable switches."""

    _DEFAULTS = {"allow_tf32": False, "allow_fp16_reduced_precision_reduction": True,
                 "allow_fp16_reduced_precision_reduction_split_k": True,
                 "allow_bf16_reduced_precision_reduction": True,
                 "allow_bf16_reduced_precision_reduction_split_k": True,
                 "allow_fp16_accumulation": False, "fp32_precision": "none"}

    def __init__(self):
        object.__setattr__(self, "_values", dict(self._DEFAULTS))

    def __getattr__(self, name):
        if name == "allow_tf32":          # torch: the same switch as set_float32_matmul_precision
            from .._numeric_flags import get_float32_matmul_precision
            return get_float32_matmul_precision() != "highest"
        values = object.__getattribute__(self, "_values")
        if name in values:
            return values[name]
        raise AttributeError("Unknown attribute " + name)

    def __setattr__(self, name, value):
        if name not in self._DEFAULTS or name.endswith("_split_k"):
            raise AttributeError("Unknown attribute " + name)
        if name == "allow_tf32":
            from .._numeric_flags import set_float32_matmul_precision
            set_float32_matmul_precision("high" if value else "highest")
        elif name.startswith("allow_") and name.endswith("_reduced_precision_reduction"):
            allow, splitk = _reduction_setting(value, name)
            self._values[name] = allow
            self._values[name + "_split_k"] = splitk
        else:
            self._values[name] = value


def _reduction_setting(value, attr_name):
    def as_bool(obj, which):
        if isinstance(obj, bool):
            return obj
        raise TypeError(f"{attr_name} expects a bool for {which}, but got {type(obj)!r}")
    if isinstance(value, bool):
        return value, True
    if isinstance(value, (list, tuple)):
        if not value:
            raise TypeError(f"{attr_name} expects at least one boolean argument")
        if len(value) > 2:
            raise TypeError(f"{attr_name} expects at most two boolean arguments")
        allow = as_bool(value[0], "allow_reduced_precision")
        return allow, (as_bool(value[1], "allow_splitk") if len(value) == 2 else True)
    raise TypeError(f"{attr_name} expects a bool or a tuple/list of bools, but got {type(value)!r}")


matmul = cuBLASModule()

# scaled_dot_product_attention backends (only the math one exists in ember; the switches are recorded)
_SDP = {"flash": True, "mem_efficient": True, "math": True, "cudnn": True}


def flash_sdp_enabled():
    return _SDP["flash"]


def enable_flash_sdp(enabled):
    _SDP["flash"] = bool(enabled)


def mem_efficient_sdp_enabled():
    return _SDP["mem_efficient"]


def enable_mem_efficient_sdp(enabled):
    _SDP["mem_efficient"] = bool(enabled)


def math_sdp_enabled():
    return _SDP["math"]


def enable_math_sdp(enabled):
    _SDP["math"] = bool(enabled)


def cudnn_sdp_enabled():
    return _SDP["cudnn"]


def enable_cudnn_sdp(enabled):
    _SDP["cudnn"] = bool(enabled)


def is_flash_attention_available():
    return False


@contextlib.contextmanager
def sdp_kernel(enable_flash=True, enable_math=True, enable_mem_efficient=True, enable_cudnn=True):
    """Deprecated in torch for torch.nn.attention.sdpa_kernel; sets the switches for the block."""
    warnings.warn("`torch.backends.cuda.sdp_kernel()` is deprecated. In the future, this context manager will be "
                  "removed. Please see `torch.nn.attention.sdpa_kernel()` for the new context manager, with updated "
                  "signature.", FutureWarning, stacklevel=3)
    old = dict(_SDP)
    _SDP.update(flash=enable_flash, math=enable_math, mem_efficient=enable_mem_efficient, cudnn=enable_cudnn)
    try:
        yield
    finally:
        _SDP.update(old)


def preferred_linalg_library(backend=None):
    return "default"


def preferred_blas_library(backend=None):
    return "cublas"
