"""cpu antialiased 2-D resampling (F.interpolate(..., antialias=True)): separable, one dense
(out, in) weight matrix per spatial axis, applied with two 2-D matmuls.

Each output sample i along an axis of `n_in` inputs with scale = n_in / n_out (or 1/scale_factor,
or (n_in-1)/(n_out-1) with align_corners) sits at center = scale * (i + 0.5) in input pixel units.
When downsampling (scale >= 1) the filter is stretched by `scale`, so every input pixel under it
contributes (the antialiasing); when upsampling it keeps its own width. The taps are the input
pixels j with int(center - support + 0.5) <= j < int(center + support + 0.5), clipped to the image,
weighted filter((j + 0.5 - center) / max(scale, 1)) and normalised to sum to one:

    support = (taps / 2) * max(scale, 1)    taps: 2 bilinear (triangle), 4 bicubic (Keys cubic,
                                             a = -0.5), 6 lanczos (sinc(x) sinc(x/3), |x| < 3)

The op is linear in its input, out = Wh @ x @ Ww^T per plane, so the backward is
grad_in = Wh^T @ grad_out @ Ww with the same matrices. Weights are computed in the op's
accumulation dtype (float32 for float32 input, float64 for float64 and for uint8, whose weights
are then rounded to fixed point) like torch's.
"""
import numpy as np

from ..meta import interpolate_aa as M


def _triangle(x):
    return np.maximum(1 - np.abs(x), 0)


def _cubic(x, a=-0.5):
    x = np.abs(x)
    near = ((a + 2) * x - (a + 3)) * x * x + 1
    far = ((a * x - 5 * a) * x + 8 * a) * x - 4 * a
    return np.where(x < 1, near, np.where(x < 2, far, 0))


def _lanczos3(x):
    return np.where(np.abs(x) < 3, np.sinc(x) * np.sinc(x / 3), 0)


FILTERS = {"bilinear": (2, _triangle), "bicubic": (4, _cubic), "lanczos": (6, _lanczos3)}


def _scale(n_in, n_out, align_corners, s, ct):
    if align_corners:
        return ct.type((n_in - 1) / (n_out - 1)) if n_out > 1 else ct.type(0)
    if s is not None and s > 0:
        return ct.type(1.0 / s)
    return ct.type(n_in) / ct.type(n_out)


def aa_weights(mode, n_in, n_out, align_corners, s, ct=np.dtype(np.float64)):
    """The (n_out, n_in) antialiasing weight matrix of one axis, in dtype `ct`. An axis whose size
    does not change is left alone (identity), as torch's forward skips it even when a scale factor
    != 1 was given; the backward uses the same matrix, so gradients stay the true adjoint (torch's
    backward resamples such an axis anyway, which its own gradcheck rejects)."""
    if n_in == n_out:
        return np.eye(n_in, dtype=ct)
    taps, filt = FILTERS[mode]
    scale = _scale(n_in, n_out, align_corners, s, ct)
    half = ct.type(taps * 0.5)
    support = half * scale if scale >= 1 else half
    inv = ct.type(1) / scale if scale >= 1 else ct.type(1)
    center = scale * (np.arange(n_out, dtype=ct) + ct.type(0.5))
    lo = np.maximum((center - support + ct.type(0.5)).astype(np.int64), 0)
    hi = np.minimum((center + support + ct.type(0.5)).astype(np.int64), n_in)
    j = np.arange(n_in)
    inside = (j[None, :] >= lo[:, None]) & (j[None, :] < hi[:, None])
    w = np.where(inside, filt((j[None, :].astype(ct) - center[:, None] + ct.type(0.5)) * inv), 0).astype(ct)
    total = w.sum(axis=1, keepdims=True)
    return np.where(total != 0, w / np.where(total != 0, total, 1), w).astype(ct, copy=False)


def _int16_weights(w):
    """uint8 images are resampled in fixed point, like torch (and PIL): the weights scaled by
    2**precision and rounded half away from zero, precision as large as int16 allows."""
    wmax = float(np.abs(w).max()) if w.size else 0.0
    prec = 0
    while prec < 22 and int(0.5 + wmax * (1 << (prec + 1))) < (1 << 15):
        prec += 1
    scaled = w.astype(np.float64) * (1 << prec)
    return np.trunc(np.where(scaled < 0, scaled - 0.5, scaled + 0.5)).astype(np.int64), prec


