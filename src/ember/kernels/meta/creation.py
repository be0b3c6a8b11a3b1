"""Meta functions for factories: validate sizes, infer dtypes, choose strides, allocate on META.

The cpu kernels (kernels/cpu/creation.py, kernels/cpu/random.py) call the same `*_spec` helpers and
`alloc` with device cpu, then fill the data: one truth per op for shape, dtype and strides.
"""
from ..._core.symint import SymInt, size_int
import math
import numbers

from ..._core import dtype as D
from ..._core.device import CPU, META, as_device
from ..._core.promotion import get_default_dtype
from ..._core.strides import channels_last_strides, contiguous_strides, dense_strides_like
from ..._core.tensor_impl import TensorImpl as Tensor
from ..common import as_dtype, empty_tensor
from ..._core.memory_format import format_name


# ------------------------------------------------------------------ shared helpers
def check_size(size, name=None):
    """The size argument as a tuple of ints; negative entries -> RuntimeError like torch (zeros and
    ones check earlier, with their own message)."""
    if isinstance(size, (int, Tensor)) or hasattr(size, "__index__"):
        size = (size,)
    shape = tuple(map(size_int, size))
    for s in shape:
        if s < 0:
            if name:
                raise RuntimeError(f"{name}: Dimension size must be non-negative.")
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: {list(shape)}")
    return shape


def check_strides(shape, stride):
    stride = tuple(map(size_int, stride))
    if len(stride) != len(shape):
        raise RuntimeError(f"mismatch in length of strides and shape: sizes {list(shape)} and strides {list(stride)}")
    for s in stride:
        if s < 0:
            raise RuntimeError(f"as_strided: Negative strides are not supported at the moment, got strides: {list(stride)}")
    return stride


def memory_format_strides(shape, memory_format):
    memory_format = format_name(memory_format)
    if memory_format in (None, "contiguous_format"):
        return contiguous_strides(shape)
    if memory_format == "channels_last":
        if len(shape) != 4:
            raise RuntimeError("required rank 4 tensor to use channels_last format")
        return channels_last_strides(shape)
    if memory_format == "channels_last_3d":
        if len(shape) != 5:
            raise RuntimeError("required rank 5 tensor to use channels_last_3d format")
        return channels_last_strides(shape)
    if memory_format == "preserve_format":
        raise RuntimeError("preserve memory format is unsupported by the contiguous_format")
    raise RuntimeError(f"unknown memory format {memory_format!r}")


def scalar_dtype(value):
    """torch's dtype for a Python scalar fill value: bool, int64, default float, default complex."""
    if isinstance(value, Tensor):
        return value.dtype
    if isinstance(value, bool):
        return D.bool_
    if isinstance(value, numbers.Integral):
        return D.int64
    if isinstance(value, numbers.Real):
        return get_default_dtype()
    if isinstance(value, numbers.Complex):
        return D.complex128 if get_default_dtype() is D.float64 else D.complex64
    raise TypeError(f"fill_value must be a number, got {type(value).__name__}")


def alloc(shape, dtype, device, strides=None):
    return empty_tensor(shape, dtype, as_device(device) or CPU, strides)


def like_spec(self, dtype=None, device=None, memory_format=None):
    """(shape, dtype, device, strides) of a *_like result: preserve_format keeps the input's dense order."""
    dt = as_dtype(dtype) or self.dtype
    dev = as_device(device) or self.device
    shape = self._size
    if format_name(memory_format) in (None, "preserve_format"):
        strides = dense_strides_like(shape, self.stride())
    else:
        strides = memory_format_strides(shape, memory_format)
    return shape, dt, dev, strides


def new_spec(self, dtype=None, device=None):
    return (as_dtype(dtype) or self.dtype), (as_device(device) or self.device)


# ------------------------------------------------------------------ arange / linspace / eye
def _num(x):
    return x.item() if isinstance(x, Tensor) else x


def _is_float_arg(x):
    if isinstance(x, Tensor):
        return x.dtype.is_floating_point
    return isinstance(x, numbers.Real) and not isinstance(x, numbers.Integral)


