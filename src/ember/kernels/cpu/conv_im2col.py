"""The C path of cpu convolution (csrc/im2col.c): one image at a time, channels-first throughout.

Each image's column matrix (G, Cg*K, O) is built by C straight from the NC(D)HW input into a small
per-thread buffer that stays in cache, and one matmul per image writes its output (G, Og, O) in
place, already in NC(D)HW order: no padded copy of the input, no big (N*O, K*C) matrix, no output
transpose. Images are shared out over ember's thread pool (ctypes and numpy's matmul release the
GIL). Every function returns None when C is unavailable or the dtype is not float32/float64; the
caller then takes the numpy path of conv.py.

Tuning: this is the path of every float convolution that conv_direct.py does not take (one gemm per
chunk of images on each pool thread). While the images are on the pool, `runtime/blas.py` holds
OpenBLAS at one thread (nested BLAS threads were 2-10x slower). OpenBLAS's thread count is
process-wide, so a matmul in another Python thread during a conv also runs on one thread.
"""
import math
import threading

import numpy as np

from .runtime.pool import _pool, run_parts
from .runtime import blas, clib

_addr = clib.address          # a.ctypes.data without its ~1 us helper object
from .runtime import gemm as _gemm

_SUFFIX = {np.dtype(np.float32): "f32", np.dtype(np.float64): "f64"}
_MIN_WORK = 1 << 17         # multiply-adds below which one thread does the whole batch
_INLINE = threading.local()     # .on: over_images runs every image on this thread (its gemms may use the C pool)


def _fn(name, dtype, sig):
    sfx = _SUFFIX.get(np.dtype(dtype))
    return None if sfx is None else clib.kernel("im2col", f"{name}_{sfx}", sig)


def geometry(in_sp, kern, out, st, pd, dl):
    """The int64 geometry of csrc/im2col.c, 1-d and 2-d padded to 3-d with unit dims in front."""
    e = 3 - len(kern)
    one, zero = (1,) * e, (0,) * e
    g = (one + tuple(in_sp) + one + tuple(kern) + one + tuple(out) + one + tuple(st) + zero + tuple(pd) +
         one + tuple(dl))
    return np.array(g, np.int64)


