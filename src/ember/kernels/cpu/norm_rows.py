"""The C paths of the cpu norm kernels (csrc/norm.c): layer_norm, group_norm and batch_norm forward and
backward. Each `c_*` function returns numpy results, or None when C cannot take the arrays (no
compiler, C switched off, a dtype other than float32/float64, empty or unsuitable shapes), so the
caller in norm.py falls back to its numpy path. Rows (or channels) are split over the thread
pool, one foreign call per chunk; weight/bias gradients come back as per-chunk double partial sums
added in row order, so results do not depend on thread timing."""
import numpy as np

from ..._core.tensor_impl import TensorImpl
from .runtime.arrays import acc
from .runtime.pool import get_num_threads, split_run
from .runtime import clib, cparts
from .runtime.clib import address, c_rows, c_suffix


# elements: below this the layer_norm kernels run on the calling thread. A (1024, 128) layer_norm is ~0.1 ms
# of C; handing half of it to the pool costs about as much as it saves on an idle machine, and in a train
# step the other core is usually busy (BLAS threads spinning after a gemm, other processes), where a split
# call waits for it (as measured for GELU, activations._C_MIN_SPLIT).
_LN_MIN_SPLIT = 1 << 21
# elements: from here, with more than one thread, the last-dim layer_norm forward below _LN_MIN_SPLIT runs as
# csrc/norm.c's part on ember's C pool instead (_ln_pool: workers that need no GIL and spin between jobs, where
# the Python pool's hand-off cost what it saved), with one call's bits. A GPT's (16, 64, 128) float32 layer norm,
# 2 threads, min / median us of 400 calls, load ~11: 67.5 / 68.3 on one thread -> 41 / 69 (torch 39 min).
# The float32 backward runs there too, as blocks of 16 rows whose dw/db float sums are added in block order
# (csrc/norm.c's layer_norm_bwd_f32: one order for any split; it sums in float lanes as torch does). The same
# (16, 64, 128) backward, min us, load ~11: 86 -> 51 on one thread (torch 55-59), 85 -> 41 on two (torch 31-40).
# (Session 14 split the double-sum backward as dx by rows and dw/db by columns: reading g and x twice made it
# slower, 129 us against 98.5.)
_LN_POOL_MIN = 1 << 15
_wrap_fresh = TensorImpl._wrap_fresh


def _ptr(a):
    return None if a is None else a.ctypes.data


def c_layer_norm(x2, y2, mean, rstd, w, b, eps):
    """The C forward over the (rows, k) matrix; False when C cannot take it."""
    w = None if w is None else np.ascontiguousarray(w)
    b = None if b is None else np.ascontiguousarray(b)
    suf = c_suffix(x2, y2, mean, rstd, *(a for a in (w, b) if a is not None))
    fn = clib.kernel("norm", f"layer_norm_fwd_{suf}", "ppppllppd") if suf else None
    if fn is None:
        return False
    c_rows(fn, [x2, y2, mean, rstd], x2.shape[1], _ptr(w), _ptr(b), float(eps), min_elems=_LN_MIN_SPLIT)
    return True


_LN_FWD_SUFFIX = {np.dtype(np.float32): "f32", np.dtype(np.float64): "f64"}


def c_layer_norm_last_dim(input, normalized_shape, weight, bias, eps):
    """native_layer_norm's (out, mean, rstd) tensors for the common small case, with no shape checks or
    conversions beyond the few it needs: a non-empty C-contiguous float32/float64 input normalised over
    its last dim, weight and bias None or contiguous vectors of its dtype, fewer elements than a
    pool split. None for every other case (the general path checks and runs it). A (T, 128) layer
    norm of a model's forward at batch 1 costs mostly this call's Python: one kernel lookup, one
    allocation for mean and rstd, no closures."""
    r = _ln_last_dim(input, normalized_shape, weight, bias, eps)
    if r is None:
        return None
    y, stats, rows = r
    x = input._np
    stat = x.shape[:-1] + (1,)
    dt = input.dtype
    return (_wrap_fresh(y, dt), _wrap_fresh(stats[:rows].reshape(stat), dt),
            _wrap_fresh(stats[rows:].reshape(stat), dt))


