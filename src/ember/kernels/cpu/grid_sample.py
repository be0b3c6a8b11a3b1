"""cpu grid_sampler_2d (torch's GridSampler.cpp): unnormalise, apply the padding mode, then gather
the 1 (nearest), 4 (bilinear) or 16 (bicubic) taps with advanced indexing over the whole grid."""
import numpy as np

from ..meta.grid_sample import grid_spec
from ..meta.nn_common import wrap
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
    """x: (N, C, H, W); iy/ix int arrays (N, Ho, Wo); out-of-range taps read 0 -> (N, C, Ho, Wo)."""
    h, w = x.shape[-2:]
    ok = (iy >= 0) & (iy < h) & (ix >= 0) & (ix < w)
    v = x[n_idx, :, np.clip(iy, 0, h - 1), np.clip(ix, 0, w - 1)]        # N, Ho, Wo, C
    return np.moveaxis(v * ok[..., None], -1, 1)


def grid_sampler_2d(input, grid, interpolation_mode, padding_mode, align_corners):
    shape, dt = grid_spec(input, grid, interpolation_mode, padding_mode)
    x, g = input._np, grid._np
    n, c, h, w = x.shape
    n_idx = np.arange(n)[:, None, None]
    gx, gy = _unnormalize(g[..., 0], w, align_corners), _unnormalize(g[..., 1], h, align_corners)
    if interpolation_mode == 2:                                          # bicubic: pad each tap
        fx, fy = np.floor(gx), np.floor(gy)
        wx, wy = _cubic_w(gx - fx), _cubic_w(gy - fy)
        out = 0
        for i in range(4):
            for j in range(4):
                ty = _pad(fy - 1 + i, h, padding_mode, align_corners)
                tx = _pad(fx - 1 + j, w, padding_mode, align_corners)
                v = _gather(x, ty.astype(np.int64), tx.astype(np.int64), n_idx)
                out = out + v * (wy[i] * wx[j])[:, None]
        return wrap(out, dt)
    gx, gy = _pad(gx, w, padding_mode, align_corners), _pad(gy, h, padding_mode, align_corners)
    if interpolation_mode == 1:                                          # nearest (round half to even)
        return wrap(_gather(x, np.rint(gy).astype(np.int64), np.rint(gx).astype(np.int64), n_idx), dt)
    x0, y0 = np.floor(gx), np.floor(gy)
    tx, ty = gx - x0, gy - y0
    x0, y0 = x0.astype(np.int64), y0.astype(np.int64)
    out = (_gather(x, y0, x0, n_idx) * ((1 - tx) * (1 - ty))[:, None] +
           _gather(x, y0, x0 + 1, n_idx) * (tx * (1 - ty))[:, None] +
           _gather(x, y0 + 1, x0, n_idx) * ((1 - tx) * ty)[:, None] +
           _gather(x, y0 + 1, x0 + 1, n_idx) * (tx * ty)[:, None])
    return wrap(out, dt)
