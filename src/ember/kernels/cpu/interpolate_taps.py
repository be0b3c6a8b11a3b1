"""The channel loops of grid_sample in C (csrc/taps.c): gather, scatter and per-tap dot products of
weighted taps that the caller computed once per image in numpy. Images are split over the thread
pool. Each function returns None when C is unavailable or the dtype is not float32/float64; the
caller then keeps its numpy path."""
import numpy as np

from .runtime.pool import split_run
from .runtime import clib

_SUFFIX = {np.dtype(np.float32): "f32", np.dtype(np.float64): "f64"}


def kernel(name, dtype):
    """taps_<name>_<f32|f64> (4 pointers, then n, c, plane, k, L), or None."""
    sfx = _SUFFIX.get(np.dtype(dtype))
    return None if sfx is None else clib.kernel("taps", f"taps_{name}_{sfx}", "pppplllll")


def _run(f, arrays, c, plane, k, L):
    """f over images split across the pool: arrays (all image-major) are its 4 pointer arguments."""
    def run(*chunks):
        f(*(a.ctypes.data for a in chunks), len(chunks[0]), c, plane, k, L)
    if arrays[0].shape[0]:
        split_run(run, arrays, 0, min_elems=1 << 15)


def gather(x, idx, wt):
    """x (n, c, plane), idx/wt (n, k, L) -> out (n, c, L) = sum over taps of wt * x[idx] (idx < 0 skipped)."""
    f = kernel("gather", x.dtype)
    if f is None:
        return None
    x = np.ascontiguousarray(x)
    n, c, plane = x.shape
    k, L = idx.shape[1:]
    out = np.empty((n, c, L), x.dtype)
    _run(f, [x, idx, wt, out], c, plane, k, L)
    return out


def scatter(go, idx, wt, plane):
    """go (n, c, L), idx/wt (n, k, L) -> gi (n, c, plane): go * wt added at every tap (idx < 0 skipped)."""
    f = kernel("scatter", go.dtype)
    if f is None:
        return None
    go = np.ascontiguousarray(go)
    n, c, L = go.shape
    gi = np.zeros((n, c, plane), go.dtype)
    _run(f, [go, idx, wt, gi], c, plane, idx.shape[1], L)
    return gi


def dot(go, x, idx):
    """go (n, c, L), x (n, c, plane), idx (n, k, L) -> prod (n, k, L) = sum over channels of go * x[idx]."""
    f = kernel("dot", go.dtype)
    if f is None or x.dtype != go.dtype:
        return None
    go, x = np.ascontiguousarray(go), np.ascontiguousarray(x)
    n, c, L = go.shape
    prod = np.empty((n, idx.shape[1], L), go.dtype)
    _run(f, [go, x, idx, prod], c, x.shape[2], idx.shape[1], L)
    return prod
