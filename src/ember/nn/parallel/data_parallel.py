"""torch.nn.parallel.DataParallel: without accelerators torch runs the wrapped module as is; so does ember."""
from ..modules import Module

__all__ = ["DataParallel"]


class DataParallel(Module):
    """Wraps `module` (state_dict keys get the ``module.`` prefix); on cpu forward calls it directly."""

    def __init__(self, module, device_ids=None, output_device=None, dim=0):
        super().__init__()
        self.module = module
        self.device_ids = []
        self.dim = dim
        self.output_device = None

    def forward(self, *inputs, **kwargs):
        return self.module(*inputs, **kwargs)
