"""ember.optim.lr_scheduler: learning-rate schedules with torch.optim.lr_scheduler's behaviour.

One idea per module: ``_base`` (the stepping protocol and state dict), ``_decay`` (step, multi-step,
exponential, polynomial), ``_warmup`` (constant and linear warm-up), ``_cosine`` (annealing with and
without restarts), ``_lambda`` (user functions), ``_cyclic`` / ``_one_cycle`` (+ ``_momentum``),
``_plateau`` (metric-driven) and ``_compose`` (sequential and chained).
"""
from ._base import EPOCH_DEPRECATION_WARNING, LRScheduler, _LRScheduler
from ._compose import ChainedScheduler, SequentialLR
from ._cosine import CosineAnnealingLR, CosineAnnealingWarmRestarts
from ._cyclic import CyclicLR
from ._decay import ExponentialLR, MultiStepLR, PolynomialLR, StepLR
from ._lambda import LambdaLR, MultiplicativeLR
from ._one_cycle import OneCycleLR
from ._plateau import ReduceLROnPlateau
from ._warmup import ConstantLR, LinearLR

__all__ = ["LambdaLR", "MultiplicativeLR", "StepLR", "MultiStepLR", "ConstantLR", "LinearLR", "ExponentialLR",
           "SequentialLR", "CosineAnnealingLR", "ChainedScheduler", "ReduceLROnPlateau", "CyclicLR",
           "CosineAnnealingWarmRestarts", "OneCycleLR", "PolynomialLR", "LRScheduler"]
