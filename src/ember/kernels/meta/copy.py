"""Meta functions for memory ops (clone, copy_, _to_copy, resize_, fill_, cat): output geometry and
argument checks. The cpu kernels in kernels/cpu/copy.py call these to validate and allocate."""
import numbers
from ..._core.device import META
from ..._core.strides import (contiguous_strides, is_channels_last, is_non_overlapping_and_dense, storage_nbytes_needed,
                              infer_dense_strides, channels_last_strides as _cl_strides)
from ..._core.tensor_impl import TensorImpl as Tensor
from ..common import BELOW_AUTOGRAD, broadcast_shapes, empty_tensor
from ..._core.memory_format import format_name


def channels_last_strides(shape):
    if len(shape) != 4:
        raise RuntimeError("required rank 4 tensor to use channels_last format")
    return _cl_strides(shape)


def format_strides(t, memory_format):
    shape = t._size
    memory_format = format_name(memory_format)
    if memory_format in ("channels_last",):
        return channels_last_strides(shape)
    if memory_format == "channels_last_3d":
        from .creation import memory_format_strides
        return memory_format_strides(shape, memory_format)
    if memory_format in (None, "preserve_format"):
        st = t.stride()
        if is_non_overlapping_and_dense(shape, st):
            return st
        return infer_dense_strides(shape, st)
    if memory_format == "contiguous_format":
        return contiguous_strides(shape)
    raise RuntimeError(f"unsupported memory format {memory_format}")


def to_copy_strides(t, memory_format):
    """_to_copy: as clone, preserve keeps the strides of a dense input and gives any other the dense strides
    of its dims' order (torch 2.13: `x[:, :17].t().double()` has strides (1, 17), not (2, 1))."""
    return format_strides(t, memory_format)


def clone(self, memory_format=None):
    return empty_tensor(self._size, self.dtype, META, format_strides(self, memory_format))


# ---------------------------------------------------------------- copy_
def has_internal_overlap(t):
    """has_internal_overlap(t) == MemOverlap::Yes: a stride 0 over a size > 1. Other self-overlapping layouts
    (as_strided((3, 2), (1, 1))) are "too hard" for torch, which writes them."""
    return any(sz > 1 and st == 0 for sz, st in zip(t._size, t.stride()))


def check_no_internal_overlap(t):
    if has_internal_overlap(t):
        raise RuntimeError("unsupported operation: more than one element of the written-to tensor refers to a single "
                           "memory location. Please clone() the tensor before performing the operation.")


def check_no_partial_overlap(a, b):
    """ATen's assert_no_partial_overlap for dense tensors over the same storage."""
    if a.untyped_storage() is not b.untyped_storage() or a.numel() == 0 or b.numel() == 0:
        return
    from .elementwise_common import PARTIAL_OVERLAP, overlap_is_partial
    if overlap_is_partial(a, b):        # (the same elements in another order are partial too: x.copy_(x.t()))
        raise RuntimeError(PARTIAL_OVERLAP)


def check_copy(self, src):
    if not isinstance(src, Tensor):
        if isinstance(src, numbers.Number):   # torch's binding lets a number stand for src (a fill)
            return
        raise TypeError(f"copy_(): argument 'src' (position 1) must be Tensor, not {type(src).__name__}")
    if src._size != self._size:
        shape = broadcast_shapes(self._size, src._size)
        if shape != self._size:
            raise RuntimeError(f"output with shape {list(self._size)} doesn't match the broadcast shape {list(shape)}")
    if self._np is not None:        # (torch's meta tensors pass the overlap rules)
        check_no_internal_overlap(self)
        check_no_partial_overlap(self, src)


def copy_(self, src, non_blocking=False):
    check_copy(self, src)
    return self


# ---------------------------------------------------------------- resize_, fill_
def resize_geometry(self, size, memory_format=None):
    size = tuple(int(s) for s in ([size] if isinstance(size, int) else size))
    if any(s < 0 for s in size):
        raise RuntimeError(f"Trying to create tensor with negative dimension {min(size)}: {list(size)}")
    st = channels_last_strides(size) if format_name(memory_format) == "channels_last" else contiguous_strides(size)
    need = storage_nbytes_needed(size, st, self._offset, self.dtype.itemsize)
    return size, st, need


def resize_(self, size, memory_format=None):
    if self._requires_grad and not BELOW_AUTOGRAD.on:
        # torch's VariableType::resize_, whatever the grad mode; out= kernels resize through
        # common.resize_internal, below that check
        raise RuntimeError("cannot resize variables that require grad")
    size, st, need = resize_geometry(self, size, memory_format)
    storage = self.untyped_storage()
    if need > storage.nbytes():
        storage.resize_(need)
    self._size, self._stride = size, st
    return self


def check_fill_value(value):
    if isinstance(value, Tensor) and value.dim() != 0:
        raise RuntimeError(f"fill_ only supports 0-dimension value tensor but got tensor with {value.dim()} dimensions.")


def check_fill_overlap(self, value):
    """fill_.Tensor is copy_ of the 0-dim value (torch), which refuses a destination with internal overlap
    (an expanded tensor); fill_.Scalar writes through it."""
    if isinstance(value, Tensor) and value.device == self.device:
        check_no_internal_overlap(self)


def fill_(self, value):
    check_fill_value(value)
    check_fill_overlap(self, value)
    return self


def fill(self, value):
    check_fill_value(value)
    return empty_tensor(self._size, self.dtype, META, format_strides(self, None))


def zero_(self):
    return self


# ---------------------------------------------------------------- cat
