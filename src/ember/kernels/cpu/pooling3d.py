"""cpu 3-D pooling. Max and avg pools see every window of the padded input at once through one strided view
(..., OD, OH, OW, KD, KH, KW) and reduce it with one numpy call; their backward ops scatter the gradient with
one bincount (max) or one strided add per kernel offset (avg). Adaptive pools are separable: per dim a 0/1
matrix of window membership (avg: three contractions) or fixed-length masked index windows (max)."""
import numpy as np
from numpy.lib.stride_tricks import as_strided

from ..._core import dtype as D
from ..meta import pooling3d as M
from .runtime.arrays import acc, wrap


def _aten():
    from ..._ops import ops
    return ops.aten


def _lowest(dt):
    return -np.inf if dt.kind in "fc" else (np.iinfo(dt).min if dt.kind in "iu" else False)


def _windows(x, k, s, p, dl, o, fill):
    """(..., D, H, W) -> read-only (..., OD, OH, OW, KD, KH, KW) view of x padded by p on the left (and as
    much as the last window needs on the right)."""
    sp = x.shape[-3:]
    need = [(o[i] - 1) * s[i] + dl[i] * (k[i] - 1) + 1 for i in range(3)]
    pads = [(0, 0)] * (x.ndim - 3) + [(p[i], max(need[i] - sp[i] - p[i], 0)) for i in range(3)]
    xp = np.pad(x, pads, constant_values=fill) if any(a or b for a, b in pads) else x
    st = xp.strides[-3:]
    return as_strided(xp, xp.shape[:-3] + tuple(o) + tuple(k),
                      xp.strides[:-3] + tuple(st[i] * s[i] for i in range(3)) + tuple(st[i] * dl[i] for i in range(3)),
                      writeable=False)


def _argmax(flat):
    """Index of the max along the last axis: the first of ties, the last NaN when there is one (torch's rule)."""
    which = flat.argmax(-1)
    if flat.dtype.kind == "f":
        nan = np.isnan(flat)
        has = nan.any(-1)
        if has.any():
            which = np.where(has, flat.shape[-1] - 1 - nan[..., ::-1].argmax(-1), which)
    return which


def _flat_index(zd, zh, zw, sp):
    return (zd.astype(np.int64) * sp[1] + zh) * sp[2] + zw