def _uint8_pass(x, w, axis):
    """One fixed-point resampling pass along `axis`, rounded and clipped back to uint8."""
    q, prec = _int16_weights(w)
    y = np.moveaxis(np.tensordot(np.moveaxis(x, axis, -1).astype(np.int64), q.T, axes=1), -1, axis)
    if prec:
        y = (y + (1 << (prec - 1))) >> prec
    return np.clip(y, 0, 255).astype(np.uint8)


def _resample_uint8(x, wh, ww):
    """Width first, then height (torch's order), each pass skipped when that size does not change."""
    if ww.shape[0] != ww.shape[1]:
        x = _uint8_pass(x, ww, 3)
    if wh.shape[0] != wh.shape[1]:
        x = _uint8_pass(x, wh, 2)
    return x


def _resample(x, wh, ww):
    """wh @ x @ ww^T over the last two axes of (N, C, H, W) `x`, as two plain 2-D GEMMs (one numpy
    matmul over the batch of planes would run one small GEMM per plane, ~10x slower)."""
    n, c, h, w = x.shape
    oh, ow = wh.shape[0], ww.shape[0]
    # contiguous weight operands: BLAS is several times slower on a transposed view here
    t = (x.reshape(n * c * h, w) @ np.ascontiguousarray(ww.T)).reshape(n * c, h, ow)      # along W
    t = np.ascontiguousarray(t.transpose(1, 0, 2)).reshape(h, n * c * ow)
    y = (np.ascontiguousarray(wh) @ t).reshape(oh, n * c, ow).transpose(1, 0, 2)           # along H
    return y.reshape(n, c, oh, ow)


def _acc_dtype(dtype):
    return np.dtype(np.float64) if dtype._np in (np.float64, np.uint8) else np.dtype(np.float32)


def _write(out, arr):
    """Store arr into the (possibly channels-last) output tensor allocated by the meta function."""
    if out.dtype._np.kind == "u":
        arr = np.clip(np.rint(arr), 0, 255)
    np.copyto(out._np, arr, casting="unsafe")
    return out


def _forward(mode, name):
    meta = getattr(M, name)

    def f(self, output_size, align_corners, scales_h=None, scales_w=None):
        out = meta(self, output_size, align_corners, scales_h, scales_w)
        if out.numel() == 0:
            return out
        ct = _acc_dtype(self.dtype)
        (h, w), (oh, ow) = self._size[2:], out._size[2:]
        wh = aa_weights(mode, h, oh, align_corners, scales_h, ct)
        ww = aa_weights(mode, w, ow, align_corners, scales_w, ct)
        if self.dtype._np == np.uint8:
            return _write(out, _resample_uint8(self._np, wh, ww))
        return _write(out, _resample(self._np.astype(ct, copy=False), wh, ww))
    f.__name__ = name
    return f


def _backward(mode, name):
    meta = getattr(M, name)

    def f(grad_output, output_size, input_size, align_corners, scales_h=None, scales_w=None):
        out = meta(grad_output, output_size, input_size, align_corners, scales_h, scales_w)
        if out.numel() == 0:
            return out
        ct = _acc_dtype(grad_output.dtype)
        (h, w), (oh, ow) = out._size[2:], grad_output._size[2:]
        wh = aa_weights(mode, h, oh, align_corners, scales_h, ct)
        ww = aa_weights(mode, w, ow, align_corners, scales_w, ct)
        return _write(out, _resample(grad_output._np.astype(ct, copy=False), wh.T, ww.T))
    f.__name__ = name
    return f


_upsample_bilinear2d_aa = _forward("bilinear", "_upsample_bilinear2d_aa")
_upsample_bicubic2d_aa = _forward("bicubic", "_upsample_bicubic2d_aa")
_upsample_lanczos2d_aa = _forward("lanczos", "_upsample_lanczos2d_aa")
_upsample_bilinear2d_aa_backward = _backward("bilinear", "_upsample_bilinear2d_aa_backward")
_upsample_bicubic2d_aa_backward = _backward("bicubic", "_upsample_bicubic2d_aa_backward")
_upsample_lanczos2d_aa_backward = _backward("lanczos", "_upsample_lanczos2d_aa_backward")
