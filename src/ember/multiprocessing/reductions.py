"""torch.multiprocessing.reductions: how tensors cross process boundaries through multiprocessing's
pickler (Queue, Pipe, Pool and Process arguments): not by copying their bytes into the pickle but by moving
their storage into shared memory (once; the tensor and its views keep working on it, as torch's
share_memory_ does) and sending a handle to it, so sender and receiver work on the same memory.

Two strategies, as in torch:
- "file_descriptor" (the default on Linux): the bytes live in an anonymous memory file (memfd_create); its
  descriptor is passed to the receiving process (multiprocessing's DupFd, SCM_RIGHTS over a unix socket). The
  memory is freed when the last process holding a mapping or descriptor lets go; nothing is left behind.
- "file_system": the bytes live in a file under /dev/shm, which the receiver opens by name. The creating
  process removes the name when its storage is collected; a receiver that has not opened it by then fails,
  as torch's file_system strategy needs the sender to keep the tensor alive until it has been received.

A receiver given the same storage twice maps it once (a cache by the memory file's identity), so views sent
separately still share memory, as in torch.
"""
import itertools
import mmap
import os
import weakref
from multiprocessing import reduction

import numpy as np

from .._core.storage import UntypedStorage
from .._tensor import Tensor

__all__ = ["init_reductions", "reduce_tensor", "reduce_storage", "rebuild_tensor", "shared_handle"]

_STRATEGIES = ("file_descriptor", "file_system") if hasattr(os, "memfd_create") else ("file_system",)
_strategy = [_STRATEGIES[0]]
_shared = weakref.WeakKeyDictionary()       # storage -> (strategy, fd or path, mmap) of its shared memory
_received = weakref.WeakValueDictionary()   # (st_dev, st_ino) of a memory file -> the storage mapping it
_names = itertools.count()


def _set_strategy(name):
    if name not in _STRATEGIES:
        raise AssertionError(f"Invalid sharing strategy: {name}")   # torch's check
    _strategy[0] = name


def _map(fd, nbytes):
    mm = mmap.mmap(fd, nbytes)
    return mm, np.frombuffer(mm, dtype=np.uint8, count=nbytes)


def _adopt(storage, buf):
    """Put the storage's bytes at `buf` (shared memory), re-pointing every tensor on them."""
    buf[:] = storage._data[:storage._nbytes]
    old = storage._data
    storage._data = buf
    storage._resizable = False          # torch: a shared storage cannot be resized
    storage._rebind_views(old)


def shared_handle(storage):
    """Move `storage` into shared memory if it is not there yet; returns (strategy, fd or path)."""
    info = _shared.get(storage)
    if info is not None:
        return info[0], info[1]
    if storage._data is None:
        raise RuntimeError("Cannot share a storage without host memory (a meta tensor)")
    n = storage._nbytes
    strategy = _strategy[0]
    if strategy == "file_descriptor":
        fd = os.memfd_create("ember_shared", 0)
        os.ftruncate(fd, n)
        mm, buf = _map(fd, n)
        weakref.finalize(storage, os.close, fd)
        handle = fd
    else:
        handle = f"/dev/shm/ember_{os.getpid()}_{next(_names)}_{os.urandom(4).hex()}"
        fd = os.open(handle, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            os.ftruncate(fd, n)
            mm, buf = _map(fd, n)
        finally:
            os.close(fd)
        weakref.finalize(storage, _unlink, handle)
    _adopt(storage, buf)
    _shared[storage] = (strategy, handle, mm)
    return strategy, handle


def _unlink(path):
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass


def is_shared(storage):
    return storage in _shared


def _storage_from_fd(fd, nbytes, strategy, handle):
    st = os.fstat(fd)
    key = (st.st_dev, st.st_ino)
    storage = _received.get(key)
    if storage is not None:
        if strategy == "file_descriptor":
            os.close(fd)
        return storage
    mm, buf = _map(fd, nbytes)
    storage = UntypedStorage._from_numpy(buf)
    storage._resizable = False
    _shared[storage] = (strategy, handle if strategy == "file_system" else fd, mm)
    if strategy == "file_descriptor":
        weakref.finalize(storage, os.close, fd)     # kept open: this process may send the storage on
    _received[key] = storage
    return storage


def rebuild_storage_fd(df, nbytes):
    return _storage_from_fd(df.detach(), nbytes, "file_descriptor", None)


def rebuild_storage_filename(path, nbytes):
    fd = os.open(path, os.O_RDWR)
    try:
        return _storage_from_fd(fd, nbytes, "file_system", path)
    finally:
        os.close(fd)


def rebuild_storage_empty():
    return UntypedStorage(0)


def reduce_storage(storage):
    n = storage._nbytes
    if n == 0:
        return rebuild_storage_empty, ()
    strategy, handle = shared_handle(storage)
    if strategy == "file_descriptor":
        return rebuild_storage_fd, (reduction.DupFd(handle), n)
    return rebuild_storage_filename, (handle, n)


def rebuild_tensor(cls, storage, offset, size, stride, dtype, requires_grad):
    t = Tensor._from_storage(storage, offset, tuple(size), tuple(stride), dtype)
    if cls is not Tensor:
        from ..nn.parameter import Parameter
        if issubclass(cls, Parameter):
            return cls(t, requires_grad)
        t = t.as_subclass(cls) if hasattr(t, "as_subclass") else t
    if requires_grad:
        t.requires_grad_(True)
    return t


def reduce_tensor(tensor):
    if tensor.requires_grad and not tensor.is_leaf:
        raise RuntimeError("Cowardly refusing to serialize non-leaf tensor which requires_grad, since autograd "
                           "does not support crossing process boundaries.  If you just want to transfer the "
                           "data, call detach() on the tensor before serializing (e.g., putting it on the queue).")
    if tensor.device.type != "cpu":
        raise RuntimeError(f"ember shares cpu tensors between processes, got a {tensor.device.type} tensor")
    t = tensor
    if t.is_conj() or t.is_neg():
        t = t.resolve_conj().resolve_neg()     # a lazy conjugate is sent as its values (a copy)
    storage = t.untyped_storage()
    return rebuild_tensor, (type(tensor), storage, t.storage_offset(), tuple(t.shape), tuple(t.stride()),
                            t.dtype, tensor.requires_grad)


def init_reductions():
    """Register the reducers with multiprocessing's pickler (torch does this on importing
    torch.multiprocessing)."""
    from ..nn.parameter import Parameter
    reduction.ForkingPickler.register(UntypedStorage, reduce_storage)
    for cls in (Tensor, Parameter):
        reduction.ForkingPickler.register(cls, reduce_tensor)
