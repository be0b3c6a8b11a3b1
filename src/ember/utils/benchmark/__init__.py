"""torch.utils.benchmark: Timer (timeit / blocked_autorange / adaptive_autorange), Measurement, Compare, at
torch's paths (torch/utils/benchmark/utils/{common,timer,compare}.py). Python statements only: the C++
timer, Callgrind collection and the fuzzers are not part of ember."""
from .utils.common import (Measurement, TaskSpec, ordered_unique, select_unit, set_torch_threads,  # noqa: F401
                           trim_sigfig, unit_to_english)
from .utils.compare import Colorize, Compare  # noqa: F401
from .utils.timer import Language, Timer, timer  # noqa: F401

__all__ = ["Timer", "Measurement", "Compare", "Colorize", "TaskSpec", "Language", "select_unit", "trim_sigfig",
           "unit_to_english", "ordered_unique", "set_torch_threads", "timer"]
