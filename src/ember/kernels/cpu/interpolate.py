"""cpu upsample kernels: separable, one gather (np.take) + weighted sum per spatial axis
(nearest, nearest-exact, linear with/without align_corners, cubic with A=-0.75)."""
import numpy as np

from ..meta.interpolate import upsample_spec
from .runtime.arrays import acc, wrap
from ..meta.interpolate import grid_spec
from . import interpolate_taps

A_CUBIC = -0.75


def _scale(i, o, s, align):
    if align:
        return (i - 1) / (o - 1) if o > 1 else 0.0
    return 1.0 / s if s else i / o


def _nearest(x, axis, i, o, s, exact):
    sc = 1.0 / s if s else i / o
    dst = np.arange(o, dtype=np.float64)
    src = np.floor((dst + 0.5) * sc if exact else dst * np.float32(sc)).astype(np.int64)
    return np.take(x, np.minimum(src, i - 1), axis=axis)


def _bshape(x, axis, w):
    shp = [1] * x.ndim
    shp[axis] = -1
    return w.reshape(shp).astype(x.dtype)


def _linear(x, axis, i, o, s, align):
    sc = _scale(i, o, s, align)
    dst = np.arange(o, dtype=x.dtype)
    src = dst * x.dtype.type(sc) if align else np.maximum((dst + 0.5) * x.dtype.type(sc) - 0.5, 0)
    i0 = np.minimum(np.floor(src).astype(np.int64), i - 1)
    i1 = np.minimum(i0 + 1, i - 1)
    l1 = src - i0
    return np.take(x, i0, axis=axis) * _bshape(x, axis, 1 - l1) + np.take(x, i1, axis=axis) * _bshape(x, axis, l1)


def _cubic_w(t):
    a = A_CUBIC

    def near(u):
        return ((a + 2) * u - (a + 3)) * u * u + 1

    def far(u):
        return ((a * u - 5 * a) * u + 8 * a) * u - 4 * a
    return far(t + 1), near(t), near(1 - t), far(2 - t)


def _cubic(x, axis, i, o, s, align):
    sc = _scale(i, o, s, align)
    dst = np.arange(o, dtype=x.dtype)
    src = dst * x.dtype.type(sc) if align else (dst + 0.5) * x.dtype.type(sc) - 0.5
    f = np.floor(src)
    t = src - f
    f = f.astype(np.int64)
    out = 0
    for k, w in enumerate(_cubic_w(t)):          # the 4 taps of the cubic kernel
        out = out + np.take(x, np.clip(f - 1 + k, 0, i - 1), axis=axis) * _bshape(x, axis, w)
    return out


def _run(input, output_size, scale_factors, d, name, fn, *extra):
    shape, o, scales = upsample_spec(input, output_size, scale_factors, d, name)
    x = acc(input)
    for k in range(d):
        ax = 2 + k
        x = fn(x, ax, x.shape[ax], o[k], scales[k], *extra)
    return wrap(x, input.dtype)


def upsample_nearest1d(input, output_size, scale_factors):
    return _run(input, output_size, scale_factors, 1, "upsample_nearest1d", _nearest, False)


def upsample_nearest2d(input, output_size, scale_factors):
    return _run(input, output_size, scale_factors, 2, "upsample_nearest2d", _nearest, False)


def _upsample_nearest_exact2d(input, output_size, scale_factors):
    return _run(input, output_size, scale_factors, 2, "_upsample_nearest_exact2d", _nearest, True)


def upsample_linear1d(input, output_size, align_corners, scale_factors):
    return _run(input, output_size, scale_factors, 1, "upsample_linear1d", _linear, align_corners)


def upsample_bilinear2d(input, output_size, align_corners, scale_factors):
    return _run(input, output_size, scale_factors, 2, "upsample_bilinear2d", _linear, align_corners)


def upsample_bicubic2d(input, output_size, align_corners, scale_factors):
    return _run(input, output_size, scale_factors, 2, "upsample_bicubic2d", _cubic, align_corners)


def _unnormalize(c, size, align):
    return (c + 1) / 2 * (size - 1) if align else ((c + 1) * size - 1) / 2


def _reflect(c, lo2, hi2):
    if lo2 == hi2:
        return np.zeros_like(c)
    mn, span = lo2 / 2, (hi2 - lo2) / 2
    c = np.abs(c - mn)
    extra = np.fmod(c, span)
    flips = np.floor(c / span)
    return np.where(flips % 2 == 0, extra + mn, span - extra + mn)


