"""cpu pooling: every window of the padded input as one strided view, reduced with one numpy call
(max/argmax or sum). Adaptive pools gather fixed-length (masked) windows with index arrays."""
import math
import itertools

import numpy as np
from numpy.lib.stride_tricks import as_strided

from ..meta import pool as M
from .runtime.arrays import acc, wrap
from .runtime.pool import split_run
from . import pool_planes
from ..._core import dtype as D


def _lowest(dt):
    return -np.inf if dt.kind == "f" else (np.iinfo(dt).min if dt.kind in "iu" else False)


def _windows(x, d, k, s, p, dl, o, fill):
    """(..., *S) -> (..., *O, *K) view over x padded by p on the left (and enough on the right)."""
    sp = x.shape[-d:]
    need = [(o[i] - 1) * s[i] + dl[i] * (k[i] - 1) + 1 for i in range(d)]
    pads = [(0, 0)] * (x.ndim - d) + [(p[i], max(need[i] - sp[i] - p[i], 0)) for i in range(d)]
    xp = np.pad(x, pads, constant_values=fill) if any(a or b for a, b in pads) else x
    st = xp.strides[-d:]
    return as_strided(xp, xp.shape[:-d] + tuple(o) + tuple(k),
                      xp.strides[:-d] + tuple(st[i] * s[i] for i in range(d)) + tuple(st[i] * dl[i] for i in range(d)),
                      writeable=False)


def _max_pool(self, d, kernel_size, stride, padding, dilation, ceil_mode, name):
    """Running max and argmax over the K window offsets of the strided window view (each offset a
    strided view of the whole output: the loop is over kernel offsets, never positions). A strictly
    greater value moves the argmax to the later offset, so it is max(which, i * greater): ties keep
    the first offset, as in torch. NaN wins (the last NaN); its rare positions are fixed up after.
    The flat input index is a per-offset table lookup plus a per-position base."""
    shape, (k, s, p, dl, o) = M.pool_spec(self, d, kernel_size, stride, padding, dilation, ceil_mode, name)
    x = self._np
    r = pool_planes.max_pool(x, d, k, s, p, dl, o)
    if r is not None:
        return wrap(r[0], self.dtype, fresh=True), wrap(r[1], M.D.int64, fresh=True)
    win = _windows(x, d, k, s, p, dl, o, _lowest(x.dtype))
    offs = list(itertools.product(*(range(n) for n in k)))
    best = np.empty(win.shape[:-d], x.dtype)
    which = np.zeros(best.shape, np.int16 if len(offs) > 255 else np.uint8)

    def chunk(wc, bc, ic):
        np.copyto(bc, wc[(Ellipsis,) + offs[0]])
        greater, step = np.empty(bc.shape, np.bool_), np.empty(bc.shape, ic.dtype)
        for i, off in enumerate(offs[1:], 1):
            v = wc[(Ellipsis,) + off]
            np.greater(v, bc, out=greater)
            np.maximum(bc, v, out=bc)                            # propagates NaN like torch
            np.multiply(greater, i, out=step, casting="unsafe")
            np.maximum(ic, step, out=ic)
    split_run(chunk, [win, best, which], 0)                      # planes shared out over threads
    if x.dtype.kind == "f":
        nan = np.isnan(best)
        if nan.any():
            which[nan] = 0
            for i in range(1, len(offs)):                       # ascending: the last NaN wins
                np.copyto(which, i, where=nan & np.isnan(win[(Ellipsis,) + offs[i]]))
    sp = x.shape[-d:]
    flat = [int(np.prod(sp[i + 1:])) for i in range(d)]         # row-major strides of one plane
    table = np.array([sum(off[i] * dl[i] * flat[i] for i in range(d)) for off in offs], np.int64)
    base = np.zeros(o, np.int64)
    for i in range(d):                                          # the (1 or 2) spatial dims only
        base += ((np.arange(o[i]) * s[i] - p[i]) * flat[i]).reshape((-1,) + (1,) * (d - 1 - i))
    idx = table.take(which)
    idx += base
    return wrap(best, self.dtype, fresh=True), wrap(idx, M.D.int64, fresh=True)


