"""torch.amp: automatic mixed precision. `autocast("cpu", dtype=ember.bfloat16)` runs the matmul and
convolution family in the lower precision and the precision-sensitive ops (losses, reductions over
products, linear algebra) in float32, through the AutocastCPU dispatch key; `GradScaler` scales a loss
so float16 gradients do not underflow and skips optimizer steps whose gradients overflowed."""
from .._core.unimplemented import missing_attribute as _missing_attribute
from .autocast_mode import (autocast, autocast_decrement_nesting, autocast_increment_nesting,  # noqa: F401
                            clear_autocast_cache, custom_bwd, custom_fwd, get_autocast_cpu_dtype, get_autocast_dtype,
                            get_autocast_gpu_dtype, is_autocast_available, is_autocast_cache_enabled,
                            is_autocast_cpu_enabled, is_autocast_enabled, set_autocast_cache_enabled,
                            set_autocast_cpu_dtype, set_autocast_cpu_enabled, set_autocast_dtype,
                            set_autocast_enabled)
from .grad_scaler import GradScaler  # noqa: F401


def __getattr__(name):   # torch names ember lacks say so (see ember/_core/unimplemented.py)
    return _missing_attribute(__name__, name)