def arange_spec(start, end, step, dtype):
    """(length, dtype) of arange, with torch's checks and dtype inference."""
    if (dtype is None and start.__class__ is int and end.__class__ is int and step.__class__ is int
            and (0 <= start <= end < 1 << 62 and 0 < step < 1 << 62)):
        return (end - start + step - 1) // step, D.int64     # arange(n) and friends: the general rules' result
    dt = as_dtype(dtype)
    if dt is None:
        dt = get_default_dtype() if any(_is_float_arg(x) for x in (start, end, step)) else D.int64
    if any(x.__class__ is SymInt for x in (start, end, step)) and not dt.is_floating_point and \
            all(isinstance(x, numbers.Integral) for x in (start, end, step)) and step.__class__ is int:
        # symbolic bounds (arange(x.size(0))): the length stays an expression; the sign checks are the caller's
        if step == 0:
            raise RuntimeError("step must be nonzero")
        sgn = (step > 0) - (step < 0)
        return (end - start + step - sgn) // step, dt
    s, e, st = float(_num(start)), float(_num(end)), float(_num(step))
    if not all(math.isfinite(x) for x in (s, e)):
        raise RuntimeError(f"unsupported range: {_num(start)} -> {_num(end)}")
    if st == 0:
        raise RuntimeError("step must be nonzero")
    if not ((st > 0 and e >= s) or (st < 0 and e <= s)):
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    if dt.is_floating_point or any(_is_float_arg(x) for x in (start, end, step)):
        n = math.ceil((e - s) / st)
    else:
        a, b, c = int(_num(start)), int(_num(end)), int(_num(step))
        sgn = (c > 0) - (c < 0)
        n = (b - a + c - sgn) // c
    return int(n), dt


def linspace_spec(steps, dtype):
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    return (int(steps),), (as_dtype(dtype) or get_default_dtype())


def eye_spec(n, m, dtype):
    m = n if m is None else m
    if n < 0:
        raise RuntimeError(f"n must be greater or equal to 0, got {n}")
    if m < 0:
        raise RuntimeError(f"m must be greater or equal to 0, got {m}")
    return (int(n), int(m)), (as_dtype(dtype) or get_default_dtype())


# ------------------------------------------------------------------ meta kernels
def empty(size, *, dtype=None, layout=None, device=None, pin_memory=None, memory_format=None):
    shape = check_size(size)
    return alloc(shape, as_dtype(dtype) or get_default_dtype(), META, memory_format_strides(shape, memory_format))


def empty_strided(size, stride, *, dtype=None, layout=None, device=None, pin_memory=None):
    shape = check_size(size)
    return alloc(shape, as_dtype(dtype) or get_default_dtype(), META, check_strides(shape, stride))


def zeros(size, *, dtype=None, layout=None, device=None, pin_memory=None):
    return alloc(check_size(size, "zeros"), as_dtype(dtype) or get_default_dtype(), META)


def ones(size, *, dtype=None, layout=None, device=None, pin_memory=None):
    return alloc(check_size(size), as_dtype(dtype) or get_default_dtype(), META)


def full(size, fill_value, *, dtype=None, layout=None, device=None, pin_memory=None):
    return alloc(check_size(size), as_dtype(dtype) or scalar_dtype(fill_value), META)


def scalar_tensor(s, *, dtype=None, layout=None, device=None, pin_memory=None):
    return alloc((), as_dtype(dtype) or get_default_dtype(), META)


def arange(end, *, dtype=None, layout=None, device=None, pin_memory=None):
    return arange_start(0, end, 1, dtype=dtype)


def arange_start(start, end, step=1, *, dtype=None, layout=None, device=None, pin_memory=None):
    n, dt = arange_spec(start, end, step, dtype)
    return alloc((n,), dt, META)


def linspace(start, end, steps, *, dtype=None, layout=None, device=None, pin_memory=None):
    shape, dt = linspace_spec(steps, dtype)
    return alloc(shape, dt, META)


def eye(n, m=None, *, dtype=None, layout=None, device=None, pin_memory=None):
    shape, dt = eye_spec(n, m, dtype)
    return alloc(shape, dt, META)


def logspace(start, end, steps, base=10.0, *, dtype=None, layout=None, device=None, pin_memory=None):
    shape, dt = linspace_spec(steps, dtype)
    return alloc(shape, dt, META)