def c_layer_norm_out(input, normalized_shape, weight, bias, eps):
    """Only the normalised output array of `c_layer_norm_last_dim` (same kernel, same bits), for
    F.layer_norm's direct path, which drops mean and rstd; None for the cases that function declines."""
    r = _ln_last_dim(input, normalized_shape, weight, bias, eps)
    return None if r is None else r[0]


def _ln_last_dim(input, normalized_shape, weight, bias, eps):
    """(y, stats, rows) of the C forward for the cases `c_layer_norm_last_dim` takes, else None."""
    x = input._np
    if x is None or len(normalized_shape) != 1 or not x.ndim or not x.flags.c_contiguous:
        return None
    suf = _LN_FWD_SUFFIX.get(x.dtype)
    k = x.shape[-1]
    if suf is None or normalized_shape[0] != k or not k or not x.size or x.size >= _LN_MIN_SPLIT:
        return None
    w = b = None
    if weight is not None:
        w = weight._np
        if w is None or w.shape != (k,) or w.dtype != x.dtype or not w.flags.c_contiguous:
            return None
        w = address(w)
    if bias is not None:
        b = bias._np
        if b is None or b.shape != (k,) or b.dtype != x.dtype or not b.flags.c_contiguous:
            return None
        b = address(b)
    fn = clib.kernel("norm", f"layer_norm_fwd_{suf}", "ppppllppd")
    if fn is None:
        return None
    rows = x.size // k
    y = np.empty(x.shape, x.dtype)
    stats = np.empty(2 * rows, x.dtype)            # mean, then rstd: one allocation
    p = address(stats)
    if x.size < _LN_POOL_MIN or get_num_threads() < 2 or not _ln_pool(
            "fwd", suf, (address(x), address(y), p, p + rows * x.itemsize, w or 0, b or 0, k), rows, 0, float(eps)):
        fn(address(x), address(y), p, p + rows * x.itemsize, rows, k, w, b, float(eps))
    return y, stats, rows


