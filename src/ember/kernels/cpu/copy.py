"""cpu kernels for memory ops: clone, copy_, _to_copy, resize_, fill_, zero_, cat. Each validates and
sizes its result with the meta functions of kernels/meta/copy.py, then makes one numpy call."""
import warnings

import numpy as np

from ..._core.scalar_value import check_number
from ..._core.device import CPU, as_device
from ..._core.dtype import dtype as _DTYPE
from ..._core.tensor_impl import TensorImpl as Tensor
from ..common import as_dtype, empty_tensor
from ..meta import copy as M
from ..._core.memory_format import format_name
from ..._core.strides import contiguous_strides
from . import copy_half
from .runtime import clib, cparts, flat
from .runtime.pool import get_num_threads

_address = clib.address

_TO = {np.dtype(np.float32): "to_f32", np.dtype(np.float64): "to_f64"}
_FLAT = (np.dtype(np.float32), np.dtype(np.float64))
_EXACT = 1 << 53                # a Python int beyond this is not passed to C as a double


_F32 = np.dtype(np.float32)
_F64 = np.dtype(np.float64)
_F16 = np.dtype(np.float16)
_HALF = {(_F32, _F16): "to_f16", (_F16, _F32): "from_f16"}


_BF16_SMALL = []


def _bf16_small():
    """csrc/elementwise_flat.c's to_bf16_f32_n (ctypes), or None when C kernels are off."""
    if not _BF16_SMALL:
        _BF16_SMALL.append(clib.kernel("elementwise_flat", "to_bf16_f32_n", "ppl"))
    return _BF16_SMALL[0]


def _half_cast(s, d):
    """csrc/elementwise_flat.c's kernel casting dtype s to d when one is float32 and the other float16 or
    bfloat16 (numpy's loops for these are scalar: 1M float32 to float16 took 2.7 ms), else None. bfloat16
    is ml_dtypes' dtype (kind 'V'), recognised by name and remembered."""
    k = _HALF.get((s, d), 0)
    if k == 0:
        k = None
        if s == _F32 and d.kind == "V" and d.name == "bfloat16":
            k = "to_bf16"
        elif d == _F32 and s.kind == "V" and s.name == "bfloat16":
            k = "from_bf16"
        _HALF[(s, d)] = k
    return k


def _big_flat(a):
    """Whether a big c-contiguous float32/64 array is copied on ember's C pool (runtime/flat.py): like torch's
    copy kernels, from 2 chunks of its grain with 2+ threads (one numpy call is as fast on one)."""
    return a.size >= flat.MIN_ELEMS and a.dtype in _FLAT and a.flags.c_contiguous and flat.splits()


def _big_fill(a):
    """Whether a big c-contiguous float32/64 array is filled by csrc/elementwise_flat.c's fill, on any thread
    count: its aligned stores beat numpy's fill on one thread too (1M float32: 46 us against 72)."""
    return a.size >= flat.MIN_ELEMS and a.dtype in _FLAT and a.flags.c_contiguous


