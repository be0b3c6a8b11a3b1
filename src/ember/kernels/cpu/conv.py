"""cpu aten::convolution: im2col as a strided window view of the padded input, then ONE batched
matmul (groups as the batch dim). Transposed convolution is the same kernel applied to the
stride-dilated input with the flipped, channel-swapped weight."""
import numpy as np
from numpy.lib.stride_tricks import as_strided

from ..meta.conv import conv_spec
from ..meta.nn_common import acc, wrap


def pad_crop(x, pads):
    """Pad the trailing len(pads) dims by (left, right) zeros; negative amounts crop."""
    lead = x.ndim - len(pads)
    if any(l > 0 or r > 0 for l, r in pads):
        x = np.pad(x, [(0, 0)] * lead + [(max(l, 0), max(r, 0)) for l, r in pads])
    if any(l < 0 or r < 0 for l, r in pads):
        x = x[(slice(None),) * lead + tuple(slice(max(-l, 0), x.shape[lead + i] - max(-r, 0))
                                            for i, (l, r) in enumerate(pads))]
    return x


def windows(x, kernel, stride, dilation):
    """(N, C, *S) -> (N, C, *O, *K) view of every window (no copy)."""
    d = len(kernel)
    sp, ss = x.shape[2:], x.strides[2:]
    out = tuple((sp[i] - dilation[i] * (kernel[i] - 1) - 1) // stride[i] + 1 for i in range(d))
    return as_strided(x, x.shape[:2] + out + tuple(kernel),
                      x.strides[:2] + tuple(ss[i] * stride[i] for i in range(d)) +
                      tuple(ss[i] * dilation[i] for i in range(d)), writeable=False)


def conv_forward(x, w, b, st, pd, dl, groups):
    d = w.ndim - 2
    n, c = x.shape[:2]
    cout, cg, kern = w.shape[0], w.shape[1], w.shape[2:]
    xp = pad_crop(x, [(p, p) for p in pd]) if any(pd) else x
    win = windows(xp, kern, st, dl)                               # N, C, *O, *K
    o = win.shape[2:2 + d]
    win = win.reshape((n, groups, cg) + o + kern)                 # view (C split)
    perm = (1, 0) + tuple(range(3, 3 + d)) + (2,) + tuple(range(3 + d, 3 + 2 * d))
    cols = win.transpose(perm).reshape(groups, n * int(np.prod(o)), cg * int(np.prod(kern)))   # the im2col copy
    wm = w.reshape(groups, cout // groups, -1).transpose(0, 2, 1)
    y = np.matmul(cols, wm)                                       # G, N*O, Og: one BLAS call
    y = y.reshape((groups, n) + o + (cout // groups,))
    y = y.transpose((1, 0, 2 + d) + tuple(range(2, 2 + d))).reshape((n, cout) + o)
    if b is not None:
        y = y + b.reshape((1, cout) + (1,) * d)
    return y


def conv_transpose(x, w, b, st, pd, dl, op, groups):
    d = w.ndim - 2
    n, cin = x.shape[:2]
    kern = w.shape[2:]
    if any(s > 1 for s in st):
        dil = np.zeros((n, cin) + tuple((x.shape[2 + i] - 1) * st[i] + 1 for i in range(d)), x.dtype)
        dil[(slice(None), slice(None)) + tuple(slice(None, None, s) for s in st)] = x
        x = dil
    x = pad_crop(x, [(dl[i] * (kern[i] - 1) - pd[i], dl[i] * (kern[i] - 1) - pd[i] + op[i]) for i in range(d)])
    cg, og = cin // groups, w.shape[1]
    wf = w.reshape((groups, cg, og) + kern).swapaxes(1, 2)[(Ellipsis,) + (slice(None, None, -1),) * d]
    wf = wf.reshape((groups * og, cg) + kern)
    return conv_forward(x, wf, b, (1,) * d, (0,) * d, dl, groups)


def convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups):
    shape, dt, (d, st, pd, dl, op) = conv_spec(input, weight, bias, stride, padding, dilation, transposed,
                                               output_padding, groups)
    x, w = acc(input), acc(weight)
    b = None if bias is None else acc(bias)
    if 0 in shape or 0 in x.shape:
        return wrap(np.zeros(shape), dt) if 0 in shape else wrap(np.broadcast_to(
            np.zeros(1) if b is None else b.reshape((-1,) + (1,) * d), shape[1:])[None].repeat(shape[0], 0), dt)
    y = conv_transpose(x, w, b, st, pd, dl, op, groups) if transposed else conv_forward(x, w, b, st, pd, dl, groups)
    return wrap(y, dt)
