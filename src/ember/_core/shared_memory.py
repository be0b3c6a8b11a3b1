"""Shared memory for storages (torch's THManagedMapAllocator / share_memory_ and the sharing strategies of
torch.multiprocessing): a cpu storage's bytes moved into memory other processes can map, in place (every
tensor on the storage keeps working on it).

Two strategies, as in torch:
- "file_descriptor" (the default on Linux): the bytes live in an anonymous memory file (memfd_create); another
  process gets a duplicate of its descriptor (multiprocessing's DupFd). The memory is freed when the last
  process holding a mapping or descriptor lets go; nothing is left behind. A forked child inherits the mapping.
- "file_system": the bytes live in a file under /dev/shm, which another process opens by name. The creating
  process removes the name when its storage is collected; a receiver that has not opened it by then fails,
  as torch's file_system strategy needs the sender to keep the tensor alive until it has been received.

A process given the same memory file twice maps it once (a cache by the file's identity), so tensors sent
separately that share a storage still share it on arrival, as in torch.
"""
import itertools
import mmap
import os
import weakref

import numpy as np

STRATEGIES = ("file_descriptor", "file_system") if hasattr(os, "memfd_create") else ("file_system",)
strategy = [STRATEGIES[0]]
_shared = weakref.WeakKeyDictionary()       # storage -> (strategy, fd or path, mmap) of its shared memory
_received = weakref.WeakValueDictionary()   # (st_dev, st_ino) of a memory file -> the storage mapping it
_names = itertools.count()


def set_strategy(name):
    if name not in STRATEGIES:
        raise AssertionError(f"Invalid sharing strategy: {name}")   # torch's check
    strategy[0] = name


def _map(fd, nbytes):
    mm = mmap.mmap(fd, nbytes)               # MAP_SHARED: writes are seen by every process mapping it
    return mm, np.frombuffer(mm, dtype=np.uint8, count=nbytes)


def _unlink(path):
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass


def is_shared(storage):
    return storage in _shared


def share(storage):
    """Move `storage`'s bytes into shared memory if they are not there yet; returns (strategy, fd or path).
    An empty storage has nothing to share: ("empty", None)."""
    info = _shared.get(storage)
    if info is not None:
        return info[0], info[1]
    if storage._data is None:
        raise RuntimeError("Cannot share a storage without host memory (a meta tensor)")
    n = storage._nbytes
    if n == 0:
        return "empty", None
    how = strategy[0]
    if how == "file_descriptor":
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
    buf[:] = storage._data[:n]
    old = storage._data
    storage._data = buf
    storage._resizable = False          # torch: a shared storage cannot be resized
    storage._rebind_views(old)          # every tensor on the storage now views the shared bytes
    _shared[storage] = (how, handle, mm)
    return how, handle


def storage_from_fd(fd, nbytes, how, wrap, path=None):
    """The storage over the shared memory file `fd` (taking ownership of fd with file_descriptor); `wrap`
    makes a storage of a uint8 array (UntypedStorage._from_numpy)."""
    st = os.fstat(fd)
    key = (st.st_dev, st.st_ino)
    storage = _received.get(key)
    if storage is not None:
        if how == "file_descriptor":
            os.close(fd)
        return storage
    mm, buf = _map(fd, nbytes)
    storage = wrap(buf)
    storage._resizable = False
    _shared[storage] = (how, path if how == "file_system" else fd, mm)
    if how == "file_descriptor":
        weakref.finalize(storage, os.close, fd)     # kept open: this process may send the storage on
    _received[key] = storage
    return storage
