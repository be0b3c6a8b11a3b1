"""Direct convolution for stride 1 (csrc/dconv.c): small convolutions without im2col or BLAS.

A LeNet-sized convolution (a few channels, 5x5 kernels) makes a column matrix several times larger
than its input and a gemm with only 6 or 16 rows, which BLAS runs far below its peak. dconv.c reads
each kernel tap as a shifted run of a zero-padded copy of the image instead, with a register-blocked
loop, so the work stays in L1. `usable` decides when that beats im2col + BLAS: stride 1, and channel
counts small enough that BLAS's packing does not pay. Every function returns None when the C path
does not apply; the caller then takes conv_im2col's path.

Tuning: each image is copied into a zero-padded buffer; on that buffer every kernel tap is a contiguous
run at a constant offset, so the convolution is a register-blocked loop with no column matrix and no
BLAS. The input gradient is the same loop over the padded output gradient with the kernel flipped. The
limits below (rows x taps of the implicit gemm) were measured with `benchmarks/conv_direct.py`.

Two kernel forms, picked per call by how many multiply-adds each computes (both run at ~45 G/s float32 on
one core of the EPYC, so that count is their time): the grid kernels (positions as vector lanes, computing the
padded grid's Wp - OW thrown-away positions per row, or with short rows on a wide grid one block run from each
row's start) and the channel-vector kernels (output channels as lanes, real positions only; LeNet's 16-channel
second convolution: forward 450 -> 344 us, weight gradient 503 -> 358 us for a batch of 64). The forward and
input gradient have the same bits in either form. Weight gradients are summed per fixed chunk of images
(wgrad_grain) and the chunks in order, so their bits do not depend on the thread count.
"""
import math

import numpy as np

from .runtime.pool import run_parts
from .runtime import clib, cparts

_addr = clib.address          # a.ctypes.data without its ~1 us helper object
from .conv_im2col import geometry, workers

_SUFFIX = {np.dtype(np.float32): "f32", np.dtype(np.float64): "f64"}
_MIN_WORK = 1 << 16         # multiply-adds below which one thread does the whole batch
# Up to how many multiply-adds per output position (rows x taps of the implicit gemm) the direct
# loops beat im2col + OpenBLAS, measured on one core (benchmarks/conv_direct.py): forward, input and
# weight gradient win (or tie, for the input gradient of 16 x 32*5*5) at every case measured, up to
# 64 channels of 3x3 (36864); beyond that BLAS's packing should pay and nothing was measured.
FWD_LIMIT = 40000
GRAD_INPUT_LIMIT = 40000
GRAD_WEIGHT_LIMIT = 40000
MAX_WASTE = 1.6             # computed grid positions per real output position


def _fn(name, dtype, sig):
    sfx = _SUFFIX.get(np.dtype(dtype))
    return None if sfx is None else clib.kernel("dconv", f"{name}_{sfx}", sig, "i")


def _grid(padded, out):
    """(positions computed on the padded grid, real output positions) for the padded input and
    output sizes: the grid is as wide (and, in 3-d, as tall) as the padded input."""
    grid, stride = 0, 1
    for i in reversed(range(len(out))):
        grid += (out[i] - 1) * stride
        stride *= padded[i]
    return grid + 1, math.prod(out)


def usable(x, wshape, st, pd, dl, groups, out=None, limit=FWD_LIMIT):
    """Whether the direct path should run a convolution of x by a weight of wshape: C available,
    float32/float64, stride 1, the natural output size (or `out` equal to it), rows x taps within
    `limit`, and little grid waste. The input gradient asks with GRAD_INPUT_LIMIT and the weight
    of the convolution it runs (channel axes swapped); the weight gradient with GRAD_WEIGHT_LIMIT
    and the forward's."""
    d = len(wshape) - 2
    if x.dtype not in _SUFFIX or not 1 <= d <= 3 or any(s != 1 for s in st) or not clib.enabled():
        return False
    if 0 in x.shape or 0 in wshape or wshape[0] // groups * math.prod(wshape[1:]) > limit:
        return False
    padded = [x.shape[2 + i] + 2 * pd[i] for i in range(d)]
    nat = tuple(padded[i] - dl[i] * (wshape[2 + i] - 1) for i in range(d))
    if min(nat) < 1 or (out is not None and tuple(out) != nat):
        return False
    grid, real = _grid(padded, nat)
    return grid <= MAX_WASTE * real


