"""cpu grid_sampler_2d (torch's GridSampler.cpp): unnormalise, apply the padding mode, then gather
the 1 (nearest), 4 (bilinear) or 16 (bicubic) taps with advanced indexing over the whole grid."""
import numpy as np

from ..meta.grid_sample import grid_spec
from .runtime.arrays import wrap
from . import interpolate_taps
from .interpolate import _cubic_w


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