def _ln_pool(name, suf, desc, items, grain, eps=0.0):
    """csrc/norm.c's `layer_norm_<name>_part_<suf>` over `items` on ember's C pool, its descriptor `desc` (the
    part's int64 fields), `grain` items a chunk (0: about 8 chunks a thread); False (nothing done) on one
    thread or without C."""
    t = get_num_threads()
    fn = cparts.entry("norm", f"layer_norm_{name}_part_{suf}") if t > 1 else 0
    if not fn:
        return False
    d = np.array(desc, np.int64)
    cparts.run(fn, items, t, grain or max(1, items // (8 * t)), address(d), s0=eps)
    return True


def c_layer_norm_backward_last_dim(grad_out, input, normalized_shape, mean, rstd, weight, bias, output_mask):
    """native_layer_norm_backward's (dx, dw, db) for the case `c_layer_norm_last_dim` takes forward, in one C call
    on the calling thread: the same kernel and the same double partial sums as the general path's single
    chunk (bit for bit), without its reshapes, casts, closures and chunk list. grad_out, mean and rstd must be
    contiguous of the input's dtype (a broadcast grad, as from `sum()`, takes the general path). None for every
    other case. A transformer block's (256, 64) layer norm backward: ~35 us of Python before (np.prod through
    numpy's dispatcher, five casts and reshapes, a closure per call), about the kernel's own time."""
    x, go = input._np, grad_out._np
    if x is None or go is None or len(normalized_shape) != 1 or not x.ndim or not x.flags.c_contiguous:
        return None
    suf = _LN_FWD_SUFFIX.get(x.dtype)
    k = x.shape[-1]
    if (suf is None or normalized_shape[0] != k or not k or not x.size or x.size >= _LN_MIN_SPLIT
            or go.dtype != x.dtype or go.shape != x.shape or not go.flags.c_contiguous):
        return None
    mu, rs = mean._np, rstd._np
    rows = x.size // k
    if (mu is None or rs is None or mu.dtype != x.dtype or rs.dtype != x.dtype or mu.size != rows
            or rs.size != rows or not mu.flags.c_contiguous or not rs.flags.c_contiguous):
        return None
    w = None
    if weight is not None:
        w = weight._np
        if w is None or w.shape != (k,) or w.dtype != x.dtype or not w.flags.c_contiguous:
            return None
    want_dx, want_dw = output_mask[0], output_mask[1] and weight is not None
    want_db = output_mask[2] and bias is not None
    if want_db and (bias._np is None or bias._np.shape != (k,) or bias._np.dtype != x.dtype):
        return None
    fn = clib.kernel("norm", f"layer_norm_bwd_{suf}", "ppppllpppp")
    if fn is None:
        return None
    dx = np.empty(x.shape, x.dtype) if want_dx else None
    dw = np.zeros(k) if want_dw else None
    db = np.zeros(k) if want_db else None
    _ln_bwd(fn, suf, go, x, mu, rs, w, dx, dw, db, rows, k)
    dt = input.dtype
    return (None if dx is None else _wrap_fresh(dx, dt), None if dw is None else _wrap_fresh(dw.astype(x.dtype), dt),
            None if db is None else _wrap_fresh(db.astype(x.dtype), dt))


_LN_RB = 16          # csrc/norm.c's LN_RB: rows per block of the float32 backward's dw/db sums


def _ln_bwd(fn, suf, go, x, mu, rs, w, dx, dw, db, rows, k):
    """The C backward `fn` (layer_norm_bwd_<suf>) over contiguous arrays: dx filled, dw/db (float64 or None)
    added to. A float32 one from _LN_POOL_MIN elements with 2+ threads runs as csrc/norm.c's block parts on
    ember's C pool, each block's dw/db sums into a buffer then added in block order: one call's bits (the
    kernel's order is fixed by blocks of _LN_RB rows, not by the split)."""
    a = address
    if suf == "f32" and x.size >= _LN_POOL_MIN and get_num_threads() > 1:
        fold = clib.kernel("norm", "layer_norm_bwd_fold_f32", "pllpp")
        nb = -(-rows // _LN_RB)
        buf = np.empty(nb * 2 * k, np.float32) if dw is not None or db is not None else None
        desc = (a(go), a(x), a(mu), a(rs), 0 if w is None else a(w), 0 if dx is None else a(dx),
                0 if buf is None else a(buf), k, rows, int(dw is not None), int(db is not None))
        if fold is not None and _ln_pool("bwd", suf, desc, nb, 0):
            if buf is not None:
                fold(a(buf), nb, k, None if dw is None else a(dw), None if db is None else a(db))
            return
    fn(a(go), a(x), a(mu), a(rs), rows, k, None if w is None else a(w), None if dx is None else a(dx),
       None if dw is None else a(dw), None if db is None else a(db))


def c_layer_norm_backward(x2, go2, mu2, rs2, w, dx2, want_dw, want_db):
    """The C backward: fills dx2 (when not None) and returns the per-chunk (first row, dw, db)
    double partial sums, or None when C cannot take these arrays."""
    w = None if w is None else np.ascontiguousarray(w)
    x2, go2, mu2, rs2 = (np.ascontiguousarray(a) for a in (x2, go2, mu2, rs2))   # e.g. a broadcast grad
    suf = c_suffix(x2, go2, mu2, rs2, *(a for a in (w, dx2) if a is not None))
    fn = clib.kernel("norm", f"layer_norm_bwd_{suf}", "ppppllpppp") if suf else None
    if fn is None:
        return None
    k, parts = x2.shape[1], []
    if suf == "f32":                 # one order of sums whatever the thread count (see _ln_bwd)
        dw = np.zeros(k) if want_dw else None
        db = np.zeros(k) if want_db else None
        _ln_bwd(fn, suf, go2, x2, mu2, rs2, w, dx2, dw, db, x2.shape[0], k)
        return [(0, dw, db)]

    def chunk(gc, xc, mc, rc, idx, *dxc):
        dwp = np.zeros(k) if want_dw else None
        dbp = np.zeros(k) if want_db else None
        fn(gc.ctypes.data, xc.ctypes.data, mc.ctypes.data, rc.ctypes.data, gc.shape[0], k, _ptr(w),
           _ptr(dxc[0]) if dxc else None, _ptr(dwp), _ptr(dbp))
        parts.append((int(idx[0]), dwp, dbp))
    split_run(chunk, [go2, x2, mu2, rs2, np.arange(x2.shape[0])] + ([dx2] if dx2 is not None else []), 0,
              _LN_MIN_SPLIT)
    return parts


def _bn_view(x):
    """x as the contiguous float32/float64 (N, C, HW) array the C batch_norm kernels take, or None
    (numpy path; also for HW < 16, e.g. (N, C) input, where per-row calls would not pay)."""
    if x.ndim < 2 or x.size == 0 or not x.flags.c_contiguous or c_suffix(x) is None:
        return None
    hw = x.size // (x.shape[0] * x.shape[1])
    return x.reshape(x.shape[0], x.shape[1], hw) if hw >= 16 else None


def _channels(fn, c, big):
    """fn(c0, c1) over ranges of the c channels shared out over the thread pool when `big`."""
    split_run(lambda idx: fn(int(idx[0]), int(idx[-1]) + 1), [np.arange(c)], 0, 0 if big else 1 << 62)


def _vec(t, x, default):
    """A per-channel tensor (or `default` when None) as a contiguous array of x's dtype."""
    return np.ascontiguousarray(default if t is None else acc(t).reshape(-1), x.dtype)


def c_batch_norm(x, weight, bias, running_mean, running_var, training, eps):
    """(y, save_mean, save_invstd, batch var) from the C kernels (var None in eval), or None to use
    numpy."""
    x3 = _bn_view(x)
    suf = None if x3 is None else c_suffix(x3)
    aff = clib.kernel("norm", f"channel_affine_{suf}", "ppllllppp") if suf else None
    stats = clib.kernel("norm", f"batch_norm_stats_{suf}", "plllllpp") if aff else None
    if aff is None or stats is None:
        return None
    n, c, hw = x3.shape
    if training:
        mean64, var64 = np.empty(c), np.empty(c)
        _channels(lambda c0, c1: stats(x3.ctypes.data, n, c, hw, c0, c1, mean64.ctypes.data, var64.ctypes.data),
                  c, x.size >= 1 << 16)
        mean, var = mean64.astype(x.dtype), var64.astype(x.dtype)
        m = mean
        q = save_invstd = 1.0 / np.sqrt(var + eps)
        save_mean = mean
    else:
        m = _vec(running_mean, x, None)
        q = 1.0 / np.sqrt(_vec(running_var, x, None) + eps)
        save_mean = save_invstd = np.empty((0,), x.dtype)
        var = None
    scale = np.ascontiguousarray(q * _vec(weight, x, 1.0) if weight is not None else q, x.dtype)
    shift = _vec(bias, x, np.zeros(c))
    m = np.ascontiguousarray(m, x.dtype)
    x2 = x3.reshape(n * c, hw)
    y2 = np.empty_like(x2)
    _row_chunks(lambda r0, xc, yc: aff(xc.ctypes.data, yc.ctypes.data, xc.shape[0], r0, c, hw, m.ctypes.data,
                                       scale.ctypes.data, shift.ctypes.data), [x2, y2], n * c)
    return y2.reshape(x.shape), save_mean, save_invstd, var


def _row_chunks(fn, arrays, rows):
    """fn(first_row, *chunks) over row chunks of `arrays` shared out over the thread pool (kernels
    whose rows map to channels need the chunk's global first row)."""
    split_run(lambda idx, *arrs: fn(int(idx[0]), *arrs), [np.arange(rows)] + arrays, 0,
              0 if arrays[0].size >= 1 << 16 else 1 << 62)


def c_group_norm(x, weight, bias, N, C, HxW, group, eps):
    """(y, mean, rstd) from the C kernel, or None when C cannot take x."""
    if x.size == 0 or not x.flags.c_contiguous:
        return None
    w = None if weight is None else np.ascontiguousarray(acc(weight).reshape(-1), x.dtype)
    b = None if bias is None else np.ascontiguousarray(acc(bias).reshape(-1), x.dtype)
    suf = c_suffix(x, *(a for a in (w, b) if a is not None))
    fn = clib.kernel("norm", f"group_norm_fwd_{suf}", "pppplllllppd") if suf else None
    if fn is None:
        return None
    rows, cg = N * group, C // group
    x2 = x.reshape(rows, cg * HxW)
    y2, mean, rstd = np.empty_like(x2), np.empty(rows, x.dtype), np.empty(rows, x.dtype)
    _row_chunks(lambda r0, xc, yc, mc, rc: fn(xc.ctypes.data, yc.ctypes.data, mc.ctypes.data, rc.ctypes.data,
                                              xc.shape[0], r0, group, cg, HxW, _ptr(w), _ptr(b), float(eps)),
                [x2, y2, mean, rstd], rows)
    return y2.reshape(x.shape), mean.reshape(N, group), rstd.reshape(N, group)


def c_batch_norm_backward(go, x, weight, running_mean, running_var, save_mean, save_invstd, train, eps, mask):
    """(dx, dw, db) numpy arrays (None where not wanted) from the C kernels, or None to use numpy."""
    x3 = _bn_view(x)
    suf = None if x3 is None else c_suffix(x3)
    sums = clib.kernel("norm", f"batch_norm_bwd_stats_{suf}", "pplllllpppp") if suf else None
    dxk = clib.kernel("norm", f"channel_bwd_{suf}", "pppllllpppp") if sums else None
    if dxk is None:
        return None
    n, c, hw = x3.shape
    g3 = np.ascontiguousarray(go, x.dtype).reshape(x3.shape)
    if train:
        m, q = _vec(save_mean, x, None), _vec(save_invstd, x, None)
    else:
        m = _vec(running_mean, x, None)
        q = np.ascontiguousarray(1.0 / np.sqrt(_vec(running_var, x, None) + eps), x.dtype)
    sg, sgx = np.zeros(c), np.zeros(c)
    if mask[1] or mask[2] or (mask[0] and train):
        _channels(lambda c0, c1: sums(g3.ctypes.data, x3.ctypes.data, n, c, hw, c0, c1, m.ctypes.data, q.ctypes.data,
                                      sg.ctypes.data, sgx.ctypes.data), c, x.size >= 1 << 16)
    dx = None
    if mask[0]:
        cnt = n * hw
        a = np.ascontiguousarray(q * _vec(weight, x, 1.0) if weight is not None else q, x.dtype)
        d = np.ascontiguousarray(sg / cnt if train else np.zeros(c), x.dtype)
        e = np.ascontiguousarray(q * (sgx / cnt).astype(x.dtype) if train else np.zeros(c), x.dtype)
        g2, x2 = g3.reshape(n * c, hw), x3.reshape(n * c, hw)
        dx2 = np.empty_like(x2)
        _row_chunks(lambda r0, gc, xc, oc: dxk(gc.ctypes.data, xc.ctypes.data, oc.ctypes.data, gc.shape[0], r0, c,
                                               hw, m.ctypes.data, a.ctypes.data, d.ctypes.data, e.ctypes.data),
                    [g2, x2, dx2], n * c)
        dx = dx2.reshape(x.shape)
    return dx, (sgx if mask[1] else None), (sg if mask[2] else None)


def c_group_norm_backward(go, x, mean, rstd, weight, N, C, HxW, group, output_mask):
    """(dx, dw, db) numpy arrays (None where not wanted) from the C kernel, or None to use numpy."""
    if x.size == 0:
        return None
    x, go = np.ascontiguousarray(x), np.ascontiguousarray(go, x.dtype)
    mean, rstd = (np.ascontiguousarray(acc(t).reshape(-1), x.dtype) for t in (mean, rstd))
    w = None if weight is None else np.ascontiguousarray(acc(weight).reshape(-1), x.dtype)
    suf = c_suffix(x, go, mean, rstd, *([] if w is None else [w]))
    fn = clib.kernel("norm", f"group_norm_bwd_{suf}", "pppplllllpppp") if suf else None
    if fn is None:
        return None
    want_dx, want_dw, want_db = output_mask[0], output_mask[1], output_mask[2]
    rows, cg = N * group, C // group
    x2, g2 = x.reshape(rows, cg * HxW), go.reshape(rows, cg * HxW)
    dx2 = np.empty_like(x2) if want_dx else None
    parts = []

    def chunk(r0, gc, xc, mc, rc, *dxc):
        dwp = np.zeros(C) if want_dw else None
        dbp = np.zeros(C) if want_db else None
        fn(gc.ctypes.data, xc.ctypes.data, mc.ctypes.data, rc.ctypes.data, gc.shape[0], r0, group, cg, HxW,
           _ptr(w), _ptr(dxc[0]) if dxc else None, _ptr(dwp), _ptr(dbp))
        parts.append((r0, dwp, dbp))
    _row_chunks(chunk, [g2, x2, mean, rstd] + ([dx2] if want_dx else []), rows)
    parts.sort(key=lambda p: p[0])          # partial sums added in row order: deterministic
    dw = sum(p[1] for p in parts) if want_dw else None
    db = sum(p[2] for p in parts) if want_db else None
    return (None if dx2 is None else dx2.reshape(x.shape)), dw, db
