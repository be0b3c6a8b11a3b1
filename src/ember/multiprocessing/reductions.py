"""torch.multiprocessing.reductions: how tensors cross process boundaries through multiprocessing's
pickler (Queue, Pipe, Pool and Process arguments): not by copying their bytes into the pickle but by moving
their storage into shared memory (once; the tensor and its views keep working on it, as torch's
share_memory_ does) and sending a handle to it, so sender and receiver work on the same memory.

Two strategies, as in torch:
- "file_descriptor" (the default on Linux): the bytes live in an anonymous memory file (memfd_create); its
  descriptor is passed to the receiving process (multiprocessing's DupFd, SCM_RIGHTS over a unix socket).
- "file_system": the bytes live in a file under /dev/shm, which the receiver opens by name.
The memory itself is ember._core.shared_memory's (Tensor.share_memory_ uses it too).
"""
import os
from multiprocessing import reduction

from .._core import shared_memory as _shm
from .._core.storage import UntypedStorage
from .._tensor import Tensor

__all__ = ["init_reductions", "reduce_tensor", "reduce_storage", "rebuild_tensor"]


def is_shared(storage):
    return _shm.is_shared(storage)


def rebuild_storage_fd(df, nbytes):
    return _shm.storage_from_fd(df.detach(), nbytes, "file_descriptor", UntypedStorage._from_numpy)


def rebuild_storage_filename(path, nbytes):
    fd = os.open(path, os.O_RDWR)
    try:
        return _shm.storage_from_fd(fd, nbytes, "file_system", UntypedStorage._from_numpy, path)
    finally:
        os.close(fd)


def rebuild_storage_empty():
    return UntypedStorage(0)


def reduce_storage(storage):
    how, handle = _shm.share(storage)
    if how == "empty":
        return rebuild_storage_empty, ()
    if how == "file_descriptor":
        return rebuild_storage_fd, (reduction.DupFd(handle), storage._nbytes)
    return rebuild_storage_filename, (handle, storage._nbytes)


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
