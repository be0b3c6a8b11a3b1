"""torch.nn.parallel: DistributedDataParallel (on ember.distributed) and DataParallel (a cpu pass-through)."""
from .distributed import DistributedDataParallel  # noqa: F401
from .data_parallel import DataParallel  # noqa: F401

__all__ = ["DistributedDataParallel", "DataParallel"]