def _copyto(dst, src):
    """Cast-and-broadcast copy of numpy `src` into numpy `dst` (complex->real drops the imaginary part)."""
    if src.__class__ is np.ndarray and src.dtype == dst.dtype:
        if (_big_flat(src) and src.shape == dst.shape and dst.flags.c_contiguous
                and not np.may_share_memory(src, dst) and flat.run("copy", [src, dst])):
            return                  # bytes copied unchanged, split over the pool
        np.copyto(dst, src)         # nothing to warn about: no catch_warnings (five Python calls per copy)
        return
    if (src.__class__ is np.ndarray and src.size >= flat.MIN_ELEMS and flat.splits() and src.shape == dst.shape
            and src.flags.c_contiguous and dst.flags.c_contiguous and dst.dtype in _TO and src.dtype in _FLAT
            and not np.may_share_memory(src, dst) and flat.run(_TO[dst.dtype], [src, dst])):
        return                      # a big float32 <-> float64 cast on ember's C pool
    if (src.__class__ is np.ndarray and src.size >= flat.MIN_ELEMS_MATH and src.shape == dst.shape
            and (half := _half_cast(src.dtype, dst.dtype)) is not None
            and src.flags.c_contiguous and dst.flags.c_contiguous and not np.may_share_memory(src, dst)
            and flat.run(half, [src, dst], dtype=_F32)):
        return                      # float32 <-> float16 / bfloat16 in C (torch's bits), from 4096 elements
    if (src.__class__ is np.ndarray and (k := _SMALL.get((src.dtype, dst.dtype))) is not None
            and src.shape == dst.shape and src.flags.c_contiguous and dst.flags.c_contiguous
            and not np.may_share_memory(src, dst) and (k := _small(k)) is not None):
        k(_address(src), _address(dst), src.size)   # one direct C call (see _SMALL)
        return
    if (src.__class__ is np.ndarray and src.dtype == _F32 and src.shape == dst.shape
            and _half_cast(_F32, dst.dtype) == "to_bf16" and src.flags.c_contiguous and dst.flags.c_contiguous
            and not np.may_share_memory(src, dst) and (k := _bf16_small()) is not None):
        # a small float32 -> bfloat16 cast: one direct C call with torch's bits (NaN 0xffff, as its vectorised
        # loop writes for a contiguous float32 source); numpy's cast plus copy_half's NaN pass (isnan, any,
        # the rule) cost ~3 us more on 64 elements
        k(_address(src), _address(dst), src.size)
        return
    if (src.__class__ is np.ndarray and src.dtype == _F64 and src.size >= flat.MIN_ELEMS_MATH
            and src.shape == dst.shape and (half := _half_cast(_F32, dst.dtype)) is not None
            and src.flags.c_contiguous and dst.flags.c_contiguous):
        with np.errstate(over="ignore", invalid="ignore"):     # (a signalling NaN raises invalid)
            tmp = src.astype(_F32)          # torch's float step (copy_half.py), then the C cast
        if flat.run(half, [tmp, dst], dtype=_F32):
            if half == "to_bf16" and (nan := np.isnan(tmp)).any():
                copy_half.bf16_nans(dst, src, nan, _F64)     # float64's scalar tails write 0x7fc0
            return                  # 1M float64 -> float16: 2.45 ms through numpy's loops, ~0.9 in C
    if src.__class__ is np.ndarray:
        kind = _CAST.get((src.dtype, dst.dtype)) or _cast_kind(src.dtype, dst.dtype)
    else:
        kind = 4                            # a Python or numpy scalar (fill_, copy_ of a number)
    if kind == 1:
        np.copyto(dst, src)                 # a safe cast: numpy's bits are torch's and nothing can warn
    elif kind == 2:
        with np.errstate(all="ignore"):     # NaN -> int, overflow: numpy's floating-point warnings, not torch's
            np.copyto(dst, src, casting="unsafe")
    elif kind == 3:
        with np.errstate(all="ignore"):     # overflow to inf warns in numpy, not in torch
            copy_half.copyto(dst, src)      # rounded through float32, NaNs as torch writes them
    else:
        with warnings.catch_warnings():     # complex -> real casts warn in numpy (ComplexWarning), not in torch
            warnings.simplefilter("ignore")
            np.copyto(dst, src, casting="unsafe")


_CAST = {}          # (source dtype, destination dtype) -> _cast_kind's answer, for numpy array sources


def _cast_kind(s, d):
    """How _copyto's last step casts a numpy array of dtype `s` into one of dtype `d` (remembered in _CAST): 3
    through copy_half (float16 / bfloat16 with torch's bits), 1 by a plain np.copyto (numpy's "safe" casts from
    bool and integers: nothing rounds to another value than torch's and no warning can arise), 2 by np.copyto under np.errstate
    (real and bool dtypes: numpy's only warnings there are the floating-point ones, NaN -> int and overflow;
    ~0.7 us less than catch_warnings), 4 under catch_warnings (complex -> real warns ComplexWarning through the
    warnings module)."""
    if copy_half.involved(s, d):
        k = 3
    elif s.kind in "biu" and np.can_cast(s, d, "safe"):    # (a float source's signalling NaN raises invalid)
        k = 1
    elif s.kind in "biuf" and d.kind in "biuf":
        k = 2
    else:
        k = 4
    _CAST[(s, d)] = k
    return k