def over_images(fn, n, work):
    """fn(lo, hi, j) over chunks of the n images: chunk j of the thread pool's workers, each running
    its matmuls on one BLAS thread (inline, with BLAS's own threads, for small work or when BLAS
    threads cannot be pinned per thread). Returns the number of chunks used."""
    k = min(workers(), n) if work >= _MIN_WORK and blas.available() else 1
    if k <= 1:
        _INLINE.on = True           # _mm splits each gemm over the C pool instead
        try:
            fn(0, n, 0)
        finally:
            _INLINE.on = False
        return 1
    bounds = [n * i // k for i in range(k + 1)]
    with blas.single_blas():
        run_parts(lambda j: fn(bounds[j], bounds[j + 1], j), k)
    return k


def workers():
    return _pool()._max_workers


WGRAD_PARTS = 8             # at most this many partial sums of a weight gradient, fixed by the batch


def wgrad_bounds(n, bsz):
    """Image bounds of a weight gradient's partial sums: min(WGRAD_PARTS, chunks of bsz images) equal ranges,
    fixed by the batch and the chunk size, never by the thread count, so the bits of the sum (each range's
    chunks added in order, then the ranges in order) are the same at every thread count. A batch that fits
    one chunk is one range: its gemm is then split over the C pool instead (_mm), with numpy's bits."""
    parts = max(1, min(WGRAD_PARTS, -(-n // bsz)))
    return [n * i // parts for i in range(parts + 1)]


def over_ranges(fn, bounds, work):
    """fn(lo, hi, j) for each range j of `bounds`, the ranges shared out in contiguous groups over the pool's
    threads (each group's ranges in order on one thread, BLAS held at one thread) when the work is big enough,
    else in order on this thread (its gemms may use the C pool, as over_images' inline case)."""
    parts = len(bounds) - 1
    k = min(workers(), parts) if work >= _MIN_WORK and blas.available() else 1
    if k <= 1:
        _INLINE.on = True
        try:
            for j in range(parts):
                fn(bounds[j], bounds[j + 1], j)
        finally:
            _INLINE.on = False
        return

    def group(i):
        for j in range(parts * i // k, parts * (i + 1) // k):
            fn(bounds[j], bounds[j + 1], j)
    with blas.single_blas():
        run_parts(group, k)


def _ok(*arrays):
    dt = arrays[0].dtype
    return dt in _SUFFIX and all(a is None or a.dtype == dt for a in arrays)


def chunk(n, o, ck, itemsize):
    """Images per gemm: enough output positions (columns) for an efficient gemm, a column buffer
    that stays cache sized."""
    b = max(1, -(-COLS // o), 1)
    b = min(b, max(1, BUF // (ck * o * itemsize)))
    return max(1, min(b, n))


COLS = 16384                # target gemm columns (images x output positions) per chunk
BUF = 1 << 20               # cap of a column buffer in bytes (about a core's L2)


def _packed(pack, go, s, m, groups, og, o):
    """(G, Og, m*O) contiguous: images s..s+m of go (N, G*Og, *O) side by side along columns."""
    if m == 1:
        return go[s].reshape(groups, og, o)
    p = np.empty((groups, og, m * o), go.dtype)
    pack(_addr(go) + s * go.strides[0], _addr(p), groups * og, m, o)
    return p


def _mm(a, b, out=None):
    """matmul of (G, M, K) by (G, K, N); one plain 2-d gemm when G = 1. When over_images runs every image on
    the calling thread (one image, or one pool thread), the gemm is split over ember's C pool instead
    (runtime/gemm.py: the same bits as numpy's call); with OpenBLAS held at one thread (blas.hold_single) a
    one-image convolution otherwise ran all its gemms on one core. Inside the Python pool's parts the gemms stay
    numpy's (each part is already one thread's work)."""
    if getattr(_INLINE, "on", False):
        if a.shape[0] == 1:
            r = _gemm.mm(a[0], b[0], out=None if out is None else out[0]) if a[0].size * b.shape[-1] > \
                _gemm.OPENBLAS_SERIAL else None
            if r is not None:
                return r[None]
        elif a[0].size * b.shape[-1] * a.shape[0] > _gemm.OPENBLAS_SERIAL:
            r = _gemm.bmm(a, b, out=out) if out is None or out.flags.c_contiguous else None
            if r is not None:
                return r
    if a.shape[0] == 1:
        return np.matmul(a[0], b[0], out=None if out is None else out[0])[None]
    return np.matmul(a, b, out=out)


def forward(x, w, b, st, pd, dl, groups, out):
    """(N, C, *S) conv (Cout, Cg, *K) -> (N, Cout, *out) (+ bias), or None."""
    if not _ok(x, w, b):
        return None
    im, unpack = _fn("im2col_batch", x.dtype, "pppll"), _fn("unpack", x.dtype, "pppl" + "ll")
    if im is None or unpack is None:
        return None
    n, c = x.shape[:2]
    cout, kern, isz = w.shape[0], tuple(w.shape[2:]), x.itemsize
    og, ck, o = cout // groups, w[0].size, math.prod(out)
    x = np.ascontiguousarray(x)
    wm = np.ascontiguousarray(w).reshape(groups, og, ck)
    bb = None if b is None else np.ascontiguousarray(b)
    bp = None if bb is None else _addr(bb)
    y = np.empty((n, cout) + tuple(out), x.dtype)
    yv = y.reshape(n, groups, og, o)
    geo = geometry(x.shape[2:], kern, out, st, pd, dl)
    xs, ys = x.strides[0], y.strides[0]
    bsz = chunk(n, o, groups * ck, isz)

    def run(lo, hi, _):
        buf = np.empty(groups * ck * min(bsz, hi - lo) * o, x.dtype)
        for s in range(lo, hi, bsz):
            m = min(bsz, hi - s)
            cols = buf[:groups * ck * m * o].reshape(groups, ck, m * o)
            im(_addr(x) + s * xs, _addr(cols), _addr(geo), c, m)
            if m == 1 and bb is None:
                _mm(wm, cols, out=yv[s])
            else:
                res = _mm(wm, cols)
                unpack(_addr(res), _addr(y) + s * ys, bp, cout, m, o)
    over_images(run, n, n * o * cout * ck)
    return y


def input_grad(go, w, in_spatial, st, pd, dl, groups, b=None):
    """Adjoint of forward in x: (N, Cout, *O) -> (N, G*Cg, *in_spatial) (+ bias), or None."""
    if not _ok(go, w, b):
        return None
    c2i, addb = _fn("col2im_batch", go.dtype, "pppll"), _fn("add_bias", go.dtype, "ppll")
    pack = _fn("pack", go.dtype, "ppl" + "ll")
    if c2i is None or addb is None or pack is None:
        return None
    n, cout, out = go.shape[0], go.shape[1], tuple(go.shape[2:])
    kern, isz = tuple(w.shape[2:]), go.itemsize
    og, ck, o, c = cout // groups, w[0].size, math.prod(out), groups * w.shape[1]
    wt = np.ascontiguousarray(np.ascontiguousarray(w).reshape(groups, og, ck).transpose(0, 2, 1))
    go = np.ascontiguousarray(go)
    bb = None if b is None else np.ascontiguousarray(b)
    gi = np.zeros((n, c) + tuple(in_spatial), go.dtype)
    geo = geometry(in_spatial, kern, out, st, pd, dl)
    gs, isp = gi.strides[0], math.prod(in_spatial)
    bsz = chunk(n, o, groups * ck, isz)

    def run(lo, hi, _):
        for s in range(lo, hi, bsz):
            m = min(bsz, hi - s)
            gcols = np.ascontiguousarray(_mm(wt, _packed(pack, go, s, m, groups, og, o)))   # G, Cg*K, m*O
            c2i(_addr(gcols), _addr(gi) + s * gs, _addr(geo), c, m)
            if bb is not None:
                for i in range(s, s + m):
                    addb(_addr(gi) + i * gs, _addr(bb), c, isp)
    over_images(run, n, n * o * cout * ck)
    return gi


def weight_grad(x, go, wshape, st, pd, dl, groups):
    """dL/dW of a forward convolution of x giving grad_output go: the sum over image chunks of
    go (G, Og, m*O) @ cols^T (G, m*O, Cg*K), already the (Cout, Cg, *K) layout, in wgrad_bounds' ranges
    (bits independent of the thread count); or None."""
    if not _ok(x, go):
        return None
    im, pack = _fn("im2col_batch", x.dtype, "pppll"), _fn("pack", x.dtype, "ppl" + "ll")
    if im is None or pack is None:
        return None
    n, c, out = x.shape[0], x.shape[1], tuple(go.shape[2:])
    cout, kern, isz = wshape[0], tuple(wshape[2:]), x.itemsize
    og, ck, o = cout // groups, math.prod(wshape[1:]), math.prod(out)
    x = np.ascontiguousarray(x)
    go = np.ascontiguousarray(go)
    geo = geometry(x.shape[2:], kern, out, st, pd, dl)
    xs = x.strides[0]
    bsz = chunk(n, o, groups * ck, isz)
    bounds = wgrad_bounds(n, bsz)
    parts = np.zeros((len(bounds) - 1, groups, og, ck), x.dtype)

    def run(lo, hi, j):
        buf = np.empty(groups * ck * min(bsz, hi - lo) * o, x.dtype)
        tmp = np.empty((groups, og, ck), x.dtype)
        for s in range(lo, hi, bsz):
            m = min(bsz, hi - s)
            cols = buf[:groups * ck * m * o].reshape(groups, ck, m * o)
            im(_addr(x) + s * xs, _addr(cols), _addr(geo), c, m)
            _mm(_packed(pack, go, s, m, groups, og, o), cols.transpose(0, 2, 1), out=tmp)
            parts[j] += tmp
    over_ranges(run, bounds, n * o * cout * ck)
    gw = parts[0] if len(parts) == 1 else parts.sum(0)
    return gw.reshape(wshape)


def backward(x, go, w, st, pd, dl, groups):
    """(grad_input, grad_weight) of a forward convolution in one pass over image chunks: each
    chunk's grad_output is regrouped into gemm columns once and used for both, with one thread
    pool dispatch; or None."""
    if not _ok(x, go, w):
        return None
    im, c2i = _fn("im2col_batch", x.dtype, "pppll"), _fn("col2im_batch", x.dtype, "pppll")
    pack = _fn("pack", x.dtype, "ppl" + "ll")
    if im is None or c2i is None or pack is None:
        return None
    n, c, out = x.shape[0], x.shape[1], tuple(go.shape[2:])
    cout, kern, isz = w.shape[0], tuple(w.shape[2:]), x.itemsize
    og, ck, o = cout // groups, w[0].size, math.prod(out)
    x, go = np.ascontiguousarray(x), np.ascontiguousarray(go)
    wt = np.ascontiguousarray(np.ascontiguousarray(w).reshape(groups, og, ck).transpose(0, 2, 1))
    gi = np.zeros(x.shape, x.dtype)
    geo = geometry(x.shape[2:], kern, out, st, pd, dl)
    xs = x.strides[0]
    bsz = chunk(n, o, groups * ck, isz)
    bounds = wgrad_bounds(n, bsz)
    parts = np.zeros((len(bounds) - 1, groups, og, ck), x.dtype)

    def run(lo, hi, j):
        buf = np.empty(groups * ck * min(bsz, hi - lo) * o, x.dtype)
        tmp = np.empty((groups, og, ck), x.dtype)
        for s in range(lo, hi, bsz):
            m = min(bsz, hi - s)
            cols = buf[:groups * ck * m * o].reshape(groups, ck, m * o)
            im(_addr(x) + s * xs, _addr(cols), _addr(geo), c, m)
            g = _packed(pack, go, s, m, groups, og, o)
            _mm(g, cols.transpose(0, 2, 1), out=tmp)
            parts[j] += tmp
            _mm(wt, g, out=cols)                                   # the columns' buffer is free again
            c2i(_addr(cols), _addr(gi) + s * xs, _addr(geo), c, m)
    over_ranges(run, bounds, 2 * n * o * cout * ck)
    gw = parts[0] if len(parts) == 1 else parts.sum(0)
    return gi, gw.reshape(w.shape)
