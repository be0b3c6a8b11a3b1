"""torch.multiprocessing: Python's multiprocessing (Process, Queue, Pool, get_context, set_start_method, ...)
with tensors that cross process boundaries through shared memory (reductions.py) instead of being copied,
and torch's `spawn` / `start_processes` (spawn.py), sharing-strategy switches included.

Importing this module registers the tensor reducers with multiprocessing's pickler, as importing torch does
(torch imports torch.multiprocessing itself; ember loads it on first use). A process that sends tensors must
have imported it: a script that does `import ember.multiprocessing as mp` has, in its spawned children too
(they re-import the script); without it a tensor is sent as a copy of its values, not shared."""
import multiprocessing

from multiprocessing import *  # noqa: F401,F403

from .._core import shared_memory as _shm
from .reductions import init_reductions
from .spawn import (ProcessContext, ProcessException, ProcessExitedException, ProcessRaisedException,  # noqa: F401
                    SpawnContext, spawn, start_processes)

__all__ = ["set_sharing_strategy", "get_sharing_strategy", "get_all_sharing_strategies"]
__all__ += multiprocessing.__all__


def set_sharing_strategy(new_strategy):
    """How tensors' memory is shared with other processes: "file_descriptor" (default on Linux) or
    "file_system" (see ember.multiprocessing.reductions)."""
    _shm.set_strategy(new_strategy)


def get_sharing_strategy():
    return _shm.strategy[0]


def get_all_sharing_strategies():
    return set(_shm.STRATEGIES)


init_reductions()
