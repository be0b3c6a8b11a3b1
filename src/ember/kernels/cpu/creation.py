"""cpu kernels for factories: shape/dtype/strides come from kernels/meta/creation.py, numpy fills the data.

The *_like and new_* kernels are CompositeExplicitAutograd (one kernel for every device): they
allocate on the requested device (default: the input's) and fill only when it is cpu.
"""
import numpy as np

from ..._core.device import CPU
from ..._core.tensor_impl import TensorImpl as Tensor
from ..._core.promotion import get_default_dtype
from ..common import as_dtype
from ..._core.scalar_value import check_number
from ..meta.creation import (alloc, arange_spec, check_size, check_strides, eye_spec, like_spec, linspace_spec,
                             memory_format_strides, new_spec, scalar_dtype, _num)
from ..._core import dtype as D
from ..common import empty_tensor


def _filled(shape, dt, device, value, strides=None):
    if value.__class__ is int and value == 0:     # (an int: full(s, -0.0) must still write -0.0)
        # calloc'd: empty(4M floats) 315 -> a few us (torch's empty writes nothing either; ember's empty
        # stays zero-filled, so results never depend on old memory)
        return empty_tensor(shape, dt, device, strides, zero=True)
    t = alloc(shape, dt, device, strides)
    if t._np is not None:
        t._np[...] = _num(value)
    return t


def empty(size, *, dtype=None, layout=None, device=None, pin_memory=None, memory_format=None):
    shape = check_size(size)
    return _filled(shape, as_dtype(dtype) or get_default_dtype(), CPU, 0, memory_format_strides(shape, memory_format))


def empty_strided(size, stride, *, dtype=None, layout=None, device=None, pin_memory=None):
    shape = check_size(size)
    t = alloc(shape, as_dtype(dtype) or get_default_dtype(), CPU, check_strides(shape, stride))
    return t


def zeros(size, *, dtype=None, layout=None, device=None, pin_memory=None):
    return _filled(check_size(size, "zeros"), as_dtype(dtype) or get_default_dtype(), CPU, 0)


def ones(size, *, dtype=None, layout=None, device=None, pin_memory=None):
    return _filled(check_size(size), as_dtype(dtype) or get_default_dtype(), CPU, 1)


def full(size, fill_value, *, dtype=None, layout=None, device=None, pin_memory=None):
    dt = as_dtype(dtype) or scalar_dtype(fill_value)
    shape = check_size(size)
    one = all(n == 1 for n in shape)            # fill_ of one element: no float16/bfloat16 range check
    return _filled(shape, dt, CPU, check_number(dt, fill_value, not one))


def scalar_tensor(s, *, dtype=None, layout=None, device=None, pin_memory=None):
    return _filled((), as_dtype(dtype) or get_default_dtype(), CPU, s)


def arange(end, *, dtype=None, layout=None, device=None, pin_memory=None):
    return arange_start(0, end, 1, dtype=dtype)


def arange_start(start, end, step=1, *, dtype=None, layout=None, device=None, pin_memory=None):
    n, dt = arange_spec(start, end, step, dtype)
    if dt is D.int64 and n.__class__ is int and start.__class__ is int and step.__class__ is int:
        return Tensor._wrap_fresh(np.arange(start, start + n * step, step, dtype=np.int64), dt)   # the same values
    t = alloc((n,), dt, CPU)
    s, st = _num(start), _num(step)
    if dt.is_floating_point or dt.is_complex:
        vals = float(s) + np.arange(n, dtype=np.float64) * float(st)   # accumulate in double, like torch
    else:
        vals = int(s) + np.arange(n, dtype=np.int64) * int(st)   # integral: start and step truncated first
    t._np[...] = vals.astype(dt._np, copy=False) if dt._np.kind != "b" else vals != 0
    return t


def linspace(start, end, steps, *, dtype=None, layout=None, device=None, pin_memory=None):
    shape, dt = linspace_spec(steps, dtype)
    t = alloc(shape, dt, CPU)
    n = shape[0]
    if n == 0:
        return t
    s, e = _num(start), _num(end)
    if n == 1:
        t._np[...] = s
        return t
    if dt.is_floating_point or dt.is_complex:
        ct = dt._np if dt._np.itemsize >= 4 else np.float32
        cs, ce = np.asarray(s, ct), np.asarray(e, ct)
        step = (ce - cs) / ct.type(n - 1) if hasattr(ct, "type") else (ce - cs) / (n - 1)
        idx = np.arange(n).astype(ct)
        half = n // 2
        vals = np.where(np.arange(n) < half, cs + step * idx, ce - step * (np.asarray(n - 1, ct) - idx))
        t._np[...] = vals.astype(dt._np)
    else:
        step = (float(e) - float(s)) / (n - 1)
        t._np[...] = (float(s) + step * np.arange(n, dtype=np.float64)).astype(dt._np)
    return t


