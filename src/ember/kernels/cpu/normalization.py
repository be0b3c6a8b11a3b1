"""cpu native_layer_norm / native_batch_norm / native_group_norm: vectorised mean/var over the
normalised axes; batch_norm updates running stats in place (unbiased variance) when training.
layer_norm (forward and backward) on float32/float64 runs the C row kernels of csrc/norm.c when C
is available (rows split over threads), else numpy over cache-sized row blocks."""
import numpy as np

from ..._core import dtype as D

from ..meta import normalization as M
from ..meta.nn_common import _tn, acc, np_or_none, split_run, wrap
from . import clib
from .rowblocks import c_rows, c_suffix, row_dot, row_sum, run_rows


def _affine(y, weight, bias, shape):
    if weight is not None:
        y = y * acc(weight).reshape(shape)
    if bias is not None:
        y = y + acc(bias).reshape(shape)
    return y


def _affine_(y, weight, bias, shape):
    if weight is not None:
        y *= acc(weight).reshape(shape)
    if bias is not None:
        y += acc(bias).reshape(shape)
    return y


def native_layer_norm(input, normalized_shape, weight, bias, eps):
    """Per cache-sized block of rows: mean (row sums as BLAS dots), centre in the output buffer,
    variance as the row-wise dot product of the centred rows, scale by rstd, then the affine weight
    and bias in place."""
    shape, stat, axis = M.layer_norm_spec(input, normalized_shape, weight, bias)
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f"\"LayerNormKernelImpl\" not implemented for '{_tn(input.dtype)}'")
    x = acc(input)
    k = int(np.prod(x.shape[axis:]))
    m_rows = int(np.prod(x.shape[:axis]))
    x2 = x.reshape(m_rows, k)
    y2, mean, rstd = np.empty_like(x2), np.empty((m_rows, 1), x.dtype), np.empty((m_rows, 1), x.dtype)
    w = None if weight is None else acc(weight).reshape(k).astype(x.dtype, copy=False)
    b = None if bias is None else acc(bias).reshape(k).astype(x.dtype, copy=False)
    if x2.size == 0:
        mean[...], rstd[...] = 0, np.nan
    elif _c_layer_norm(x2, y2, mean, rstd, w, b, eps):
        pass
    else:
        def block(xc, yc, mc, rc):
            np.divide(row_sum(xc), k, out=mc)
            np.subtract(xc, mc, out=yc)                       # centred, then normalised in place
            np.divide(row_dot(yc, yc), k, out=rc)
            rc += eps
            np.sqrt(rc, out=rc)
            np.reciprocal(rc, out=rc)
            yc *= rc
            if w is not None:
                yc *= w
            if b is not None:
                yc += b
        run_rows(block, [x2, y2, mean, rstd])
    dt = input.dtype
    return wrap(y2.reshape(x.shape), dt, fresh=True), wrap(mean.reshape(stat), dt, fresh=True), \
        wrap(rstd.reshape(stat), dt, fresh=True)


def _ptr(a):
    return None if a is None else a.ctypes.data


def _c_layer_norm(x2, y2, mean, rstd, w, b, eps):
    """The C forward over the (rows, k) matrix; False when C cannot take it."""
    w = None if w is None else np.ascontiguousarray(w)
    b = None if b is None else np.ascontiguousarray(b)
    suf = c_suffix(x2, y2, mean, rstd, *(a for a in (w, b) if a is not None))
    fn = clib.kernel("norm", f"layer_norm_fwd_{suf}", "ppppllppd") if suf else None
    if fn is None:
        return False
    c_rows(fn, [x2, y2, mean, rstd], x2.shape[1], _ptr(w), _ptr(b), float(eps))
    return True