# casts below the pool kernels' sizes made by one direct call of csrc/elementwise_flat.c (`<kernel>_n(x, o, n)`):
# float32 -> float16 with the bits of the big kernel (torch's; numpy's cast plus copy_half's NaN pass cost ~3 us
# more), float64 <-> float32 with numpy's and torch's bits (the C conversion: round to nearest, overflow to inf,
# NaN quieted keeping its payload's top bits) without np.errstate's ~1.4 us (a signalling NaN raises the
# invalid flag in either direction: numpy would warn)
_SMALL = {(_F32, _F16): "to_f16_f32_n", (_F64, _F32): "to_f32_f64_n", (_F32, _F64): "to_f64_f32_n"}
_SMALL_FN = {}


def _small(name):
    """The ctypes function `name` of csrc/elementwise_flat.c (x, o, n), or None when C kernels are off."""
    fn = _SMALL_FN.get(name, 0)
    if fn == 0:
        fn = _SMALL_FN[name] = clib.kernel("elementwise_flat", name, "ppl")
    return fn


_SMALL_MAX = flat.MIN_ELEMS_MATH        # _to_copy's direct call below the sizes _copyto sends to the pool kernels
_SMALL_BY = {}                          # (ember dtype, ember dtype) -> _SMALL's function, None (no such kernel)


def _small_by(s, d):
    """_SMALL's function for a cast between ember dtypes s and d (or None), remembered in _SMALL_BY (ember dtypes
    hash by identity; a pair of numpy dtypes as key costs more)."""
    name = _SMALL.get((s._np, d._np))
    fn = _SMALL_BY[(s, d)] = _small(name) if name is not None else None
    return fn


_ROWS = frozenset(np.dtype(c) for c in "?bhilqBHILQefdFD")    # plain bytes: a memcpy is exact
_ROWS_MIN = 320     # rows: numpy pays ~7 ns a row, C ~1.2 ns a row plus ~1.5 us to call (ctypes, 9 arguments)
# elements: from here, with 2+ threads, the row copy's groups of rows split over ember's C pool
# (csrc/strided_copy.c's part; torch splits its copy_ from 32768 too). A GPT's (16, 64, 4, 32) float32
# transposed q/k/v or y made contiguous, min us at 2 threads, torch in the same process, load ~9: 21.8 -> 17.2
# (torch 11.3); (16, 4, 64, 32) 20.8 -> 15.6 (10.4). One thread unchanged.
_ROWS_SPLIT = 1 << 15


