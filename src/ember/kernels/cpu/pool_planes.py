"""The C path of the cpu 1-d/2-d max and average pools (csrc/pool.c): one pass over each plane,
planes shared out over ember's thread pool. Every function returns None when C is unavailable or
the dtype is not float32/float64 (the caller then takes the numpy path of pool.py)."""
import math
import numpy as np

from .runtime.pool import split_run
from .runtime import clib, cparts

_addr = clib.address          # a.ctypes.data without its ~1 us helper object

_SUFFIX = {np.dtype(np.float32): "f32", np.dtype(np.float64): "f64"}
# The max pool's loops are bound by memory: on this 2-core machine a layer of a small CNN (~10^5
# outputs, ~0.1 ms) ran faster on one thread than split over the Python pool, whose hand-off cost as much
# as the work; so the Python pool splits from _MAX_SPLIT elements only. The C pool (runtime/cparts.py:
# no GIL, workers spinning between jobs, chunks to whichever thread is free) splits from _C_SPLIT input
# elements: the CNN step's max pools of (64, 6, 28, 28) and (64, 16, 10, 10), 0.54 and 0.39 ms per step
# on one thread, where torch's halve at 2 threads.
_MAX_SPLIT = 1 << 21
_C_SPLIT = 1 << 15


def _fn(name, dtype, sig, restype=None):
    sfx = _SUFFIX.get(np.dtype(dtype))
    return None if sfx is None else clib.kernel("pool", f"{name}_{sfx}", sig, restype)


def geometry(sp, k, s, p, dl, o):
    """H W KH KW SH SW PH PW DH DW OH OW of csrc/pool.c; a 1-d pool is a 2-d one with H = 1."""
    if len(sp) == 1:
        sp, k, s, p, dl, o = (1,) + tuple(sp), (1,) + tuple(k), (1,) + tuple(s), (0,) + tuple(p), \
            (1,) + tuple(dl), (1,) + tuple(o)
    return np.array(tuple(sp) + tuple(k) + tuple(s) + tuple(p) + tuple(dl) + tuple(o), np.int64)


def _planes(shape, d):
    return math.prod(shape[:-d]) if len(shape) > d else 1


def max_pool(x, d, k, s, p, dl, o):
    """(values, int64 flat indices) of a max pool over the last d (1 or 2) dims, or None."""
    f = _fn("max_pool2d", x.dtype, "ppppl")
    if f is None or d not in (1, 2):
        return None
    x = np.ascontiguousarray(x)
    n, sp, osz = _planes(x.shape, d), x.shape[-d:], math.prod(o)
    y = np.empty(x.shape[:-d] + tuple(o), x.dtype)
    idx = np.empty(y.shape, np.int64)
    geo = geometry(sp, k, s, p, dl, o)

    part = cparts.entry("pool", f"max_pool2d_part_{_SUFFIX[x.dtype]}")
    if part and n and osz:
        t = cparts.threads_for(x.size, _C_SPLIT)
        cparts.run(part, n, t, cparts.grain(n, t), _addr(x), _addr(y), _addr(idx), _addr(geo))
        return y, idx

    def run(xc, yc, ic):
        if len(xc):
            f(_addr(xc), _addr(yc), _addr(ic), _addr(geo), len(xc))
    if n and osz:
        split_run(run, [x.reshape(n, -1), y.reshape(n, osz), idx.reshape(n, osz)], 0, min_elems=_MAX_SPLIT)
    return y, idx


def max_pool_backward(go, indices, in_shape):
    """grad_input (in_shape) of a max pool from its flat per-plane indices, or None (also when an
    index is out of range: the numpy path then raises its error)."""
    f = _fn("max_pool2d_backward", go.dtype, "pppll" + "l", "l")
    if f is None:
        return None
    hw = int(in_shape[-1] * in_shape[-2])
    n = _planes(in_shape, 2)
    go = np.ascontiguousarray(go)
    idx = np.ascontiguousarray(indices, np.int64)
    if n == 0 or hw == 0 or go.size != idx.size or go.size % n:
        return None
    o = go.size // n
    gi = np.empty((n, hw), go.dtype)
    part = cparts.entry("pool", f"max_pool2d_backward_part_{_SUFFIX[go.dtype]}")
    if part:
        t = cparts.threads_for(n * hw, _C_SPLIT)
        g = cparts.grain(n, t)
        status = np.full(-(-n // g), -1, np.int64)       # run inline as one range, only status[0] is written
        d = np.array([o, hw, g, _addr(status)], np.int64)
        cparts.run(part, n, t, g, _addr(go), _addr(idx), _addr(gi), _addr(d))
        return None if (status >= 0).any() else gi.reshape(in_shape)
    bad = []

    def run(gc, ic, oc):
        if len(gc):
            r = f(_addr(gc), _addr(ic), _addr(oc), len(gc), o, hw)
            if r >= 0:
                bad.append(r)
    split_run(run, [go.reshape(n, o), idx.reshape(n, o), gi], 0, min_elems=_MAX_SPLIT // 4)
    return None if bad else gi.reshape(in_shape)


def avg_pool(x, k, s, p, o, include_pad, divisor_override):
    """2-d average pool of x (..., H, W), or None."""
    f = _fn("avg_pool2d", x.dtype, "pppl" + "il")
    if f is None:
        return None
    x = np.ascontiguousarray(x)
    n, osz = _planes(x.shape, 2), math.prod(o)
    y = np.empty(x.shape[:-2] + tuple(o), x.dtype)
    geo = geometry(x.shape[-2:], k, s, p, (1, 1), o)
    ov = int(divisor_override or 0)

    def run(xc, yc):
        if len(xc):
            f(_addr(xc), _addr(yc), _addr(geo), len(xc), int(include_pad), ov)
    if n and osz:
        split_run(run, [x.reshape(n, -1), y.reshape(n, osz)], 0, min_elems=1 << 16)
    return y


def avg_pool_backward(go, in_shape, k, s, p, include_pad, divisor_override):
    """grad_input (in_shape) of a 2-d average pool, or None."""
    f = _fn("avg_pool2d_backward", go.dtype, "pppl" + "il")
    if f is None:
        return None
    go = np.ascontiguousarray(go)
    n, hw = _planes(in_shape, 2), int(in_shape[-1] * in_shape[-2])
    gi = np.zeros((n, hw), go.dtype)
    if n == 0 or hw == 0 or go.size == 0:
        return gi.reshape(in_shape)
    geo = geometry(in_shape[-2:], k, s, p, (1, 1), go.shape[-2:])
    ov = int(divisor_override or 0)

    def run(gc, ic):
        if len(gc):
            f(_addr(gc), _addr(ic), _addr(geo), len(gc), int(include_pad), ov)
    split_run(run, [go.reshape(n, -1), gi], 0, min_elems=1 << 16)
    return gi.reshape(in_shape)
