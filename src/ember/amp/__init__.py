"""torch.amp: automatic mixed precision. `autocast("cpu", dtype=ember.bfloat16)` runs the matmul and
convolution family in the lower precision and the precision-sensitive ops (losses, reductions over
products, linear algebra) in float32, through the AutocastCPU dispatch key; `GradScaler` scales a loss
so float16 gradients do not underflow and skips optimizer steps whose gradients overflowed."""
from .autocast_mode import (autocast, custom_bwd, custom_fwd, get_autocast_dtype, is_autocast_available,  # noqa: F401
                            is_autocast_enabled, set_autocast_dtype, set_autocast_enabled)
from .grad_scaler import GradScaler  # noqa: F401