def _c_layer_norm_backward(x2, go2, mu2, rs2, w, dx2, want_dw, want_db):
    """The C backward: fills dx2 (when not None) and returns the per-chunk (first row, dw, db)
    double partial sums, or None when C cannot take these arrays."""
    w = None if w is None else np.ascontiguousarray(w)
    x2, go2, mu2, rs2 = (np.ascontiguousarray(a) for a in (x2, go2, mu2, rs2))   # e.g. a broadcast grad
    suf = c_suffix(x2, go2, mu2, rs2, *(a for a in (w, dx2) if a is not None))
    fn = clib.kernel("norm", f"layer_norm_bwd_{suf}", "ppppllpppp") if suf else None
    if fn is None:
        return None
    k, parts = x2.shape[1], []

    def chunk(gc, xc, mc, rc, idx, *dxc):
        dwp = np.zeros(k) if want_dw else None
        dbp = np.zeros(k) if want_db else None
        fn(gc.ctypes.data, xc.ctypes.data, mc.ctypes.data, rc.ctypes.data, gc.shape[0], k, _ptr(w),
           _ptr(dxc[0]) if dxc else None, _ptr(dwp), _ptr(dbp))
        parts.append((int(idx[0]), dwp, dbp))
    split_run(chunk, [go2, x2, mu2, rs2, np.arange(x2.shape[0])] + ([dx2] if dx2 is not None else []), 0,
              1 << 16)
    return parts


def _update_running(running_mean, running_var, mean, var, n, momentum):
    if running_mean is not None:
        rm = running_mean._np
        rm[...] = (1 - momentum) * rm + momentum * mean
    if running_var is not None:
        rv = running_var._np
        rv[...] = (1 - momentum) * rv + momentum * var * (n / max(n - 1, 1))


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


def _c_batch_norm(x, weight, bias, running_mean, running_var, training, momentum, eps):
    """(y, save_mean, save_invstd) from the C kernels (running stats updated), or None to use numpy."""
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
        _update_running(running_mean, running_var, mean, var, n * hw, momentum)
        m = mean
        q = save_invstd = 1.0 / np.sqrt(var + eps)
        save_mean = mean
    else:
        m = _vec(running_mean, x, None)
        q = 1.0 / np.sqrt(_vec(running_var, x, None) + eps)
        save_mean = save_invstd = np.empty((0,), x.dtype)
    scale = np.ascontiguousarray(q * _vec(weight, x, 1.0) if weight is not None else q, x.dtype)
    shift = _vec(bias, x, np.zeros(c))
    m = np.ascontiguousarray(m, x.dtype)
    x2 = x3.reshape(n * c, hw)
    y2 = np.empty_like(x2)
    _row_chunks(lambda r0, xc, yc: aff(xc.ctypes.data, yc.ctypes.data, xc.shape[0], r0, c, hw, m.ctypes.data,
                                       scale.ctypes.data, shift.ctypes.data), [x2, y2], n * c)
    return y2.reshape(x.shape), save_mean, save_invstd


