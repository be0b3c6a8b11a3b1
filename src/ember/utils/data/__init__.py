"""ember.utils.data: datasets, samplers and DataLoader (torch.utils.data)."""
from ..._core.unimplemented import missing_attribute as _missing_attribute
from .dataset import (Dataset, IterableDataset, TensorDataset, StackDataset, ConcatDataset, ChainDataset,  # noqa: F401
                      Subset, random_split)
from .sampler import (Sampler, SequentialSampler, RandomSampler, SubsetRandomSampler,  # noqa: F401
                      WeightedRandomSampler, BatchSampler)
from .dataloader import DataLoader, default_collate, default_convert, get_worker_info  # noqa: F401
from ._utils.worker import WorkerInfo  # noqa: F401
from .distributed import DistributedSampler  # noqa: F401


def __getattr__(name):   # torch names ember lacks say so (see ember/_core/unimplemented.py)
    return _missing_attribute(__name__, name)