def max_pool3d_with_indices(self, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    shape, (k, s, p, dl, o) = M.spec3d(self, kernel_size, stride, padding, dilation, ceil_mode, "max_pool3d")
    x = self._np
    win = _windows(x, k, s, p, dl, o, _lowest(x.dtype))
    flat = win.reshape(win.shape[:-3] + (k[0] * k[1] * k[2],))
    which = _argmax(flat)
    best = np.take_along_axis(flat, which[..., None], -1)[..., 0]
    kd, kh, kw = np.unravel_index(which, k)
    g = [np.arange(o[i]).reshape([-1 if j == i else 1 for j in range(3)]) * s[i] - p[i] for i in range(3)]
    idx = _flat_index(g[0] + kd * dl[0], g[1] + kh * dl[1], g[2] + kw * dl[2], x.shape[-3:])
    return wrap(best, self.dtype), wrap(idx, D.int64)


def max_pool3d(self, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    return _aten().max_pool3d_with_indices.default(self, kernel_size, stride, padding, dilation, ceil_mode)[0]


def _scatter_by_index(grad_output, self, indices):
    """grad_input[..., indices] += grad_output over the flattened spatial dims (one bincount)."""
    g = acc(grad_output)
    sp = int(np.prod(self._size[-3:]))
    n = int(np.prod(self._size[:-3]))
    gi = g.reshape(n, -1)
    ii = indices._np.reshape(n, -1) + np.arange(n, dtype=np.int64)[:, None] * sp
    out = np.bincount(ii.ravel(), weights=gi.ravel(), minlength=n * sp)
    return wrap(out.reshape(self._size), self.dtype, fresh=True)


def max_pool3d_with_indices_backward(grad_output, self, kernel_size, stride, padding, dilation, ceil_mode, indices):
    M.max_pool3d_with_indices_backward(grad_output, self, kernel_size, stride, padding, dilation, ceil_mode, indices)
    return _scatter_by_index(grad_output, self, indices)


def _divisors(sp, k, s, p, o, include_pad, divisor_override):
    if divisor_override is not None:
        return divisor_override
    ds = []
    for i in range(3):
        start = np.arange(o[i]) * s[i] - p[i]
        end = np.minimum(start + k[i], sp[i] + p[i])
        d = end - start if include_pad else np.minimum(end, sp[i]) - np.maximum(start, 0)
        ds.append(d.reshape([-1 if j == i else 1 for j in range(3)]))
    return ds[0] * ds[1] * ds[2]


def avg_pool3d(self, kernel_size, stride=(), padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    shape, (k, s, p, _, o) = M.avg_spec3d(self, kernel_size, stride, padding, ceil_mode, divisor_override)
    x = acc(self)
    integer = x.dtype.kind in "iub"
    win = _windows(x.astype(np.int64) if integer else x, k, s, p, (1, 1, 1), o, 0)
    tot = win.sum(axis=(-3, -2, -1))
    div = _divisors(x.shape[-3:], k, s, p, o, count_include_pad, divisor_override)
    out = np.trunc(tot / div) if integer else tot / div     # integer tensors divide like C++ (toward zero)
    return wrap(out, self.dtype)


def avg_pool3d_backward(grad_output, self, kernel_size, stride, padding, ceil_mode, count_include_pad,
                        divisor_override):
    M.avg_pool3d_backward(grad_output, self, kernel_size, stride, padding, ceil_mode, count_include_pad,
                          divisor_override)
    _, (k, s, p, _, o) = M.avg_spec3d(self, kernel_size, stride, padding, ceil_mode, divisor_override)
    sp = self._size[-3:]
    g = acc(grad_output) / _divisors(sp, k, s, p, o, count_include_pad, divisor_override)
    full = [max((o[i] - 1) * s[i] + k[i], sp[i] + p[i]) + p[i] for i in range(3)]
    gp = np.zeros(tuple(self._size[:-3]) + tuple(full), g.dtype)
    for a in range(k[0]):
        for b in range(k[1]):
            for c in range(k[2]):      # one strided add per kernel offset (windows never repeat a position)
                gp[..., a:a + (o[0] - 1) * s[0] + 1:s[0], b:b + (o[1] - 1) * s[1] + 1:s[1],
                   c:c + (o[2] - 1) * s[2] + 1:s[2]] += g
    return wrap(gp[..., p[0]:p[0] + sp[0], p[1]:p[1] + sp[1], p[2]:p[2] + sp[2]], self.dtype)


def _bounds(i, o):
    """torch's adaptive window of output j over an input of size i: [floor(j*i/o), ceil((j+1)*i/o))."""
    j = np.arange(o)
    return (j * i) // o, -((-(j + 1) * i) // o)


def _membership(i, o):
    start, end = _bounds(i, o)
    r = np.arange(i)
    return ((r >= start[:, None]) & (r < end[:, None])).astype(np.float64), (end - start)


def _adaptive_avg(x, sp, o, transpose=False):
    (w0, l0), (w1, l1), (w2, l2) = (_membership(sp[i], o[i]) for i in range(3))
    n = l0[:, None, None] * l1[None, :, None] * l2[None, None, :]
    if transpose:
        return np.einsum("...abc,ad,be,cf->...def", x / n, w0, w1, w2, optimize=True)
    return np.einsum("...def,ad,be,cf->...abc", x, w0, w1, w2, optimize=True) / n


def _adaptive_avg_pool3d(self, output_size):
    shape = M.adaptive_spec3d(self, output_size, "adaptive_avg_pool3d")
    out = _adaptive_avg(acc(self), self._size[-3:], shape[-3:])
    return wrap(out, self.dtype)


def adaptive_avg_pool3d(self, output_size):
    return _aten()._adaptive_avg_pool3d.default(self, output_size)


def _adaptive_avg_pool3d_backward(grad_output, self):
    o = grad_output._size[-3:]
    return wrap(_adaptive_avg(acc(grad_output), self._size[-3:], o, transpose=True), self.dtype)


def adaptive_max_pool3d(self, output_size):
    shape = M.adaptive_spec3d(self, output_size, "adaptive_max_pool3d", ":")
    x, sp, o = self._np, self._size[-3:], shape[-3:]
    idx, valid = [], []
    for i in range(3):
        start, end = _bounds(sp[i], o[i])
        kmax = int((end - start).max()) if o[i] else 1
        ix = start[:, None] + np.arange(kmax)
        idx.append(np.minimum(ix, sp[i] - 1))
        valid.append(ix < end[:, None])
    sel = (Ellipsis, idx[0][:, None, None, :, None, None], idx[1][None, :, None, None, :, None],
           idx[2][None, None, :, None, None, :])
    ok = valid[0][:, None, None, :, None, None] & valid[1][None, :, None, None, :, None] & \
        valid[2][None, None, :, None, None, :]
    win = np.where(ok, x[sel], _lowest(x.dtype))
    k = win.shape[-3:]
    flat = win.reshape(win.shape[:-3] + (k[0] * k[1] * k[2],))
    which = _argmax(flat)
    best = np.take_along_axis(flat, which[..., None], -1)[..., 0]
    kd, kh, kw = np.unravel_index(which, k)
    od = np.arange(o[0]).reshape(-1, 1, 1)
    oh = np.arange(o[1]).reshape(1, -1, 1)
    ow = np.arange(o[2]).reshape(1, 1, -1)
    idx_out = _flat_index(idx[0][od, kd], idx[1][oh, kh], idx[2][ow, kw], sp)
    return wrap(best, self.dtype), wrap(idx_out, D.int64)


def adaptive_max_pool3d_backward(grad_output, self, indices):
    M.adaptive_max_pool3d_backward(grad_output, self, indices)
    return _scatter_by_index(grad_output, self, indices)
