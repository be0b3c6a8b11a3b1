"""Worker processes for DataLoader (torch/utils/data/_utils/worker.py + ExceptionWrapper from torch._utils).

Each worker reads (task_id, indices) from its own index queue, fetches and collates the batch, and puts
(task_id, batch) - or (task_id, ExceptionWrapper) - on the shared result queue. Tensors cross the
process boundary as numpy arrays (reducers registered on multiprocessing's ForkingPickler).
"""
import os
import queue
import random
import sys
import traceback
from dataclasses import dataclass

__all__ = ["get_worker_info", "WorkerInfo", "ExceptionWrapper"]

_worker_info = None


class WorkerInfo:
    __initialized = False

    def __init__(self, **kwargs):
        for k, v in kwargs.items():
            setattr(self, k, v)
        self.__keys = tuple(kwargs.keys())
        self.__initialized = True

    def __setattr__(self, key, val):
        if self.__initialized:
            raise RuntimeError(f"Cannot assign attributes to {self.__class__.__name__} objects")
        return super().__setattr__(key, val)

    def __repr__(self):
        items = [f"{k}={getattr(self, k)}" for k in self.__keys]
        return f"{self.__class__.__name__}({', '.join(items)})"


def get_worker_info():
    return _worker_info


class KeyErrorMessage(str):
    def __repr__(self):
        return self


class ExceptionWrapper:
    def __init__(self, exc_info=None, where="in background"):
        if exc_info is None:
            exc_info = sys.exc_info()
        self.exc_type = exc_info[0]
        self.exc_msg = "".join(traceback.format_exception(*exc_info))
        self.where = where

    def reraise(self):
        msg = f"Caught {self.exc_type.__name__} {self.where}.\nOriginal {self.exc_msg}"
        if self.exc_type is KeyError:
            msg = KeyErrorMessage(msg)
        elif getattr(self.exc_type, "message", None):
            raise self.exc_type(message=msg)
        try:
            exception = self.exc_type(msg)
        except Exception:
            raise RuntimeError(msg) from None
        raise exception


@dataclass(frozen=True)
class _IterableDatasetStopIteration:
    worker_id: int


def _rebuild_tensor(arr, dtype_name, requires_grad, is_param):
    from ...._core import dtype as D
    from ...._tensor import Tensor
    import numpy as np
    t = Tensor._wrap_np(np.ascontiguousarray(arr), D.dtype_from_name(dtype_name))
    if is_param:
        from ....nn import Parameter
        return Parameter(t, requires_grad)
    if requires_grad:
        t.requires_grad_(True)
    return t


def _reduce_tensor(t):
    return (_rebuild_tensor, (t.numpy(force=True), t.dtype.name, t.requires_grad, bool(getattr(t, "_is_param", False))))


def register_reducers():
    from multiprocessing.reduction import ForkingPickler
    from ...._tensor import Tensor
    from ....nn import Parameter
    for cls in (Tensor, Parameter):
        ForkingPickler.register(cls, _reduce_tensor)


def _worker_loop(dataset_kind, dataset, index_queue, data_queue, done_event, auto_collation, collate_fn, drop_last,
                 base_seed, init_fn, worker_id, num_workers, persistent_workers):
    global _worker_info
    from . import fetch
    try:
        import ember
        ember.set_num_threads(1)            # like torch: a worker's kernels and BLAS run on its own thread
        seed = base_seed + worker_id
        random.seed(seed)
        ember.manual_seed(seed)
        _worker_info = WorkerInfo(id=worker_id, num_workers=num_workers, seed=seed, dataset=dataset)
        init_exception = None
        try:
            if init_fn is not None:
                init_fn(worker_id)
            fetcher = fetch.create_fetcher(dataset_kind, dataset, auto_collation, collate_fn, drop_last)
        except Exception:
            init_exception = ExceptionWrapper(where=f"in DataLoader worker process {worker_id}")
        iteration_end = False
        while True:
            try:
                r = index_queue.get(timeout=5.0)
            except queue.Empty:
                if os.getppid() == 1:       # parent died
                    break
                continue
            if r is None:
                break
            if r == "reset":                # persistent workers: a new epoch of an iterable dataset
                iteration_end = False
                fetcher = fetch.create_fetcher(dataset_kind, dataset, auto_collation, collate_fn, drop_last)
                continue
            if done_event.is_set() or iteration_end:
                continue
            idx, index = r
            if init_exception is not None:
                data = init_exception
                init_exception = None
            else:
                try:
                    data = fetcher.fetch(index)
                except Exception as e:
                    if isinstance(e, StopIteration) and dataset_kind == fetch.ITERABLE:
                        data = _IterableDatasetStopIteration(worker_id)
                        iteration_end = True
                    else:
                        data = ExceptionWrapper(where=f"in DataLoader worker process {worker_id}")
            data_queue.put((idx, data))
            del data, idx, index, r
    except KeyboardInterrupt:
        pass
    if done_event.is_set():
        data_queue.cancel_join_thread()
        data_queue.close()
