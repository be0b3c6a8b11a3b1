"""Tensors from Python data and numpy: tensor, as_tensor, from_numpy, from_dlpack, asarray."""
import numbers

import numpy as np

from ._core import dtype as D
from ._core.device import as_device
from ._core.promotion import get_default_dtype
from ._tensor import Tensor

__all__ = ["tensor", "as_tensor", "from_numpy", "asarray"]


def _infer_dtype(data):
    """torch's inference for Python data: every leaf has a type (bool -> bool, int -> int64, float -> the
    default dtype, complex -> the default complex, a numpy scalar -> its own dtype) and the result is their
    promotion (so [np.int32(1), 2] is int64, [np.float32(1), 2.0] float32). None: the data holds tensors or
    arrays (probed by numpy instead)."""
    out = None
    stack = [data]
    while stack:
        x = stack.pop()
        if isinstance(x, Tensor):
            return None
        if isinstance(x, (list, tuple)):
            stack.extend(x)
            continue
        if isinstance(x, np.ndarray):
            return None
        if isinstance(x, np.generic) and not isinstance(x, (np.str_, np.bytes_, np.void, np.object_)):
            leaf = D.from_numpy_dtype(x.dtype)
        elif isinstance(x, bool):
            leaf = D.bool_
        elif isinstance(x, numbers.Integral):
            leaf = D.int64
        elif isinstance(x, numbers.Real):
            leaf = get_default_dtype()
        elif isinstance(x, numbers.Complex):
            leaf = D.complex128 if get_default_dtype() is D.float64 else D.complex64
        else:
            raise TypeError(f"Could not infer dtype of {type(x).__name__}")
        out = leaf if out is None else D.promote_types(out, leaf)
    return get_default_dtype() if out is None else out


def _has_any(data):
    if isinstance(data, (list, tuple)):
        return any(_has_any(x) for x in data)
    return True


def _to_numpy(data, dt):
    if isinstance(data, Tensor):
        return data.numpy(force=True).astype(dt._np)
    if isinstance(data, (list, tuple)) and any(isinstance(x, Tensor) for x in data):
        data = [_to_numpy(x, dt) for x in data]
    arr = np.array(data, dtype=dt._np if dt._np.kind not in "V" else None)
    if arr.dtype == object:
        raise ValueError("expected a sequence of equal-length sequences of numbers")
    return arr.astype(dt._np, copy=False)


def tensor(data, *, dtype=None, device=None, requires_grad=False, pin_memory=False):
    from .kernels.common import as_dtype
    if requires_grad is not False and requires_grad is not True:
        from . import _argcheck
        _argcheck.boolean("tensor", "requires_grad", None, requires_grad)
    dt = as_dtype(dtype)
    if isinstance(data, Tensor):
        t = data.detach().clone()
        if dt is not None:
            t = t.to(dt)
    elif isinstance(data, np.ndarray):
        dt = dt or D.from_numpy_dtype(data.dtype)
        t = Tensor._wrap_np(np.array(data, dtype=dt._np, copy=True), dt)
    else:
        if isinstance(data, (str, bytes)) or data is None:
            raise TypeError(f"new(): invalid data type '{type(data).__name__}'")
        if dt is None:
            dt = _infer_dtype(data)
            if dt is None:
                probe = np.asarray([x.numpy(force=True) if isinstance(x, Tensor) else x for x in data]) if isinstance(data, (list, tuple)) else np.asarray(data)
                dt = D.from_numpy_dtype(probe.dtype) if probe.dtype != np.float64 or any(isinstance(x, np.ndarray) for x in data) else get_default_dtype()
        t = Tensor._wrap_np(np.array(_to_numpy(data, dt), copy=True), dt)
    dev = as_device(device)
    if dev is not None and dev.type != "cpu":
        t = t.to(dev)
    if requires_grad:
        t.requires_grad_()
    return t


def as_tensor(data, dtype=None, device=None):
    from .kernels.common import as_dtype
    from . import _argcheck
    _argcheck.dtype("as_tensor", "dtype", None, dtype)
    dt = as_dtype(dtype)
    dev = as_device(device)
    if isinstance(data, Tensor):
        r = data
        if dt is not None and dt is not r.dtype:
            r = r.to(dt)
        if dev is not None and dev != r.device:
            r = r.to(dev)
        return r
    if isinstance(data, np.ndarray) and (dev is None or dev.type == "cpu"):
        t = from_numpy(data)
        return t if dt is None or dt is t.dtype else t.to(dt)
    return tensor(data, dtype=dt, device=dev)


asarray = as_tensor


def from_numpy(ndarray):
    """A tensor sharing memory with `ndarray` (writes through either are seen by both)."""
    if not isinstance(ndarray, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(ndarray).__name__})")
    dt = D.from_numpy_dtype(ndarray.dtype)
    if any(s < 0 for s in ndarray.strides):
        raise ValueError("At least one stride in the given numpy array is negative, and tensors with negative "
                         "strides are not currently supported. (You can probably work around this by making a copy "
                         "of your array with array.copy().)")
    if any(s % ndarray.itemsize for s in ndarray.strides):
        raise ValueError("given numpy array strides not a multiple of the element byte size. Copy the numpy array "
                         "to reallocate the memory.")
    from ._core.storage import UntypedStorage
    base = ndarray
    while isinstance(base.base, np.ndarray):
        base = base.base
    # build a byte view spanning the array's extent, sharing memory
    isz = ndarray.itemsize
    if ndarray.size == 0:
        return Tensor._wrap_np(ndarray, dt)
    extent = 1 + sum((n - 1) * (s // isz) for n, s in zip(ndarray.shape, ndarray.strides))
    flat = np.lib.stride_tricks.as_strided(ndarray, shape=(extent,), strides=(isz,)) if ndarray.ndim else ndarray.reshape(1)
    st = UntypedStorage._from_numpy(flat.view(np.uint8))
    st._resizable = False
    t = Tensor._from_storage(st, 0, ndarray.shape, tuple(s // isz for s in ndarray.strides), dt)
    t._np = ndarray
    return t


def from_dlpack(ext):
    if isinstance(ext, Tensor):
        return ext
    return from_numpy(np.from_dlpack(ext))
