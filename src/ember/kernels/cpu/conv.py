"""cpu aten::convolution and its backward, any spatial rank.

float32/float64 with stride 1 and few channels take conv_direct.py (csrc/dconv.c: direct loops over a
padded copy of each image, no column matrix); other float32/float64 convolutions take conv_im2col.py
(csrc/im2col.c: per-image columns in the layout the gemm wants, images over the thread pool);
other dtypes, or no C compiler, take the numpy path below, channels-last inside:

- forward: im2col (a strided window view of the padded channels-last input, copied once into a
  (N*O, K*Cg) matrix per group) times the reordered weight: one matmul per group;
- grad_weight: the same im2col matrix contracted with grad_output: one matmul per group;
- grad_input: the weight times grad_output gives every window's gradient (one matmul per group),
  then col2im adds the windows back, one strided add per kernel offset (never per position).

A transposed convolution is the grad_input computation of the forward convolution it transposes,
and its grad_input is that forward convolution (no zero-stuffed input is ever built).
Matmul operand orders are the ones OpenBLAS measured fastest for these tall-skinny shapes (numpy's
matmul of a (32, 36864) by (36864, 400) pair is several times slower than the (400, 36864) by
(36864, 32) one, so the long N*O dimension is never the shared inner dimension of a short result)."""
import numpy as np
from numpy.lib.stride_tricks import as_strided

from ..meta.conv import conv_spec
from .runtime.arrays import acc, wrap
from .runtime import flat
from . import conv_im2col, conv_direct


def _channels_last(x, pd):
    """(N, C, *S) -> contiguous (N, *S', C), each spatial dim zero-padded by pd on both sides."""
    d = x.ndim - 2
    if not any(pd):
        return np.ascontiguousarray(np.moveaxis(x, 1, -1))
    xl = np.zeros((x.shape[0],) + tuple(x.shape[2 + i] + 2 * pd[i] for i in range(d)) + (x.shape[1],), x.dtype)
    inner = (slice(None),) + tuple(slice(pd[i], pd[i] + x.shape[2 + i]) for i in range(d))
    np.copyto(np.moveaxis(xl[inner], -1, 1), x)
    return xl


def _windows(xl, kern, stride, dilation, out):
    """Channels-last (N, *S, C) -> (N, *out, *K, C) view of every window (no copy)."""
    d = len(kern)
    ss = xl.strides[1:1 + d]
    return as_strided(xl, (xl.shape[0],) + tuple(out) + tuple(kern) + (xl.shape[-1],),
                      (xl.strides[0],) + tuple(ss[i] * stride[i] for i in range(d)) +
                      tuple(ss[i] * dilation[i] for i in range(d)) + (xl.strides[-1],), writeable=False)


def _im2col(x, kern, st, pd, dl, out, groups):
    """(G, N*O, K*Cg) contiguous matrix of every window of x (N, C, *S) (the one big copy)."""
    win = _windows(_channels_last(x, pd), kern, st, dl, out)
    n, d, cg = x.shape[0], len(kern), x.shape[1] // groups
    no, kk = n * int(np.prod(out)), int(np.prod(kern))
    if groups == 1:
        return win.reshape(1, no, kk * cg)
    win = win.reshape((n,) + tuple(out) + tuple(kern) + (groups, cg))
    perm = (1 + 2 * d,) + tuple(range(1 + 2 * d)) + (2 + 2 * d,)
    return np.ascontiguousarray(win.transpose(perm)).reshape(groups, no, kk * cg)


def _weight_matrix(w, groups):
    """(Cout, Cg, *K) -> (G, Og, K*Cg), the column order of _im2col."""
    og, cg, kern = w.shape[0] // groups, w.shape[1], w.shape[2:]
    return np.moveaxis(w.reshape((groups, og, cg) + kern), 2, -1).reshape(groups, og, -1)


