"""cpu native_layer_norm / native_batch_norm / native_group_norm: vectorised mean/var over the
normalised axes; batch_norm updates running stats in place (unbiased variance) when training.
layer_norm, group_norm and batch_norm (forward and backward) on float32/float64 run the C kernels of
csrc/norm.c through norm_c when C is available, else the numpy code here."""
import numpy as np

from ..._core import dtype as D

from ..meta import norm as M
from ..common import _tn
from .runtime.arrays import acc, wrap
from . import norm_rows
from .runtime.rowblocks import row_dot, row_sum, run_rows
from ..meta.norm import weight_norm_spec


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
    r = norm_rows.c_layer_norm_last_dim(input, normalized_shape, weight, bias, eps)
    if r is not None:
        return r
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
    elif norm_rows.c_layer_norm(x2, y2, mean, rstd, w, b, eps):
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


def _update_running(running_mean, running_var, mean, var, n, momentum):
    if running_mean is not None:
        rm = running_mean._np
        rm[...] = (1 - momentum) * rm + momentum * mean
    if running_var is not None:
        rv = running_var._np
        rv[...] = (1 - momentum) * rv + momentum * var * (n / max(n - 1, 1))


def native_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps):
    """Training: per-channel mean and biased variance (running stats updated with the unbiased one);
    eval: the running stats. float32/float64 inputs with HW >= 16 run the C kernels of csrc/norm.c
    (stats split over channels, the affine over rows)."""
    shape, stat = M.batch_norm_spec(input, weight, bias, running_mean, running_var, training)
    x = acc(input)
    st = D.float32 if input.dtype in (D.float16, D.bfloat16) else input.dtype
    r = norm_rows.c_batch_norm(x, weight, bias, running_mean, running_var, training, eps)
    if r is not None:
        if training:
            _update_running(running_mean, running_var, r[1], r[3], x.size // x.shape[1], momentum)
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


def native_group_norm(input, weight, bias, N, C, HxW, group, eps):
    M.group_norm_spec(input, weight, bias, N, C, HxW, group)
    x = acc(input)
    r = norm_rows.c_group_norm(x, weight, bias, N, C, HxW, group, eps)
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
    r = norm_rows.c_layer_norm_backward_last_dim(grad_out, input, normalized_shape, mean, rstd, weight, bias,
                                                 output_mask)
    if r is not None:
        return r
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
        cparts = norm_rows.c_layer_norm_backward(x2, go2, mu2, rs2, w, dx2, want_dw, want_db)
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


def native_batch_norm_backward(grad_out, input, weight, running_mean, running_var, save_mean, save_invstd, train,
                               eps, output_mask):
    x, go = acc(input), acc(grad_out)
    r = norm_rows.c_batch_norm_backward(go, x, weight, running_mean, running_var, save_mean, save_invstd, train, eps,
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


def native_group_norm_backward(grad_out, input, mean, rstd, weight, N, C, HxW, group, output_mask):
    x, go = acc(input), acc(grad_out)
    r = norm_rows.c_group_norm_backward(go, x, mean, rstd, weight, N, C, HxW, group, output_mask)
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


def _wn_axes(v, dim):
    return tuple(d for d in range(v.ndim) if d != dim)


def _weight_norm_interface(v, g, dim=0):
    weight_norm_spec(v, g, dim)
    vv = v._np
    norms = np.sqrt(np.sum(vv * vv, axis=_wn_axes(vv, dim), keepdims=True))
    return wrap(vv * (g._np / norms), v.dtype), wrap(norms, g.dtype)


def _weight_norm_interface_backward(grad_w, saved_v, saved_g, saved_norms, dim):
    weight_norm_spec(saved_v, saved_g, dim)
    gw, v, g, n = grad_w._np, saved_v._np, saved_g._np, saved_norms._np
    grad_g = np.sum(gw * v, axis=_wn_axes(v, dim), keepdims=True) / n
    grad_v = (g / n) * (gw - v * (grad_g / n))
    return wrap(grad_v, saved_v.dtype), wrap(grad_g.reshape(saved_g._size), saved_g.dtype)
