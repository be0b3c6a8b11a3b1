"""ember.utils.data: datasets, samplers and DataLoader (torch.utils.data)."""
from .dataset import (Dataset, IterableDataset, TensorDataset, StackDataset, ConcatDataset, ChainDataset,  # noqa: F401
                      Subset, random_split)
from .sampler import (Sampler, SequentialSampler, RandomSampler, SubsetRandomSampler,  # noqa: F401
                      WeightedRandomSampler, BatchSampler)
from .dataloader import DataLoader, default_collate, default_convert, get_worker_info  # noqa: F401
from ._utils.worker import WorkerInfo  # noqa: F401
from .distributed import DistributedSampler  # noqa: F401
