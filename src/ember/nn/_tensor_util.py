"""Storage-level helpers nn, init and optim use on cpu tensors (the role of torch's fused/foreach kernels).

They read and write a tensor's numpy view (`t._np`) in place, bumping the version counter like any
in-place op, so autograd's saved-tensor checks still see the change.
"""
import numpy as np

from .._tensor import Tensor


def alias(t, cls=Tensor):
    """A new tensor object of class `cls` viewing `t`'s storage and sharing its version counter (detach)."""
    if t._np is not None:
        t.untyped_storage()          # make sure both objects hold the same storage object
    new = object.__new__(cls)
    new._storage = t._storage
    new._np = t._np
    new._size = t._size
    new._stride = t._stride
    new._offset = t._offset
    new.dtype = t.dtype
    new._ks = t._ks & ~_autograd_bit()
    new._vc = t._version_counter
    if isinstance(new, type(t)):
        # per-object fields a tensor subclass keeps beside the tensor's own (FakeTensor's mode and device)
        for field in getattr(cls, "_alias_fields", ()):
            setattr(new, field, getattr(t, field))
    if new._np is not None:
        new._storage._track(new)
    return new


def _autograd_bit():
    from .._core.dispatch_keys import AUTOGRAD_BIT
    return AUTOGRAD_BIT


def detach(t):
    d = getattr(t, "detach", None)
    return d() if d is not None else alias(t)


def wrap(arr, dtype=None):
    arr = np.asarray(arr)
    if not arr.flags.c_contiguous:
        arr = np.ascontiguousarray(arr)
    return Tensor._wrap_np(arr, dtype)


def write_(t, arr):
    """t[...] = arr in place (with numpy casting to t's dtype); bumps the version counter."""
    t._np[...] = arr
    t._version_counter.bump()
    return t


def clone(t):
    return Tensor._wrap_np(np.array(t._np, copy=True, order="C"), t.dtype)


def empty(shape, dtype=None):
    from .._core.promotion import get_default_dtype
    dtype = dtype or get_default_dtype()
    return Tensor._wrap_np(np.empty(shape, dtype._np), dtype)


def np_dtype_compute(t):
    """The numpy dtype to do math in for t's dtype (half/bfloat16 compute in float32 like torch's opmath)."""
    d = t._np.dtype
    return np.float32 if d.itemsize < 4 and d.kind in "fV" or str(d) == "bfloat16" else d


def zero_(t):
    z = getattr(t, "zero_", None)
    if z is not None:
        return z()
    return write_(t, 0)


def _rng(generator):
    from .._random import _gen
    return _gen(generator)


def uniform_(t, a, b, generator=None):
    op = getattr(t, "uniform_", None)
    if op is not None:
        return op(a, b, generator=generator)
    return write_(t, _rng(generator).uniform(a, b, size=t._size))


def normal_(t, mean, std, generator=None):
    op = getattr(t, "normal_", None)
    if op is not None:
        return op(mean, std, generator=generator)
    return write_(t, _rng(generator).normal(mean, std, size=t._size))


def fill_(t, value):
    op = getattr(t, "fill_", None)
    if op is not None:
        return op(value)
    return write_(t, value)
