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


def windows_last(x, kernel, stride, dilation):
    """Channels-last (N, *S, C) -> (N, *O, *K, C) view of every window (no copy)."""
    d = len(kernel)
    sp, ss = x.shape[1:1 + d], x.strides[1:1 + d]
    out = tuple((sp[i] - dilation[i] * (kernel[i] - 1) - 1) // stride[i] + 1 for i in range(d))
    return as_strided(x, (x.shape[0],) + out + tuple(kernel) + (x.shape[-1],),
                      (x.strides[0],) + tuple(ss[i] * stride[i] for i in range(d)) +
                      tuple(ss[i] * dilation[i] for i in range(d)) + (x.strides[-1],), writeable=False)


def conv_forward(x, w, b, st, pd, dl, groups):
    """im2col in channels-last order (each window row is Kw*C contiguous floats), then one
    (batched over groups) matmul against the weight reordered to (G, K*Cg, Og)."""
    d = w.ndim - 2
    n = x.shape[0]
    cout, cg, kern = w.shape[0], w.shape[1], w.shape[2:]
    og = cout // groups
    xl = np.moveaxis(x, 1, -1)
    xl = pad_crop(xl, [(p, p) for p in pd] + [(0, 0)]) if any(pd) else np.ascontiguousarray(xl)
    win = windows_last(xl, kern, st, dl)                          # N, *O, *K, C
    o = win.shape[1:1 + d]
    no, kk = n * int(np.prod(o)), int(np.prod(kern))
    wl = np.moveaxis(w.reshape((groups, og, cg) + kern), 2, -1).reshape(groups, og, kk * cg)
    if groups == 1:
        cols = win.reshape(no, kk * cg)                           # the im2col copy
        y = np.matmul(cols, wl[0].T)                              # N*O, Cout: one BLAS call
        y = y.reshape((n,) + o + (cout,))
    else:
        win = win.reshape((n,) + o + kern + (groups, cg))
        perm = (1 + 2 * d,) + tuple(range(1 + 2 * d)) + (2 + 2 * d,)
        cols = win.transpose(perm).reshape(groups, no, kk * cg)
        y = np.matmul(cols, wl.transpose(0, 2, 1))                # G, N*O, Og: one batched BLAS call
        y = np.moveaxis(y.reshape((groups, n) + o + (og,)), 0, -2).reshape((n,) + o + (cout,))
    y = np.ascontiguousarray(np.moveaxis(y, -1, 1))
    if b is not None:
        y += b.reshape((1, cout) + (1,) * d)
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


def _weight_grad(x, go, wshape, st, pd, dl, groups):
    """dL/dW of a forward convolution: im2col(x) contracted with grad_output in one batched matmul."""
    d = len(wshape) - 2
    n = x.shape[0]
    cout, cg, kern = wshape[0], wshape[1], tuple(wshape[2:])
    og = cout // groups
    xl = np.moveaxis(x, 1, -1)
    xl = pad_crop(xl, [(p, p) for p in pd] + [(0, 0)]) if any(pd) else np.ascontiguousarray(xl)
    win = windows_last(xl, kern, st, dl)
    o = go.shape[2:]
    win = win[(slice(None),) + tuple(slice(0, oi) for oi in o)]
    no, kk = n * int(np.prod(o)), int(np.prod(kern))
    win = win.reshape((n,) + o + kern + (groups, cg))
    perm = (1 + 2 * d,) + tuple(range(1 + 2 * d)) + (2 + 2 * d,)
    cols = win.transpose(perm).reshape(groups, no, kk * cg)
    gom = np.moveaxis(go, 1, -1).reshape(no, groups, og).transpose(1, 2, 0)      # G, Og, N*O
    gw = np.matmul(gom, cols)                                                      # G, Og, K*Cg
    gw = gw.reshape((groups, og) + kern + (cg,))
    return np.moveaxis(gw, -1, 2).reshape(wshape)


def convolution_backward(grad_output, input, weight, bias_sizes, stride, padding, dilation, transposed,
                         output_padding, groups, output_mask):
    _, dt, (d, st, pd, dl, op) = conv_spec(input, weight, None, stride, padding, dilation, transposed,
                                           output_padding, groups)
    x, w, go = acc(input), acc(weight), acc(grad_output)
    gi = gw = gb = None
    if output_mask[0]:
        if not transposed:          # the adjoint of a strided conv is a transposed conv of the same weight
            full = [(go.shape[2 + i] - 1) * st[i] - 2 * pd[i] + dl[i] * (w.shape[2 + i] - 1) + 1 for i in range(d)]
            extra = [x.shape[2 + i] - full[i] for i in range(d)]
            gi = conv_transpose(go, w, None, st, pd, dl, extra, groups)
        else:
            gi = conv_forward(go, w, None, st, pd, dl, groups)
        gi = wrap(gi, dt)
    if output_mask[1]:
        gw = _weight_grad(x, go, w.shape, st, pd, dl, groups) if not transposed else \
            _weight_grad(go, x, w.shape, st, pd, dl, groups)
        gw = wrap(gw, dt)
    if output_mask[2] and bias_sizes is not None:
        gb = wrap(go.sum(axis=(0,) + tuple(range(2, go.ndim))), dt)
    return gi, gw, gb
