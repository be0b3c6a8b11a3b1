"""cpu im2col (F.unfold) and col2im (F.fold). float32/float64 run csrc/im2col.c, whose per-image
column matrix (C*KH*KW, L) is exactly unfold's layout; other dtypes (or no C) take the numpy path:
one strided window view + one copy, and for col2im an accumulation of each kernel offset's strided
slice (the loop is over kernel offsets, not positions)."""
import numpy as np
from numpy.lib.stride_tricks import as_strided

from ..meta.conv_fold import col2im_spec, im2col_spec
from .runtime.arrays import wrap
from . import conv_im2col


def im2col(self, kernel_size, dilation, padding, stride):
    shape, (k, dl, p, s, o) = im2col_spec(self, kernel_size, dilation, padding, stride)
    x = self._np
    f = conv_im2col._fn("im2col_batch", x.dtype, "pppll")
    if f is not None and 0 not in shape:
        x = np.ascontiguousarray(x)
        c, sp = x.shape[-3], x.shape[-2:]
        n = int(np.prod(x.shape[:-3]))
        out = np.empty(shape, x.dtype)
        geo = conv_im2col.geometry(sp, k, o, s, p, dl)
        step, ostep = c * sp[0] * sp[1] * x.itemsize, out.size // n * out.itemsize
        for i in range(n):                       # m = 1: each image's columns are its own (C*K, L)
            f(x.ctypes.data + i * step, out.ctypes.data + i * ostep, geo.ctypes.data, c, 1)
        return wrap(out, self.dtype, fresh=True)
    xp = np.pad(x, [(0, 0)] * (x.ndim - 2) + [(p[0], p[0]), (p[1], p[1])]) if any(p) else x
    st = xp.strides
    win = as_strided(xp, xp.shape[:-2] + (k[0], k[1], o[0], o[1]),
                     st[:-2] + (st[-2] * dl[0], st[-1] * dl[1], st[-2] * s[0], st[-1] * s[1]), writeable=False)
    return wrap(win.reshape(shape), self.dtype)


def col2im(self, output_size, kernel_size, dilation, padding, stride):
    shape, (k, dl, p, s, o) = col2im_spec(self, output_size, kernel_size, dilation, padding, stride)
    f = conv_im2col._fn("col2im_batch", self._np.dtype, "pppll")
    if f is not None and 0 not in shape and 0 not in self._size:
        cols = np.ascontiguousarray(self._np)
        c, sp = shape[-3], shape[-2:]
        n = int(np.prod(shape[:-3]))
        out = np.zeros(shape, cols.dtype)
        geo = conv_im2col.geometry(sp, k, o, s, p, dl)
        step, cstep = c * sp[0] * sp[1] * cols.itemsize, cols.size // n * cols.itemsize
        for i in range(n):
            f(cols.ctypes.data + i * cstep, out.ctypes.data + i * step, geo.ctypes.data, c, 1)
        return wrap(out, self.dtype, fresh=True)
    cols = self._np.reshape(self._size[:-2] + (shape[-3], k[0], k[1], o[0], o[1]))
    h, w = shape[-2:]
    out = np.zeros(shape[:-2] + (h + 2 * p[0] + s[0] * 0 + dl[0] * k[0] + s[0] * o[0],
                                 w + 2 * p[1] + dl[1] * k[1] + s[1] * o[1]), self._np.dtype)
    for i in range(k[0]):
        for j in range(k[1]):
            out[..., i * dl[0]:i * dl[0] + s[0] * o[0]:s[0], j * dl[1]:j * dl[1] + s[1] * o[1]:s[1]] += cols[..., i, j, :, :]
    return wrap(out[..., p[0]:p[0] + h, p[1]:p[1] + w], self.dtype)
