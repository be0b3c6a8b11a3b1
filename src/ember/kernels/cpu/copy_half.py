"""Casts to and from float16 / bfloat16 with torch's bits (ATen's copy kernels, native/cpu/CopyKernel.cpp, and
c10's Half / BFloat16 conversions), where numpy's (and ml_dtypes') casts give other bits:

- Rounding: torch converts every wider type to a reduced float through float32 (c10::Half and c10::BFloat16
  are built from a float), so a float64 or int64 value is rounded twice; numpy rounds float64 -> float16 and
  ml_dtypes rounds float64 / int64 -> bfloat16 once. 7 of 65536 float64 values just past a float16 midpoint
  (and 1177 of 317k near-midpoint float64 values) differ by an ulp; so do most float64 values just past a
  bfloat16 midpoint.
- float16 NaNs: torch quiets them keeping the sign and the top payload bits (F16C's vcvtps2ph / vcvtph2ps,
  also on its scalar path): 0x7f800001 -> 0x7e00, half 0x7c01 -> float 0x7fc02000. numpy keeps a signalling
  NaN signalling (0x7c01, 0x7f802000).
- bfloat16 NaNs depend on the loop torch runs: its vectorised float32/float64 -> bfloat16 loop writes 0xffff
  for every NaN (cvtfp32_bf16 blends in 0xffff), its scalar loop c10's 0x7fc0, sign dropped (ml_dtypes keeps
  the sign: 0xffc0). The vectorised loop runs over the inner dimension TensorIterator builds (dims ordered by
  the output's strides, coalesced) when both operands are contiguous along it; float32 sources take it to the
  last element (the tail is a partial vector load), float64 ones in steps of 2 x 8 doubles on AVX-512 (2 x 4 on
  AVX2), the rest of each row scalar; over GRAIN elements with 2+ threads each thread's chunk of the flat
  range has its own tail. Other sources (float16, complex, a strided output) take the scalar loop.
"""
import numpy as np

from .runtime import flat
from .runtime.pool import get_num_threads

_F16 = np.dtype(np.float16)
_F32 = np.dtype(np.float32)
_F64 = np.dtype(np.float64)
_EXACT = frozenset(np.dtype(c) for c in "?bhBHe")     # held by float32 exactly: cast directly


def is_bf16(d):
    return d.kind == "V" and d.name == "bfloat16"


def _float64_step():
    """Doubles per step of ATen's vectorised loop (2 vectors): 16 with AVX-512, 8 with AVX2."""
    feats = getattr(np, "__cpu_features__", None)
    if feats is None:
        from numpy._core._multiarray_umath import __cpu_features__ as feats
    return 16 if feats.get("AVX512F") and feats.get("AVX512BW") else 8


_STEP = []


def involved(s, d):
    """Whether a cast from numpy dtype s to d needs this module (one of them float16 / bfloat16)."""
    return d == _F16 or is_bf16(d) or (s == _F16 and d.kind in "fc")


def copyto(dst, src):
    """np.copyto(dst, src, casting='unsafe') with torch's bits for the cases in the module docstring."""
    s, d = src.dtype, dst.dtype
    if s == _F16 and d.kind in "fc":                 # upcast: quiet the NaNs
        np.copyto(dst, src, casting="unsafe")
        nan = np.isnan(src)
        if nan.any():
            _quiet(dst, nan)
        return
    orig = src
    if s.kind == "c":
        src = src.real                               # torch drops the imaginary part (the caller warns)
    if src.dtype not in _EXACT and src.dtype != _F32:
        src = src.astype(_F32)                       # c10's conversions go through float
    np.copyto(dst, src, casting="unsafe")
    if src.dtype != _F32 and (src.dtype != _F16 or d == _F16):
        return                                       # no NaN, or float16 unchanged
    nan = np.isnan(src)
    if not nan.any():
        return
    nan = np.broadcast_to(nan, dst.shape)
    if d == _F16:
        bits = np.broadcast_to(src, dst.shape)[nan].view(np.uint32)
        dst.view(np.uint16)[nan] = (((bits >> 16) & 0x8000) | 0x7e00 | ((bits >> 13) & 0x3ff)).astype(np.uint16)
    else:
        bf16_nans(dst, np.broadcast_to(orig, dst.shape), nan, s)


def _quiet(dst, nan):
    if dst.dtype.kind == "c":
        return
    u = dst.view(np.uint32 if dst.itemsize == 4 else np.uint64)
    u[nan] |= np.uint32(0x400000) if dst.itemsize == 4 else np.uint64(0x8000000000000)


def bf16_nans(dst, src, nan, s):
    """Write torch's bfloat16 NaN bits into dst's NaN lanes: 0xffff where its vectorised loop writes them,
    0x7fc0 where its scalar loop does (module docstring). src is the source as given (dtype s), broadcast to
    dst's shape."""
    out = dst.view(np.uint16)
    if s not in (_F32, _F64) or dst.ndim == 0:
        out[nan] = 0x7fc0
        return
    # TensorIterator's order: dims by the output's strides (innermost last), size-1 dims dropped
    srcst = src.strides
    dims = sorted((k for k in range(dst.ndim) if dst.shape[k] > 1), key=lambda k: (-abs(dst.strides[k]),
                                                                                 -abs(srcst[k])))
    if not dims:
        out[nan] = 0xffff if s == _F32 else 0x7fc0      # one element: float64's tail
        return
    inner = dims[-1]
    L = dst.shape[inner]
    k = len(dims) - 1                                   # coalesce outwards while both operands allow it
    while k > 0:
        o, i = dims[k - 1], dims[k]
        if dst.strides[o] != dst.strides[i] * dst.shape[i] or srcst[o] != srcst[i] * src.shape[i]:
            break
        L *= dst.shape[o]
        k -= 1
    if dst.strides[inner] != dst.itemsize or srcst[inner] != s.itemsize:
        out[nan] = 0x7fc0                               # the scalar loop
        return
    if s == _F32:
        out[nan] = 0xffff                               # vectorised to the end of every row
        return
    if not _STEP:
        _STEP.append(_float64_step())
    step = _STEP[0]
    perm = [k for k in range(dst.ndim) if k not in dims] + dims
    o_t = out.transpose(perm)
    nan_t = nan.transpose(perm)
    pos = np.flatnonzero(nan_t)                         # flat positions in iteration order
    n = dst.size
    row_start = pos // L * L
    row_end = row_start + L
    threads = get_num_threads()
    if n >= flat.GRAIN and threads > 1:                 # at::parallel_for's chunks of the flat range
        chunks = min(threads, -(-n // flat.GRAIN))
        size = -(-n // chunks)
        c0 = pos // size * size
        row_start = np.maximum(row_start, c0)
        row_end = np.minimum(row_end, c0 + size)
    seg = row_end - row_start
    scalar = pos - row_start >= seg - seg % step
    o_t[nan_t] = np.where(scalar, np.uint16(0x7fc0), np.uint16(0xffff))


def from_numbers(arr, d):
    """A numpy array of Python numbers (`torch.tensor(data)`) as float16/bfloat16 `d` the way torch stores
    them one by one (c10's scalar conversion): rounded through float32, a NaN bfloat16 0x7fc0."""
    if arr.dtype.kind == "c":
        arr = arr.real
    with np.errstate(all="ignore"):
        out = arr.astype(_F32).astype(d)
    if is_bf16(d) and arr.dtype.kind == "f":
        nan = np.isnan(arr)
        if nan.any():
            out.view(np.uint16)[nan] = 0x7FC0
    return out