def eye(n, m=None, *, dtype=None, layout=None, device=None, pin_memory=None):
    shape, dt = eye_spec(n, m, dtype)
    t = _filled(shape, dt, CPU, 0)
    np.fill_diagonal(t._np, 1)
    return t


# ------------------------------------------------------------------ CompositeExplicitAutograd: *_like, new_*
def empty_like(self, *, dtype=None, layout=None, device=None, pin_memory=None, memory_format=None):
    shape, dt, dev, st = like_spec(self, dtype, device, memory_format)
    return _filled(shape, dt, dev, 0, st)


zeros_like = empty_like


def ones_like(self, *, dtype=None, layout=None, device=None, pin_memory=None, memory_format=None):
    shape, dt, dev, st = like_spec(self, dtype, device, memory_format)
    return _filled(shape, dt, dev, 1, st)


def full_like(self, fill_value, *, dtype=None, layout=None, device=None, pin_memory=None, memory_format=None):
    shape, dt, dev, st = like_spec(self, dtype, device, memory_format)
    return _filled(shape, dt, dev, fill_value, st)


def new_empty(self, size, *, dtype=None, layout=None, device=None, pin_memory=None):
    dt, dev = new_spec(self, dtype, device)
    return _filled(check_size(size), dt, dev, 0)


new_zeros = new_empty


def new_ones(self, size, *, dtype=None, layout=None, device=None, pin_memory=None):
    dt, dev = new_spec(self, dtype, device)
    return _filled(check_size(size), dt, dev, 1)


def new_full(self, size, fill_value, *, dtype=None, layout=None, device=None, pin_memory=None):
    dt, dev = new_spec(self, dtype, device)
    return _filled(check_size(size), dt, dev, fill_value)


def new_empty_strided(self, size, stride, *, dtype=None, layout=None, device=None, pin_memory=None):
    dt, dev = new_spec(self, dtype, device)
    shape = check_size(size)
    return _filled(shape, dt, dev, 0, check_strides(shape, stride))


def _tri_indices(fn, row, col, offset, dtype, device):
    from ..._core.device import as_device
    from ..common import as_dtype
    if row < 0:
        raise RuntimeError(f"row must be non-negative, got{row}")
    if col < 0:
        raise RuntimeError(f"col must be non-negative, got{col}")
    dt = as_dtype(dtype) or D.int64
    r = np.stack(fn(row, offset, col)) if row and col else np.zeros((2, 0), np.int64)
    out = empty_tensor(r.shape, dt, as_device(device) or as_device("cpu"))
    if out._np is not None and r.size:
        out._np[...] = r
    return out


def tril_indices(row, col, offset=0, *, dtype=None, layout=None, device=None, pin_memory=None):
    return _tri_indices(np.tril_indices, row, col, offset, dtype, device)


def triu_indices(row, col, offset=0, *, dtype=None, layout=None, device=None, pin_memory=None):
    return _tri_indices(np.triu_indices, row, col, offset, dtype, device)


def logspace(start, end, steps, base=10.0, *, dtype=None, layout=None, device=None, pin_memory=None):
    """base ** (evenly spaced exponents), as torch's kernel: the first half of the exponents counted from
    start, the second half back from end; start/end are first converted to the result dtype, and integral
    results are computed in float32 (then truncated), the others in double."""
    shape, dt = linspace_spec(steps, dtype)
    t = alloc(shape, dt, CPU)
    n = shape[0]
    if n == 0:
        return t
    s, e = _num(start), _num(end)
    if dt.is_complex:
        s, e = complex(s), complex(e)
    elif dt.is_floating_point:
        s, e = float(np.asarray(s, dt._np)), float(np.asarray(e, dt._np))
    else:
        s, e = int(np.asarray(s).astype(dt._np)), int(np.asarray(e).astype(dt._np))
    if n == 1:
        vals = np.asarray([base ** s])
    elif dt.is_floating_point or dt.is_complex:
        step = (e - s) / (n - 1)
        i = np.arange(n)
        expo = np.where(i < n // 2, s + step * i, e - step * (n - i - 1))
        vals = np.power(np.float64(base) if not dt.is_complex else np.complex128(base), expo)
    else:
        f32 = np.float32
        step = f32(e - s) / f32(n - 1)
        i = np.arange(n, dtype=f32)
        expo = np.where(i < n // 2, f32(s) + step * i, f32(e) - step * (f32(n - 1) - i)).astype(f32)
        vals = np.power(f32(base), expo)
    with np.errstate(invalid="ignore", over="ignore"):
        t._np[...] = vals.astype(dt._np)
    return t
