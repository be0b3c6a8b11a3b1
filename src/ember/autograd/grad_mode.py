"""torch.autograd.grad_mode: the grad-mode context managers at torch's path (defined in ember._grad_mode)."""
from .._grad_mode import (enable_grad, inference_mode, no_grad, set_grad_enabled)  # noqa: F401