def _row_copy(a, out):
    """Copy a 2-4 dim array whose last dim is contiguous (a transposed (B, H, T, D) view made contiguous) into
    fresh C-contiguous `out` with csrc/strided_copy.c, row by row; False when it does not apply. numpy pays
    its iterator per inner row: (8, 4, 32, 16) float32 transposed to (8, 32, 4, 16), 16384 elements, took
    7.1 us in np.copyto against 3.7 in C; (2, 4, 32, 32), 256 rows of 32, 1.9 against 2.9, hence the
    threshold on the row count (CPU-time minima, load ~12 on 2 cores)."""
    nd = a.ndim
    if nd < 2 or nd > 4 or a.dtype not in _ROWS:
        return False
    st = a.strides
    isz = a.itemsize
    n = a.shape[-1]
    if st[-1] != isz or n * isz < 16 or a.size < _ROWS_MIN * n:
        return False
    fn = clib.kernel("strided_copy", "strided_copy_rows", "pplllllll")
    if fn is None:
        return False
    sh = (1,) * (4 - nd) + a.shape
    st = (0,) * (4 - nd) + st
    groups = sh[0] * sh[1]
    if a.size >= _ROWS_SPLIT and groups >= 2 and get_num_threads() > 1:
        part = cparts.entry("strided_copy", "strided_copy_part")
        if part:
            t = get_num_threads()
            d = np.array([clib.address(a), clib.address(out), sh[0], sh[1], sh[2], st[0], st[1], st[2],
                          sh[3] * isz], np.int64)
            cparts.run(part, groups, t, max(1, groups // (8 * t)), clib.address(d))
            return True
    fn(clib.address(a), clib.address(out), sh[0], sh[1], sh[2], st[0], st[1], st[2], sh[3] * isz)
    return True


def clone(self, memory_format=None):
    a = self._np
    if a is not None and format_name(memory_format) == "contiguous_format":
        out = np.empty(a.shape, a.dtype)            # contiguous() of a strided cpu tensor: one copy, no geometry
        if not (_big_flat(a) and flat.run("copy", [a, out])) and (a.flags.c_contiguous or not _row_copy(a, out)):
            np.copyto(out, a)
        return Tensor._wrap_fresh(out, self.dtype)
    out = empty_tensor(self._size, self.dtype, strides=M.format_strides(self, memory_format))
    _copyto(out._np, self._np)
    return out


def copy_(self, src, non_blocking=False):
    M.check_copy(self, src)
    if self._np is None:
        return self
    if not isinstance(src, Tensor):
        self._np[...] = src
        return self
    if src._np is None:
        raise NotImplementedError("Cannot copy out of meta tensor; no data!")
    if self._np.size:
        _copyto(self._np, src._np)
    return self


def _to_copy(self, dtype=None, layout=None, device=None, pin_memory=None, non_blocking=False, memory_format=None):
    a = self._np
    if (a is not None and layout is None and dtype.__class__ is _DTYPE and (device is None or device is CPU)
            and (memory_format is None or format_name(memory_format) == "preserve_format")
            and ((st := self._stride) is None or st == contiguous_strides(self._size))):
        # `.to(dtype)` / `.float()` / `.double()` of a c-contiguous cpu tensor (TensorImpl: `_stride` None, or the
        # contiguous strides stride() cached), the common case: the result is the fresh c-contiguous array that
        # to_copy_strides and empty_tensor below would make (~2 us of their checks; a 1M float32 -> float16 cast
        # takes ~40 us on 2 threads). (Up to session 14 only `_stride` None and memory_format None took it: the
        # shorthands' "preserve_format" did not, and their general path's stride() then kept every later call
        # of that tensor off it.)
        out = np.empty(a.shape, dtype._np)
        n = a.size
        k = _SMALL_BY.get((self.dtype, dtype), 0) if n < _SMALL_MAX else None
        if k == 0:
            k = _small_by(self.dtype, dtype)
        if k is not None:
            k(_address(a), _address(out), n)    # a fresh output: _copyto's layout and overlap checks cost ~1 us
        else:
            _copyto(out, a)
        return Tensor._wrap_fresh(out, dtype)
    if format_name(layout) not in (None, "strided"):
        raise RuntimeError(f"_to_copy(): layout {layout} is not supported (strided only)")
    dtype = as_dtype(dtype) or self.dtype
    dev = as_device(device) or self.device
    st = M.to_copy_strides(self, memory_format)
    out = empty_tensor(self._size, dtype, dev, st)
    if out._np is None:
        return out
    if self._np is None:
        raise NotImplementedError("Cannot copy out of meta tensor; no data! Please consider using "
                                  "torch.nn.Module.to_empty() instead of torch.nn.Module.to() when moving module "
                                  "from meta to a different device.")
    _copyto(out._np, self._np)
    return out


def resize_(self, size, memory_format=None):
    M.resize_(self, size, memory_format)
    from ..._core.tensor_impl import _np_view
    self._np = _np_view(self.untyped_storage()._data, self._offset, self._size, self._stride, self.dtype)
    return self


def fill_(self, value):
    M.check_fill_value(value)
    M.check_fill_overlap(self, value)
    # one element: torch's scalar_fill stores a float16/bfloat16 value without its range check
    v = value._np if isinstance(value, Tensor) else check_number(self.dtype, value, self.numel() != 1)
    if isinstance(value, Tensor) and value._np is None:
        raise NotImplementedError("Cannot copy out of meta tensor; no data!")
    a = self._np
    if a.size:
        vc = v.__class__
        if (vc is float or (vc is int and -_EXACT <= v <= _EXACT)) and _big_fill(a) and flat.run("fill", [a, a], v):
            return self             # the value rounded to the dtype once, as numpy's assignment does
        _copyto(a, v)
    return self


def fill(self, value):
    """fill.Scalar / fill.Tensor: a new tensor shaped and typed like self, every element `value`."""
    return fill_(empty_tensor(self._size, self.dtype, strides=M.format_strides(self, None)), value)


def lift_fresh(self):
    """lift_fresh: self itself (a tensor just made from a Python value); modes intercept it."""
    return self


def zero_(self):
    a = self._np
    if a.size and not (_big_fill(a) and flat.run("fill", [a, a], 0.0)):
        a[...] = 0
    return self