def _rows_of(t, groups):
    """(N, G*Og, *O) -> contiguous (G, N*O, Og)."""
    n, c, o = t.shape[0], t.shape[1], t.shape[2:]
    v = t.reshape((n, groups, c // groups) + o)
    v = np.moveaxis(np.moveaxis(v, 1, 0), 2, -1)                       # G, N, *O, Og
    return np.ascontiguousarray(v).reshape(groups, -1, c // groups)


def _from_rows(rows, n, out, bias):
    """(G, N*O, Og) -> contiguous (N, G*Og, *O) (+ bias), one strided copy."""
    groups, _, og = rows.shape
    d = len(out)
    y = np.empty((n, groups * og) + tuple(out), rows.dtype)
    src = rows.reshape((groups, n) + tuple(out) + (og,))
    src = np.moveaxis(np.moveaxis(src, 0, 1), -1, 2)                     # N, G, Og, *O
    dst = y.reshape((n, groups, og) + tuple(out))
    if bias is None:
        np.copyto(dst, src)
    else:
        np.add(src, bias.reshape((1, groups, og) + (1,) * d), out=dst)
    return y


def conv_forward(x, w, b, st, pd, dl, groups, out=None):
    """`out`: the output spatial size when fewer windows than fit are wanted (the grad_input of a
    transposed convolution whose output_padding left extra rows that no input position reached)."""
    d = w.ndim - 2
    kern = w.shape[2:]
    if out is None:
        out = [(x.shape[2 + i] + 2 * pd[i] - dl[i] * (kern[i] - 1) - 1) // st[i] + 1 for i in range(d)]
    out = tuple(out)
    y = conv_direct.forward(x, w, b, pd, dl, groups) if conv_direct.usable(x, w.shape, st, pd, dl, groups, out) else None
    if y is None:
        y = conv_im2col.forward(x, w, b, st, pd, dl, groups, out)
    if y is not None:
        return y
    cols = _im2col(x, kern, st, pd, dl, out, groups)                     # G, N*O, K*Cg
    wmt = np.ascontiguousarray(_weight_matrix(w, groups).transpose(0, 2, 1))   # G, K*Cg, Og
    rows = (cols[0] @ wmt[0])[None] if groups == 1 else np.matmul(cols, wmt)    # contiguous: BLAS per group
    return _from_rows(rows, x.shape[0], out, b)


def conv_input_grad(go, w, in_spatial, st, pd, dl, groups, b=None):
    """Adjoint of conv_forward in x: (N, Cout, *O) -> (N, G*Cg, *in_spatial) (+ bias, for use as a
    transposed convolution). Each window's gradient comes out of one matmul per group as a
    (K, Cg, N, *O) block, so col2im adds whole contiguous (Cg, N, *O) slabs into a channel-first
    padded buffer; windows that fall in the padding are cropped away."""
    y = _direct_input_grad(go, w, in_spatial, st, pd, dl, groups, b)
    if y is None:
        y = conv_im2col.input_grad(go, w, in_spatial, st, pd, dl, groups, b)
    if y is not None:
        return y
    d = w.ndim - 2
    n, out, kern = go.shape[0], tuple(go.shape[2:]), tuple(w.shape[2:])
    cg, og = w.shape[1], w.shape[0] // groups
    gcn = np.ascontiguousarray(np.moveaxis(go.reshape((n, groups, og) + out), 0, 2))   # G, Og, N, *O
    gcn = gcn.reshape(groups, og, -1)
    wmt = np.ascontiguousarray(_weight_matrix(w, groups).transpose(0, 2, 1))   # G, K*Cg, Og
    need = [(out[i] - 1) * st[i] + dl[i] * (kern[i] - 1) + 1 for i in range(d)]
    size = tuple(max(in_spatial[i] + 2 * pd[i], need[i]) for i in range(d))
    buf = np.zeros((groups, cg, n) + size, go.dtype)                    # channel-first, padded
    gcols = (wmt[0] @ gcn[0])[None] if groups == 1 else np.matmul(wmt, gcn)     # every window's gradient
    gcols = np.moveaxis(gcols.reshape((groups,) + kern + (cg, n) + out), 0, d)  # *K, G, Cg, N, *O
    for k in np.ndindex(*kern):                                          # col2im: one add per kernel offset
        dst = (slice(None),) * 3 + tuple(
            slice(k[i] * dl[i], k[i] * dl[i] + (out[i] - 1) * st[i] + 1, st[i]) for i in range(d))
        buf[dst] += gcols[k]
    crop = buf[(slice(None),) * 3 + tuple(slice(pd[i], pd[i] + in_spatial[i]) for i in range(d))]
    src = np.moveaxis(crop.reshape((groups * cg, n) + tuple(in_spatial)), 1, 0)
    y = np.empty((n, groups * cg) + tuple(in_spatial), go.dtype)
    if b is None:
        np.copyto(y, src)
    else:
        np.add(src, b.reshape((1, -1) + (1,) * d), out=y)
    return y


def _direct_input_grad(go, w, in_spatial, st, pd, dl, groups, b):
    """conv_input_grad by conv_direct (a stride-1 convolution of go padded by dl*(K-1) - pd), or None."""
    kern = w.shape[2:]
    pd2 = tuple(dl[i] * (kern[i] - 1) - pd[i] for i in range(len(kern)))
    if min(pd2) < 0:
        return None
    swapped = (groups * w.shape[1], w.shape[0] // groups) + tuple(kern)      # the convolution it runs
    if not conv_direct.usable(go, swapped, st, pd2, dl, groups, in_spatial, conv_direct.GRAD_INPUT_LIMIT):
        return None
    y = conv_direct.input_grad(go, w, in_spatial, pd, dl, groups)
    if y is not None and b is not None:
        y += b.reshape((1, -1) + (1,) * len(kern))
    return y


def conv_weight_grad(x, go, wshape, st, pd, dl, groups):
    """dL/dW of a forward convolution of x giving grad_output go: im2col(x)^T @ rows(go) per group."""
    gw = None
    if conv_direct.usable(x, wshape, st, pd, dl, groups, go.shape[2:], conv_direct.GRAD_WEIGHT_LIMIT):
        gw = conv_direct.weight_grad(x, go, wshape, pd, dl, groups)
    if gw is None:
        gw = conv_im2col.weight_grad(x, go, wshape, st, pd, dl, groups)
    if gw is not None:
        return gw
    cout, cg, kern = wshape[0], wshape[1], tuple(wshape[2:])
    og = cout // groups
    cols = _im2col(x, kern, st, pd, dl, go.shape[2:], groups)           # G, N*O, K*Cg
    rows = _rows_of(go, groups)                                          # G, N*O, Og
    gw = np.stack([cols[g].T @ rows[g] for g in range(groups)])         # G, K*Cg, Og
    gw = gw.reshape((groups,) + kern + (cg, og))
    gw = np.moveaxis(np.moveaxis(gw, -1, 1), -1, 2)                      # G, Og, Cg, *K
    return np.ascontiguousarray(gw).reshape(wshape)


def convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups):
    shape, dt, (d, st, pd, dl, op) = conv_spec(input, weight, bias, stride, padding, dilation, transposed,
                                               output_padding, groups)
    x, w = acc(input), acc(weight)
    b = None if bias is None else acc(bias)
    if 0 in shape or 0 in x.shape:
        return wrap(np.zeros(shape), dt) if 0 in shape else wrap(np.broadcast_to(
            np.zeros(1) if b is None else b.reshape((-1,) + (1,) * d), shape[1:])[None].repeat(shape[0], 0), dt)
    if transposed:
        y = conv_input_grad(x, w, shape[2:], st, pd, dl, groups, b)
    else:
        y = conv_forward(x, w, b, st, pd, dl, groups)
    return wrap(y, dt, fresh=True)


def convolution_backward(grad_output, input, weight, bias_sizes, stride, padding, dilation, transposed,
                         output_padding, groups, output_mask):
    _, dt, (d, st, pd, dl, op) = conv_spec(input, weight, None, stride, padding, dilation, transposed,
                                           output_padding, groups)
    x, w, go = acc(input), acc(weight), acc(grad_output)
    gi = gw = gb = None
    both = None if transposed or not (output_mask[0] and output_mask[1]) or \
        conv_direct.usable(x, w.shape, st, pd, dl, groups, go.shape[2:], conv_direct.GRAD_WEIGHT_LIMIT) else \
        conv_im2col.backward(x, go, w, st, pd, dl, groups)
    if both is not None:
        gi, gw = wrap(both[0], dt, fresh=True), wrap(both[1], dt, fresh=True)
        output_mask = (False, False, output_mask[2])
    if output_mask[0]:
        gi = conv_forward(go, w, None, st, pd, dl, groups, x.shape[2:]) if transposed else \
            conv_input_grad(go, w, x.shape[2:], st, pd, dl, groups)
        gi = wrap(gi, dt, fresh=True)
    if output_mask[1]:
        gw = conv_weight_grad(go, x, w.shape, st, pd, dl, groups) if transposed else \
            conv_weight_grad(x, go, w.shape, st, pd, dl, groups)
        gw = wrap(gw, dt, fresh=True)
    if output_mask[2] and bias_sizes is not None:
        gb = wrap(_bias_grad(go), dt)
    return gi, gw, gb


def _bias_grad(go):
    """go (N, C, *O) summed over all but C. numpy's multi-axis sum adds each (image, channel) row pairwise and
    the rows in image order; flat.sum_rows gives the same row sums (numpy's pairwise bits) in C, 2-3x faster
    (LeNet's (64, 6, 28, 28): 55 -> 26 us, (64, 16, 10, 10): 37 -> 12 us, one thread)."""
    n, c = go.shape[:2]
    if go.ndim >= 3 and go.flags.c_contiguous and go.size and go.dtype in (np.float32, np.float64):
        rows = flat.sum_rows(go.reshape(n, c, -1))
        if rows is not None:
            return rows.reshape(n, c).sum(0)
    return go.sum(axis=(0,) + tuple(range(2, go.ndim)))