def max_pool2d_with_indices(self, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    return _max_pool(self, 2, kernel_size, stride, padding, dilation, ceil_mode, "max_pool2d")


def max_pool1d_with_indices(self, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    return _max_pool(self, 1, kernel_size, stride, padding, dilation, ceil_mode, "max_pool1d")


def _divisor(i, k, s, p, o, include_pad):
    start = np.arange(o) * s - p
    end = np.minimum(start + k, i + p)
    if include_pad:
        return end - start
    return np.minimum(end, i) - np.maximum(start, 0)


def avg_pool2d(self, kernel_size, stride=(), padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    shape, (k, s, p, dl, o) = M.avg_spec(self, 2, kernel_size, stride, padding, ceil_mode, divisor_override,
                                         "avg_pool2d")
    x = acc(self)
    integer = x.dtype.kind in "iu"
    y = None if integer else pool_planes.avg_pool(x, k, s, p, o, count_include_pad, divisor_override)
    if y is not None:
        return wrap(y, self.dtype, fresh=True)
    win = _windows(x, 2, k, s, p, dl, o, 0)
    tot = win.sum(axis=(-2, -1))
    if divisor_override is not None:
        div = divisor_override
    else:
        h, w = x.shape[-2:]
        div = np.outer(_divisor(h, k[0], s[0], p[0], o[0], count_include_pad),
                       _divisor(w, k[1], s[1], p[1], o[1], count_include_pad))
    if integer:                         # int64 sums divide like C++ (toward zero)
        return wrap(np.trunc(tot / div).astype(x.dtype), self.dtype)
    return wrap(tot / (div if divisor_override is not None else div.astype(x.dtype)), self.dtype)


def _adaptive_index(i, o):
    """Index array (o, L) of each adaptive window (clamped) and its validity mask."""
    start = (np.arange(o) * i) // o
    end = -((-(np.arange(o) + 1) * i) // o)
    ln = int((end - start).max()) if o else 0
    idx = start[:, None] + np.arange(ln)[None, :]
    return np.minimum(idx, i - 1), idx < end[:, None]


def _adaptive_windows(x, o):
    h, w = x.shape[-2:]
    ih, mh = _adaptive_index(h, o[0])
    iw, mw = _adaptive_index(w, o[1])
    win = x[..., ih[:, None, :, None], iw[None, :, None, :]]          # ..., oh, ow, Lh, Lw
    mask = mh[:, None, :, None] & mw[None, :, None, :]
    return win, mask, ih, iw


def _adaptive_avg_pool2d(self, output_size):
    shape = M.adaptive_spec(self, output_size, "adaptive_avg_pool2d")
    x = acc(self)
    if 0 in shape:
        return wrap(np.zeros(shape), self.dtype)
    win, mask, _, _ = _adaptive_windows(x, shape[-2:])
    tot = np.where(mask, win, 0).sum(axis=(-2, -1))
    return wrap(tot / mask.sum(axis=(-2, -1)).astype(x.dtype), self.dtype)


def adaptive_max_pool2d(self, output_size):
    shape = M.adaptive_spec(self, output_size, "adaptive_max_pool2d", ":")
    x = self._np
    if 0 in shape:
        return wrap(np.zeros(shape), self.dtype), wrap(np.zeros(shape), M.D.int64)
    win, mask, ih, iw = _adaptive_windows(x, shape[-2:])
    win = np.where(mask, win, _lowest(x.dtype))
    lh, lw = win.shape[-2:]
    flat = win.reshape(win.shape[:-2] + (-1,))
    am = np.argmax(flat, axis=-1)
    vals = np.take_along_axis(flat, am[..., None], axis=-1)[..., 0]
    kh, kw = am // lw, am % lw
    oh, ow = shape[-2:]
    rows = ih[np.arange(oh)[:, None], kh]
    cols = iw[np.arange(ow)[None, :], kw]
    return wrap(vals, self.dtype), wrap(rows * x.shape[-1] + cols, M.D.int64)


def max_unpool2d(self, indices, output_size):
    shape = M.max_unpool_spec(self, indices, output_size)
    hw = shape[-2] * shape[-1]
    x = self._np.reshape(self._np.shape[:-2] + (-1,))
    idx = indices._np.reshape(x.shape)
    if idx.size and (idx.min() < 0 or idx.max() >= hw):
        bad = idx[(idx < 0) | (idx >= hw)].reshape(-1)[0]
        raise RuntimeError(f"Found an invalid max index: {bad} (output volumes are of size {shape[-2]}x{shape[-1]}")
    out = np.zeros(x.shape[:-1] + (hw,), x.dtype)
    np.put_along_axis(out, idx, x, axis=-1)
    return wrap(out.reshape(shape), self.dtype)


def _scatter_planes(values, flat_idx, plane_size, shape):
    """Sum values into per-plane flat positions (duplicates accumulate): one np.bincount."""
    planes = math.prod(values.shape[:-2]) if values.ndim > 2 else 1
    v = values.reshape(planes, -1)
    idx = flat_idx.reshape(planes, -1) + (np.arange(planes) * plane_size)[:, None]
    out = np.bincount(idx.reshape(-1), weights=v.reshape(-1).astype(np.float64), minlength=planes * plane_size)
    return out.reshape(shape)


def max_pool2d_with_indices_backward(grad_output, self, kernel_size, stride, padding, dilation, ceil_mode, indices):
    """Scatter-add grad_output to the argmax positions in grad_output's dtype (np.add.at: repeated
    positions, from overlapping windows or the 1-d and adaptive pools that reuse this kernel with
    their own indices, accumulate)."""
    h, w = self._size[-2:]
    go = acc(grad_output)
    planes = math.prod(self._size[:-2])
    if planes * h * w == 0 or go.size == 0:                   # nothing to scatter (empty input or output)
        return wrap(np.zeros(self._size, go.dtype), self.dtype, fresh=True)
    gi = pool_planes.max_pool_backward(go, indices._np, self._size)
    if gi is not None:
        return wrap(gi, self.dtype, fresh=True)
    gi = np.zeros(planes * h * w, go.dtype)
    flat = indices._np.reshape(planes, -1) + (np.arange(planes, dtype=np.int64) * (h * w))[:, None]
    np.add.at(gi, flat.reshape(-1), go.reshape(-1))
    return wrap(gi.reshape(self._size), self.dtype, fresh=True)


def avg_pool2d_backward(grad_output, self, kernel_size, stride, padding, ceil_mode, count_include_pad,
                        divisor_override):
    shape, (k, s, p, dl, o) = M.avg_spec(self, 2, kernel_size, stride, padding, ceil_mode, divisor_override,
                                         "avg_pool2d")
    go = acc(grad_output)
    gi = pool_planes.avg_pool_backward(go, self._size, k, s, p, count_include_pad, divisor_override)
    if gi is not None:
        return wrap(gi, self.dtype, fresh=True)
    h, w = self._size[-2:]
    if divisor_override is not None:
        g = go / divisor_override
    else:
        div = np.outer(_divisor(h, k[0], s[0], p[0], o[0], count_include_pad),
                       _divisor(w, k[1], s[1], p[1], o[1], count_include_pad))
        g = go / div.astype(go.dtype)
    need = [(o[i] - 1) * s[i] + k[i] for i in range(2)]
    buf = np.zeros(go.shape[:-2] + (max(need[0], h + 2 * p[0]), max(need[1], w + 2 * p[1])), go.dtype)
    for i in range(k[0]):                     # kernel offsets, each a strided slab of the whole output
        for j in range(k[1]):
            buf[..., i:i + s[0] * o[0]:s[0], j:j + s[1] * o[1]:s[1]] += g
    return wrap(buf[..., p[0]:p[0] + h, p[1]:p[1] + w], self.dtype)


def _adaptive_avg_pool2d_backward(grad_output, self):
    h, w = self._size[-2:]
    oh, ow = grad_output._size[-2:]
    ih, mh = _adaptive_index(h, oh)
    iw, mw = _adaptive_index(w, ow)
    mask = mh[:, None, :, None] & mw[None, :, None, :]                    # oh, ow, Lh, Lw
    cnt = mask.sum(axis=(-2, -1))
    flat = ih[:, None, :, None] * w + iw[None, :, None, :]
    go = acc(grad_output) / cnt
    vals = go[..., None, None] * mask                                      # ..., oh, ow, Lh, Lw
    lead = go.shape[:-2]
    idx = np.broadcast_to(flat, lead + flat.shape)
    gi = _scatter_planes(vals.reshape(lead + (oh * ow, -1)), idx.reshape(lead + (oh * ow, -1)), h * w, self._size)
    return wrap(gi, self.dtype)


def _lowest_pooling3d(dt):
    return -np.inf if dt.kind in "fc" else (np.iinfo(dt).min if dt.kind in "iu" else False)


def _windows_pooling3d(x, k, s, p, dl, o, fill):
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
    win = _windows_pooling3d(x, k, s, p, dl, o, _lowest_pooling3d(x.dtype))
    flat = win.reshape(win.shape[:-3] + (k[0] * k[1] * k[2],))
    which = _argmax(flat)
    best = np.take_along_axis(flat, which[..., None], -1)[..., 0]
    kd, kh, kw = np.unravel_index(which, k)
    g = [np.arange(o[i]).reshape([-1 if j == i else 1 for j in range(3)]) * s[i] - p[i] for i in range(3)]
    idx = _flat_index(g[0] + kd * dl[0], g[1] + kh * dl[1], g[2] + kw * dl[2], x.shape[-3:])
    return wrap(best, self.dtype), wrap(idx, D.int64)


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
    win = _windows_pooling3d(x.astype(np.int64) if integer else x, k, s, p, (1, 1, 1), o, 0)
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
    win = np.where(ok, x[sel], _lowest_pooling3d(x.dtype))
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