def _pad(c, size, mode, align):
    if mode == 1:
        return np.clip(c, 0, size - 1)
    if mode == 2:
        c = _reflect(c, 0, 2 * (size - 1)) if align else _reflect(c, -1, 2 * size - 1)
        return np.clip(c, 0, size - 1)
    return c


def _gather(x, iy, ix, n_idx):
    """x: (N, C, H, W); iy/ix int arrays (N, Ho, Wo); out-of-range taps read 0 (never x: an inf or NaN
    there must not leak in, torch does not read it) -> (N, C, Ho, Wo)."""
    h, w = x.shape[-2:]
    ok = (iy >= 0) & (iy < h) & (ix >= 0) & (ix < w)
    v = x[n_idx, :, np.clip(iy, 0, h - 1), np.clip(ix, 0, w - 1)]        # N, Ho, Wo, C
    return np.moveaxis(np.where(ok[..., None], v, 0), -1, 1)


def _taps(x, g, interpolation_mode, padding_mode, align_corners):
    """[(iy, ix, weight)] of every output point: int64 (N, Ho, Wo) tap coordinates (maybe outside the
    input) and the tap's weight (None for nearest)."""
    h, w = x.shape[-2:]
    gx, gy = _unnormalize(g[..., 0], w, align_corners), _unnormalize(g[..., 1], h, align_corners)
    if interpolation_mode == 2:                                          # bicubic: pad each tap
        fx, fy = np.floor(gx), np.floor(gy)
        wx, wy = _cubic_w(gx - fx), _cubic_w(gy - fy)
        taps = []
        for i in range(4):
            ty = _pad(fy - 1 + i, h, padding_mode, align_corners).astype(np.int64)
            for j in range(4):
                tx = _pad(fx - 1 + j, w, padding_mode, align_corners).astype(np.int64)
                taps.append((ty, tx, wy[i] * wx[j]))
        return taps
    gx, gy = _pad(gx, w, padding_mode, align_corners), _pad(gy, h, padding_mode, align_corners)
    if interpolation_mode == 1:                                          # nearest (round half to even)
        return [(np.rint(gy).astype(np.int64), np.rint(gx).astype(np.int64), None)]
    x0, y0 = np.floor(gx), np.floor(gy)
    tx, ty = gx - x0, gy - y0
    x0, y0 = x0.astype(np.int64), y0.astype(np.int64)
    return [(y0, x0, (1 - tx) * (1 - ty)), (y0, x0 + 1, tx * (1 - ty)), (y0 + 1, x0, (1 - tx) * ty),
            (y0 + 1, x0 + 1, tx * ty)]


def tap_arrays(taps, h, w, dtype):
    """The taps as csrc/taps.c wants them: flat plane indices (N, k, L), -1 outside the input, and
    weights (N, k, L) of dtype (1 for nearest)."""
    n, L = taps[0][0].shape[0], int(np.prod(taps[0][0].shape[1:]))
    idx = np.stack([np.where((iy >= 0) & (iy < h) & (ix >= 0) & (ix < w), iy * w + ix, -1).reshape(n, L)
                    for iy, ix, _ in taps], 1)
    wt = np.stack([np.ones((n, L), dtype) if wgt is None else wgt.reshape(n, L).astype(dtype)
                   for _, _, wgt in taps], 1)
    return idx, wt


def grid_sampler_2d(input, grid, interpolation_mode, padding_mode, align_corners):
    shape, dt = grid_spec(input, grid, interpolation_mode, padding_mode)
    x, g = input._np, grid._np
    n, c, h, w = x.shape
    taps = _taps(x, g, interpolation_mode, padding_mode, align_corners)
    if interpolate_taps.kernel("gather", x.dtype) is not None and x.dtype == g.dtype:
        idx, wt = tap_arrays(taps, h, w, x.dtype)
        out = interpolate_taps.gather(x.reshape(n, c, h * w), idx, wt)
        if out is not None:
            return wrap(out.reshape(shape), dt)
    n_idx = np.arange(n)[:, None, None]
    out = 0
    for iy, ix, wgt in taps:
        v = _gather(x, iy, ix, n_idx)
        out = out + (v if wgt is None else v * wgt[:, None])
    return wrap(out, dt)
