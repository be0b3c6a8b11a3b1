"""cpu im2col (one strided window view + one copy) and col2im (accumulate each kernel offset's
strided slice: the loop is over kernel offsets, not positions)."""
import numpy as np
from numpy.lib.stride_tricks import as_strided

from ..meta.fold import col2im_spec, im2col_spec
from ..meta.nn_common import wrap


def im2col(self, kernel_size, dilation, padding, stride):
    shape, (k, dl, p, s, o) = im2col_spec(self, kernel_size, dilation, padding, stride)
    x = self._np
    xp = np.pad(x, [(0, 0)] * (x.ndim - 2) + [(p[0], p[0]), (p[1], p[1])]) if any(p) else x
    st = xp.strides
    win = as_strided(xp, xp.shape[:-2] + (k[0], k[1], o[0], o[1]),
                     st[:-2] + (st[-2] * dl[0], st[-1] * dl[1], st[-2] * s[0], st[-1] * s[1]), writeable=False)
    return wrap(win.reshape(shape), self.dtype)


def col2im(self, output_size, kernel_size, dilation, padding, stride):
    shape, (k, dl, p, s, o) = col2im_spec(self, output_size, kernel_size, dilation, padding, stride)
    cols = self._np.reshape(self._size[:-2] + (shape[-3], k[0], k[1], o[0], o[1]))
    h, w = shape[-2:]
    out = np.zeros(shape[:-2] + (h + 2 * p[0] + s[0] * 0 + dl[0] * k[0] + s[0] * o[0],
                                 w + 2 * p[1] + dl[1] * k[1] + s[1] * o[1]), self._np.dtype)
    for i in range(k[0]):
        for j in range(k[1]):
            out[..., i * dl[0]:i * dl[0] + s[0] * o[0]:s[0], j * dl[1]:j * dl[1] + s[1] * o[1]:s[1]] += cols[..., i, j, :, :]
    return wrap(out[..., p[0]:p[0] + h, p[1]:p[1] + w], self.dtype)
