"""A fused multiply-add in numpy (what torch's CPU kernels get from `Vectorized::fmadd` and from the compiler
contracting `a * b + c` in its AVX2/AVX512 builds): `a * b + c` with one rounding.

numpy has no fma ufunc, so it is built from error-free transformations:
- float32: the product of two float32 is exact in float64; the sum with c rounded to float64 and then to
  float32 is the correctly rounded result except where the float64 sum lands exactly halfway between two
  float32 (or in float32's subnormal range): there the sum is taken rounded to odd (53 bits >= 24 + 2), which
  removes the double rounding;
- float64: the product is split exactly into hi + lo (Dekker/Veltkamp), c + hi exactly into th + tl (TwoSum),
  tl + lo is rounded to odd and added to th (Boldo and Melquiond, "Emulation of FMA and correctly rounded
  sums: proved algorithms using rounding to odd", 2008).
Where the exact pieces leave the normal range (a product or split that overflows or underflows, inf or nan
inputs) the plain `a * b + c` is used, which is what the fused instruction gives there apart from results
within a rounding of the overflow threshold or in the subnormal range.
"""
import numpy as np

from .runtime import clib

__all__ = ["fma"]

_SPLIT = 134217729.0          # 2 ** 27 + 1 (Veltkamp's split of a float64 into two 26-bit halves)


def _two_sum(a, b):
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def _odd(s, err):
    """s (the nearest sum) moved to the neighbour with an odd last bit when the exact sum s + err is not s
    and s's last bit is even: rounding to odd."""
    bits = s.view(np.int64)
    fix = (err != 0) & ((bits & 1) == 0) & np.isfinite(s)
    return np.where(fix, np.nextafter(s, np.where(err > 0, np.inf, -np.inf)), s)


def _two_prod(a, b):
    p = a * b
    ca, cb = _SPLIT * a, _SPLIT * b
    ah, bh = ca - (ca - a), cb - (cb - b)
    al, bl = a - ah, b - bh
    return p, ((ah * bh - p) + ah * bl + al * bh) + al * bl


_C_NAMES = {np.dtype(np.float32): "fma_f32", np.dtype(np.float64): "fma_f64"}


def _fma_c(a, b, c, dt):
    """fma by csrc/fma.c over the broadcast operands, or None when C kernels are unavailable."""
    fn = clib.kernel("fma", _C_NAMES[dt], "ppppl")
    if fn is None:
        return None
    a, b, c = (np.ascontiguousarray(x, dtype=dt) for x in np.broadcast_arrays(a, b, c))
    out = np.empty(a.shape, dt)
    if out.size:
        fn(a.ctypes.data, b.ctypes.data, c.ctypes.data, out.ctypes.data, out.size)
    return out


def fma(a, b, c):
    """a * b + c rounded once to the common float dtype of a, b, c (float32 or float64 numpy arrays or scalars
    of that dtype); float16/bfloat16/complex are not handled here. C's fma when a compiler is available (~10x
    faster than the emulation below, which gives the same bits)."""
    a, b, c = np.asarray(a), np.asarray(b), np.asarray(c)
    dt = np.result_type(a, b, c)
    if dt in _C_NAMES:
        r = _fma_c(a, b, c, dt)
        if r is not None:
            return r
    with np.errstate(all="ignore"):
        if dt == np.float32:
            p = a.astype(np.float64) * b.astype(np.float64)       # exact
            c = c.astype(np.float64)
            s = np.asarray(p + c)
            # rounding s to float32 is right unless s sits exactly halfway between two float32 (its low 29
            # bits 1000...0) or is in float32's subnormal range: only there round the sum to odd first
            s, p, c = np.broadcast_arrays(s, p, c)
            s = s.copy()
            tie = ((s.view(np.uint64) & 0x1FFFFFFF) == 0x10000000) | (np.abs(s) < 2.0 ** -126)
            if tie.any():
                exact, err = _two_sum(p[tie], c[tie])
                s[tie] = _odd(np.asarray(exact), np.asarray(err))
            return s.astype(np.float32)
        a, b, c = a.astype(np.float64), b.astype(np.float64), c.astype(np.float64)
        plain = a * b + c
        hi, lo = _two_prod(a, b)
        th, tl = _two_sum(c, hi)
        v = _odd(np.asarray(tl + lo), np.asarray(_two_sum(tl, lo)[1]))
        r = th + v
        tiny = 2.0 ** -969                  # below it the split halves' products may be subnormal (inexact)
        big = 2.0 ** 995                    # above it _SPLIT * a may overflow
        ok = (np.isfinite(r) & np.isfinite(hi) & (np.abs(a) < big) & (np.abs(b) < big)
              & ((np.abs(hi) > tiny) | (hi == 0)))
        return np.where(ok, r, plain)