def native_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps):
    """Training: per-channel mean and biased variance (running stats updated with the unbiased one);
    eval: the running stats. float32/float64 inputs with HW >= 16 run the C kernels of csrc/norm.c
    (stats split over channels, the affine over rows)."""
    shape, stat = M.batch_norm_spec(input, weight, bias, running_mean, running_var, training)
    x = acc(input)
    st = D.float32 if input.dtype in (D.float16, D.bfloat16) else input.dtype
    r = _c_batch_norm(x, weight, bias, running_mean, running_var, training, momentum, eps)
    if r is not None:
        return wrap(r[0], input.dtype, fresh=True), wrap(r[1], st), wrap(r[2], st)
    c = x.shape[1]
    axes = (0,) + tuple(range(2, x.ndim))
    bshape = (1, c) + (1,) * (x.ndim - 2)
    if training:
        mean = x.mean(axis=axes)
        var = x.var(axis=axes)
        _update_running(running_mean, running_var, mean, var, x.size // c, momentum)
        invstd = 1.0 / np.sqrt(var + eps)
        y = (x - mean.reshape(bshape)) * invstd.reshape(bshape)
        save_mean, save_invstd = mean, invstd
    else:
        rm, rv = acc(running_mean), acc(running_var)
        y = (x - rm.reshape(bshape)) / np.sqrt(rv.reshape(bshape) + eps)
        save_mean = save_invstd = np.empty((0,), x.dtype)
    y = _affine(y, weight, bias, bshape)
    return wrap(y, input.dtype), wrap(save_mean, st), wrap(save_invstd, st)


def _row_chunks(fn, arrays, rows):
    """fn(first_row, *chunks) over row chunks of `arrays` shared out over the thread pool (kernels
    whose rows map to channels need the chunk's global first row)."""
    split_run(lambda idx, *arrs: fn(int(idx[0]), *arrs), [np.arange(rows)] + arrays, 0,
              0 if arrays[0].size >= 1 << 16 else 1 << 62)


def _c_group_norm(x, weight, bias, N, C, HxW, group, eps):
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


def native_group_norm(input, weight, bias, N, C, HxW, group, eps):
    M.group_norm_spec(input, weight, bias, N, C, HxW, group)
    x = acc(input)
    r = _c_group_norm(x, weight, bias, N, C, HxW, group, eps)
    if r is not None:
        dt = input.dtype
        return tuple(wrap(a, dt, fresh=True) for a in r)
    g = x.reshape(N, group, (C // group) * HxW)
    mean = g.mean(axis=2) if g.size else np.zeros((N, group), x.dtype)
    var = g.var(axis=2) if g.size else np.zeros((N, group), x.dtype)
    rstd = 1.0 / np.sqrt(var + eps)
    y = ((g - mean[..., None]) * rstd[..., None]).reshape(x.shape)
    y = _affine(y, weight, bias, (1, C) + (1,) * (x.ndim - 2))
    dt = input.dtype
    return wrap(y, dt), wrap(mean, dt), wrap(rstd, dt)


def native_layer_norm_backward(grad_out, input, normalized_shape, mean, rstd, weight, bias, output_mask):
    """dx = rstd * (g - mean(g) - xhat * mean(g * xhat)) over the normalised dims, g = dy * w;
    dw = sum(dy * xhat), db = sum(dy) over the rows. One pass per cache-sized block of rows, with
    block-sized scratch buffers; the per-block dw/db partial sums are added at the end."""
    x = acc(input)
    nk = len(normalized_shape)
    k = int(np.prod(x.shape[x.ndim - nk:]))
    m_rows = int(np.prod(x.shape[:x.ndim - nk]))
    x2 = x.reshape(m_rows, k)
    go2 = acc(grad_out).astype(x.dtype, copy=False).reshape(m_rows, k)
    mu2 = acc(mean).astype(x.dtype, copy=False).reshape(m_rows, 1)
    rs2 = acc(rstd).astype(x.dtype, copy=False).reshape(m_rows, 1)
    w = None if weight is None else acc(weight).reshape(k).astype(x.dtype, copy=False)
    want_dx, want_dw, want_db = output_mask[0], output_mask[1] and weight is not None, output_mask[2] and bias is not None
    dx2 = np.empty_like(x2) if want_dx else None
    parts, cparts = [], None

    def block(xc, gc, mc, rc, *rest):                 # rest: (dx block,) + (row indices,)
        xhat = np.subtract(xc, mc)
        xhat *= rc
        tmp = np.empty_like(xhat)
        dwp = dbp = None
        if want_dw:
            np.multiply(gc, xhat, out=tmp)
            dwp = np.add.reduce(tmp, axis=0)
        if want_db:
            dbp = np.add.reduce(gc, axis=0)
        parts.append((int(rest[-1][0]), dwp, dbp))
        if want_dx:
            g = gc if w is None else np.multiply(gc, w, out=tmp)
            a = row_sum(g)
            a /= k
            c = row_dot(g, xhat)
            c /= k
            out = rest[0]
            np.subtract(g, a, out=out)
            xhat *= c
            out -= xhat
            out *= rc

    if x2.size:
        cparts = _c_layer_norm_backward(x2, go2, mu2, rs2, w, dx2, want_dw, want_db)
        if cparts is not None:
            parts = cparts
    if x2.size and cparts is None:
        run_rows(block, [x2, go2, mu2, rs2] + ([dx2] if want_dx else []) + [np.arange(m_rows)])
    parts.sort(key=lambda p: p[0])          # add the partial sums in row order: deterministic results
    dx = dw = db = None
    if want_dx:
        dx = wrap(dx2.reshape(x.shape), input.dtype, fresh=True)
    if want_dw:
        dw = sum(p[1] for p in parts) if parts else np.zeros(k, x.dtype)
        dw = wrap(np.reshape(dw, weight._size), weight.dtype)
    if want_db:
        db = sum(p[2] for p in parts) if parts else np.zeros(k, x.dtype)
        db = wrap(np.reshape(db, bias._size), bias.dtype)
    return dx, dw, db


def _c_batch_norm_backward(go, x, weight, running_mean, running_var, save_mean, save_invstd, train, eps, mask):
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


def native_batch_norm_backward(grad_out, input, weight, running_mean, running_var, save_mean, save_invstd, train,
                               eps, output_mask):
    x, go = acc(input), acc(grad_out)
    r = _c_batch_norm_backward(go, x, weight, running_mean, running_var, save_mean, save_invstd, train, eps,
                               output_mask)
    if r is not None:
        return (None if r[0] is None else wrap(r[0], input.dtype, fresh=True),
                None if r[1] is None else wrap(r[1], input.dtype), None if r[2] is None else wrap(r[2], input.dtype))
    c = x.shape[1]
    axes = (0,) + tuple(range(2, x.ndim))
    bshape = (1, c) + (1,) * (x.ndim - 2)
    if train:
        mean, invstd = acc(save_mean), acc(save_invstd)
    else:
        mean, invstd = acc(running_mean), 1.0 / np.sqrt(acc(running_var) + eps)
    mean, invstd = mean.reshape(bshape), invstd.reshape(bshape)
    xhat = (x - mean) * invstd
    w = acc(weight).reshape(bshape) if weight is not None else 1.0
    g = go * w
    dx = dw = db = None
    if output_mask[0]:
        if train:
            m = x.size // c
            dx = invstd / m * (m * g - g.sum(axis=axes, keepdims=True) - xhat * (g * xhat).sum(axis=axes, keepdims=True))
        else:
            dx = g * invstd
        dx = wrap(dx, input.dtype)
    if output_mask[1]:
        dw = wrap((go * xhat).sum(axis=axes), input.dtype)
    if output_mask[2]:
        db = wrap(go.sum(axis=axes), input.dtype)
    return dx, dw, db


def _c_group_norm_backward(go, x, mean, rstd, weight, N, C, HxW, group, output_mask):
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


def native_group_norm_backward(grad_out, input, mean, rstd, weight, N, C, HxW, group, output_mask):
    x, go = acc(input), acc(grad_out)
    r = _c_group_norm_backward(go, x, mean, rstd, weight, N, C, HxW, group, output_mask)
    if r is not None:
        dx, dw, db = r
        return (None if dx is None else wrap(dx, input.dtype, fresh=True),
                None if dw is None else wrap(dw, input.dtype), None if db is None else wrap(db, input.dtype))
    xs = x.reshape(N, group, -1)
    k = xs.shape[2]
    xhat = ((xs - acc(mean)[..., None]) * acc(rstd)[..., None]).reshape(N, C, -1)
    go3 = go.reshape(N, C, -1)
    g = go3 * acc(weight)[None, :, None] if weight is not None else go3
    dx = dw = db = None
    if output_mask[0]:
        gg, xh = g.reshape(N, group, -1), xhat.reshape(N, group, -1)
        d = acc(rstd)[..., None] / k * (k * gg - gg.sum(-1, keepdims=True) - xh * (gg * xh).sum(-1, keepdims=True))
        dx = wrap(d.reshape(x.shape), input.dtype)
    if output_mask[1]:
        dw = wrap((go3 * xhat).sum(axis=(0, 2)), input.dtype)
    if output_mask[2]:
        db = wrap(go3.sum(axis=(0, 2)), input.dtype)
    return dx, dw, db
