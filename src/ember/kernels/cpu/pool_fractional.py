"""cpu fractional max pooling (Graham's fractional max-pooling, torch's FractionalMaxPool2d.cpp /
FractionalMaxPool3d.cpp): per plane and per spatial dim, pseudo-random window starts drawn from one sample u
in [0, 1): start_i = int((i + u) alpha) - int(u alpha) with alpha = (in - k) / (out - 1), and the last
window flush with the input's end. Each window's max and its flat index within the plane (first of ties,
the last NaN), every window gathered at once with index arrays."""
import numpy as np

from ..meta import pool_fractional as M
from .pool import _argmax
from .runtime.arrays import acc, wrap
from ..._core import dtype as D


def _starts(u, size, out, k):
    """(..., out) window starts from samples u (...,), computed in u's float type as torch does."""
    t = u.dtype.type
    seq = np.empty(u.shape + (out,), np.int64)
    if out > 1:
        alpha = t(size - k) / t(out - 1)
        i = np.arange(out - 1).astype(u.dtype)
        seq[..., :-1] = ((i + u[..., None]) * alpha).astype(np.int64) - (u * alpha).astype(np.int64)[..., None]
    if out > 0:
        seq[..., -1] = size - k
    return seq


def _pool(self, kernel_size, output_size, random_samples, d):
    shape = M.spec(self, kernel_size, output_size, random_samples, d)
    k, o = M.ints(kernel_size, d), M.ints(output_size, d)
    x = self._np
    batched = x.ndim == d + 2
    xb = x if batched else x[None]
    n, c, sp = xb.shape[0], xb.shape[1], xb.shape[2:]
    u = random_samples._np[:n]                                   # (n, c, d)
    # torch's sample order: 2d (width, height); 3d (time, height, width)
    which = (1, 0) if d == 2 else (0, 1, 2)
    flat = np.zeros((n, c) + o + k, np.int64)
    for i in range(d):
        st = _starts(u[..., which[i]], sp[i], o[i], k[i])        # (n, c, o_i)
        pos = st[..., :, None] + np.arange(k[i])                 # (n, c, o_i, k_i)
        shp = [n, c] + [1] * (2 * d)
        shp[2 + i], shp[2 + d + i] = o[i], k[i]
        stride = int(np.prod(sp[i + 1:])) if i + 1 < d else 1
        flat = flat + (pos * stride).reshape(shp)
    planes = xb.reshape(n, c, -1)
    win = np.take_along_axis(planes, flat.reshape(n, c, -1), -1).reshape((n, c) + o + (int(np.prod(k)),))
    arg = _argmax(win)
    best = np.take_along_axis(win, arg[..., None], -1)[..., 0]
    idx = np.take_along_axis(flat.reshape((n, c) + o + (-1,)), arg[..., None], -1)[..., 0]
    if not batched:
        best, idx = best[0], idx[0]
    return wrap(best.reshape(shape), self.dtype), wrap(idx.reshape(shape), D.int64)


def fractional_max_pool2d(self, kernel_size, output_size, random_samples):
    return _pool(self, kernel_size, output_size, random_samples, 2)


def fractional_max_pool3d(self, kernel_size, output_size, random_samples):
    return _pool(self, kernel_size, output_size, random_samples, 3)


def _backward(grad_output, self, indices, d):
    """grad_input[plane, indices] += grad_output: the pooling's gradient routed to each window's max."""
    M._backward(grad_output, self, indices, d)
    g = acc(grad_output)
    sp = int(np.prod(self._size[-d:]))
    n = int(np.prod(self._size[:-d]))
    ii = indices._np.reshape(n, -1) + np.arange(n, dtype=np.int64)[:, None] * sp
    out = np.bincount(ii.ravel(), weights=g.reshape(n, -1).ravel(), minlength=n * sp)
    return wrap(out.reshape(self._size), self.dtype, fresh=True)


def fractional_max_pool2d_backward(grad_output, self, kernel_size, output_size, indices):
    return _backward(grad_output, self, indices, 2)


def fractional_max_pool3d_backward(grad_output, self, kernel_size, output_size, indices):
    return _backward(grad_output, self, indices, 3)