def _split(fn, n, work):
    """fn(lo, hi, j) over chunks of n images, one chunk per pool worker when the work is big enough."""
    k = min(workers(), n) if work >= _MIN_WORK else 1
    if k <= 1:
        fn(0, n, 0)
        return 1
    bounds = [n * i // k for i in range(k + 1)]
    run_parts(lambda j: fn(bounds[j], bounds[j + 1], j), k)
    return k


def _check(rc):
    """rc of a dconv.c call: 0 done, 1 declined (non-finite input to the weight gradient)."""
    if rc < 0:
        raise MemoryError("ember: direct convolution could not allocate its scratch buffers")
    return rc


def _run_fwdc(x, wm, b, geo, c, groups, m, y):
    """y = the direct convolution of x (N, C, *S) by wm (G, M, K) with the channel-vector kernel, images in
    chunks over the C pool; None when the C pool is unavailable."""
    dt = x.dtype
    part = cparts.entry("dconv", f"dconv_fwdc_part_{_SUFFIX[dt]}")
    if not part:
        return None
    mpad = _cpad(m, dt)
    wt = _weights_t(wm, mpad)
    bias = None
    if b is not None:
        bias = np.zeros((groups, mpad), dt)
        bias[:, :m] = b.reshape(groups, m)
    n = x.shape[0]
    t = cparts.threads_for(n * y[0].size * wt.shape[1], _MIN_WORK)
    g = cparts.grain(n, t)
    status = np.zeros(-(-n // g) if n else 1, np.int64)
    d = np.array([_addr(x), _addr(y), _addr(wt), 0 if bias is None else _addr(bias),
                  _addr(geo), c, groups, m, mpad, x.strides[0] // x.itemsize, y.strides[0] // y.itemsize, g,
                  _addr(status)], np.int64)
    cparts.run(part, n, t, g, _addr(d))
    _check(int(status.min()) if n else 0)
    return y


def _run_fwd(x, wt, bias, geo, c, groups, m, mpad, mb, y):
    """y = the direct convolution of x (N, C, *S) by wt (G, K, mpad), over the thread pool."""
    f = _fn("dconv_fwd", x.dtype, "pppppllllll")
    if f is None:
        return None
    n = x.shape[0]
    bp = 0 if bias is None else _addr(bias)
    xs, ys = x.strides[0], y.strides[0]
    part = cparts.entry("dconv", f"dconv_fwd_part_{_SUFFIX[x.dtype]}")
    if part:                    # images in chunks over the C pool (runtime/cparts.py)
        t = cparts.threads_for(n * y[0].size * wt.shape[1], _MIN_WORK)
        g = cparts.grain(n, t)
        status = np.zeros(-(-n // g) if n else 1, np.int64)
        d = np.array([_addr(x), _addr(y), _addr(wt), bp, _addr(geo), c, groups, m, mpad, mb,
                      xs // x.itemsize, ys // y.itemsize, g, _addr(status)], np.int64)
        cparts.run(part, n, t, g, _addr(d))
        _check(int(status.min()) if n else 0)
        return y

    def run(lo, hi, _):
        if hi > lo:
            _check(f(_addr(x) + lo * xs, _addr(y) + lo * ys, _addr(wt), bp, _addr(geo),
                     c, groups, m, mpad, hi - lo, mb))
    _split(run, n, n * y[0].size * wt.shape[1])
    return y


def _block(m):
    """Rows per register block (4 or 6, whichever pads m less; 6 on a tie) and the padded m (dconv.c
    runs 4 rows x 3 vectors or 6 rows x 2 vectors of positions)."""
    p4, p6 = -(-m // 4) * 4, -(-m // 6) * 6
    return (6, p6) if p6 <= p4 else (4, p4)


_NP, _NT = 6, 6             # dconv.c's channel-vector blocks: positions (forward) and taps (weight gradient)
CHANNEL_VECTORS = None      # None: each call picks the kernel that multiplies less; True/False force (tests)


def _cpad(m, dtype):
    """Output channels rounded up to dconv.c's channel-vector block (two 32-byte vectors)."""
    v = 64 // np.dtype(dtype).itemsize
    return -(-m // v) * v


def _chan_wins(m, grid_rows, grid_len, o, dtype):
    """Whether the channel-vector kernel (dconvc, real positions only) multiplies less than the grid kernel:
    grid rows x grid length against channels rounded to two vectors x positions rounded to the block. It is
    the larger saving that decides: both kernels run at the same multiply-adds per second (one core of
    the EPYC, float32: ~45 G/s), so the ratio of the two products is the ratio of their times."""
    if CHANNEL_VECTORS is not None:
        return CHANNEL_VECTORS
    return _cpad(m, dtype) * (-(-o // _NP) * _NP) < grid_rows * grid_len


def _grid_len(padded, out, block_vectors, dtype):
    """How many grid positions dconv.c computes for padded input sizes and output sizes in blocks of
    `block_vectors` 32-byte vectors of positions (the forward's 3 or 2, the weight gradient's 1): the whole
    grid rounded up to blocks, or for the forward, blocks from each output row's start when that is fewer
    (dconv_fwd's row mode)."""
    grid, _ = _grid(padded, out)
    pb = block_vectors * (32 // np.dtype(dtype).itemsize)
    whole = -(-grid // pb) * pb
    if block_vectors == 1:
        return whole
    return min(whole, math.prod(out[:-1]) * -(-out[-1] // pb) * pb)


def _weights_t(wm, mpad):
    """(G, M, K) -> (G, K, mpad) contiguous with zero columns past M."""
    g, m, k = wm.shape
    wt = np.zeros((g, k, mpad), wm.dtype)
    wt[:, :, :m] = wm.transpose(0, 2, 1)
    return wt


def forward(x, w, b, pd, dl, groups):
    """(N, C, *S) conv (Cout, Cg, *K), stride 1 -> (N, Cout, *O) (+ bias), or None."""
    dt = x.dtype
    if w.dtype != dt or (b is not None and b.dtype != dt):
        return None
    n, c = x.shape[:2]
    cout, kern = w.shape[0], tuple(w.shape[2:])
    m = cout // groups
    mb, mpad = _block(m)
    wm = np.ascontiguousarray(w).reshape(groups, m, -1)
    padded = tuple(x.shape[2 + i] + 2 * pd[i] for i in range(len(kern)))
    out = tuple(padded[i] - dl[i] * (kern[i] - 1) for i in range(len(kern)))
    y = np.empty((n, cout) + out, dt)
    geo = geometry(x.shape[2:], kern, out, (1,) * len(kern), pd, dl)
    x = np.ascontiguousarray(x)
    if _chan_wins(m, mpad, _grid_len(padded, out, 2 if mb == 6 else 3, dt), math.prod(out), dt):
        r = _run_fwdc(x, wm, b, geo, c, groups, m, y)
        if r is not None:
            return r
    wt = _weights_t(wm, mpad)
    bias = None
    if b is not None:
        bias = np.zeros((groups, mpad), dt)
        bias[:, :m] = b.reshape(groups, m)
    return _run_fwd(x, wt, bias, geo, c, groups, m, mpad, mb, y)


def input_grad(go, w, in_spatial, pd, dl, groups):
    """Adjoint of forward in x: a forward convolution of go padded by dl*(K-1) - pd with the kernel
    flipped and its channel axes swapped; or None (also when pd > dl*(K-1))."""
    kern = tuple(w.shape[2:])
    d = len(kern)
    pd2 = tuple(dl[i] * (kern[i] - 1) - pd[i] for i in range(d))
    if min(pd2) < 0 or go.dtype != w.dtype:
        return None
    n, cout = go.shape[:2]
    og, cg = cout // groups, w.shape[1]
    flip = (slice(None),) * 3 + (slice(None, None, -1),) * d
    wf = np.ascontiguousarray(w).reshape((groups, og, cg) + kern).swapaxes(1, 2)[flip]   # G, Cg, Og, *K
    mb, mpad = _block(cg)
    wm = np.ascontiguousarray(wf).reshape(groups, cg, -1)
    gi = np.empty((n, groups * cg) + tuple(in_spatial), go.dtype)
    geo = geometry(go.shape[2:], kern, tuple(in_spatial), (1,) * d, pd2, dl)
    go = np.ascontiguousarray(go)
    padded = tuple(go.shape[2 + i] + 2 * pd2[i] for i in range(d))
    if _chan_wins(cg, mpad, _grid_len(padded, in_spatial, 2 if mb == 6 else 3, go.dtype), math.prod(in_spatial),
                  go.dtype):
        r = _run_fwdc(go, wm, None, geo, cout, groups, cg, gi)
        if r is not None:
            return r
    return _run_fwd(go, _weights_t(wm, mpad), None, geo, cout, groups, cg, mpad, mb, gi)


WGRAD_CHUNKS = 8            # partial sums of the weight gradient: fixed by the batch, never by the thread count


def wgrad_grain(n):
    """Images per partial sum of a weight gradient: the batch in WGRAD_CHUNKS chunks (fewer for small
    batches), whatever the thread count, so the bits of the sum (chunks added in order) do not depend on
    how many threads ran them; 8 chunks give the pool's threads about 4 each at 2 threads."""
    return max(1, -(-n // WGRAD_CHUNKS))


def wgrad_plan(m, k, padded, out, dtype):
    """(channel-vector kernel?, mpad, kpad) of a weight gradient with m output channels per group and k taps
    (input channels per group x kernel size), padded input sizes and output sizes: the kernel that multiplies
    less (grid rows x taps x grid length against channels x taps x output positions, each rounded to its
    kernel's blocks, as _chan_wins does for the forward) and its padded sizes (the grid kernel's multiples of
    dconv.c's WM, WK; the channel-vector kernel's two vectors of channels and NT taps). The compiled
    convolutions (_inductor/codegen/conv_calls.py) follow the same plan."""
    mpad, kpad = -(-m // 3) * 3, -(-k // 3) * 3
    cpad, ckpad = _cpad(m, dtype), -(-k // _NT) * _NT
    chan = cpad * ckpad * math.prod(out) < mpad * kpad * _grid_len(padded, out, 1, dtype) \
        if CHANNEL_VECTORS is None else CHANNEL_VECTORS
    return (True, cpad, ckpad) if chan else (False, mpad, kpad)


def weight_grad(x, go, wshape, pd, dl, groups):
    """dL/dW (Cout, Cg, *K) of a stride-1 convolution of x giving grad_output go; or None.

    The batch is cut into wgrad_grain(n) chunks, one partial sum each (any thread may run a chunk), added
    in chunk order: the result has the same bits at every thread count. wgrad_plan picks the kernel."""
    dt = x.dtype
    if dt not in _SUFFIX or go.dtype != dt:
        return None
    n, c = x.shape[:2]
    kern, out = tuple(wshape[2:]), tuple(go.shape[2:])
    m, k = wshape[0] // groups, math.prod(wshape[1:])
    x, go = np.ascontiguousarray(x), np.ascontiguousarray(go)
    geo = geometry(x.shape[2:], kern, out, (1,) * len(kern), pd, dl)
    padded = tuple(x.shape[2 + i] + 2 * pd[i] for i in range(len(kern)))
    o = math.prod(out)
    chan, mpad, kpad = wgrad_plan(m, k, padded, out, dt)
    name, shape = ("dconv_wgradc", (groups, kpad, mpad)) if chan else ("dconv_wgrad", (groups, mpad, kpad))
    g = wgrad_grain(n)
    chunks = -(-n // g) if n else 1
    parts = np.zeros((chunks,) + shape, dt)
    status = np.zeros(chunks, np.int64)
    xs, gs = x.strides[0] // x.itemsize, go.strides[0] // go.itemsize
    part = cparts.entry("dconv", f"{name}_part_{_SUFFIX[dt]}")
    if part:                    # chunks over the C pool
        t = cparts.threads_for(n * o * m * groups * k, _MIN_WORK)
        d = np.array([_addr(x), _addr(go), _addr(parts), _addr(geo), c, groups, m, mpad, kpad,
                      xs, gs, parts[0].size, g, _addr(status)], np.int64)
        cparts.run(part, n, t, g, _addr(d))
    else:                       # no C pool: the same chunks in order on this thread
        f = _fn(name, dt, "ppppllllll")
        if f is None:
            return None
        for j in range(chunks):
            lo, hi = j * g, min(n, (j + 1) * g)
            if hi > lo:
                status[j] = f(_addr(x) + lo * x.strides[0], _addr(go) + lo * go.strides[0],
                              _addr(parts[j]), _addr(geo), c, groups, m, mpad, kpad, hi - lo)
    if (status != 0).any():
        if (status < 0).any():
            _check(-1)
        return None             # the grid kernel declined (non-finite input): the im2col path takes it
    gw = parts[0] if chunks == 1 else parts.sum(0)
    gw = gw[:, :k, :m].transpose(0, 2, 1) if chan else gw[:, :m, :k]
    return np.ascontiguousarray(gw).reshape(wshape)
