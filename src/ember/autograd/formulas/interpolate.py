"""Backward helpers of the resampling ops (torch's FunctionsManual.cpp): the linear/bilinear/bicubic
upsampling's transposed interpolation and grid_sampler_2d's backward."""

import numpy as np

from ..._generated import functions as at  # the ember.* bindings below the facade (torch's at:: functions)
from ..._grad_mode import is_grad_enabled
from ..._core import dtype as _D
from ..._core.tls import state
from ._common import _const, _eval, _f64, _i64, _on_meta

__all__ = ["grid_sampler_2d_backward_", "interp_backward"]


def _interp_matrix(fn, self, axis):
    """The (in, out) interpolation matrix of a separable resampling op along spatial `axis`: feed it
    one-hot rows (an identity matrix), constant along the other axes (the weights along those sum to one).
    Written in ops, so tracing modes and fake tensors record it."""
    size = self._size
    k = size[axis]
    shape = [k, 1] + [1] * (len(size) - 2)
    shape[axis] = k
    e = at.eye(k, dtype=_f64(), device=self.device).reshape(shape).expand([k, 1] + list(size[2:])).contiguous()
    out = _eval(fn, e).select(1, 0)
    for d in reversed(range(2, len(size))):     # keep the `axis` column of the output's spatial dims
        if d != axis:
            out = out.select(d - 1, 0)
    return out.to(self.dtype).contiguous()


def interp_backward(grad, self, fn):
    """Backward of linear/bilinear/bicubic upsampling: grad_in = A_h^T grad A_w per plane."""
    g = grad
    if self.dim() == 3:
        return g.matmul(_interp_matrix(fn, self, 2).transpose(0, 1))
    ah = _interp_matrix(fn, self, 2)          # (H, OH)
    aw = _interp_matrix(fn, self, 3)          # (W, OW)
    return ah.matmul(g).matmul(aw.transpose(0, 1))


_BILINEAR, _NEAREST, _BICUBIC = 0, 1, 2


_ZEROS, _BORDER, _REFLECTION = 0, 1, 2


_A_CUBIC = -0.75


def _unnorm(g, size, align):
    """(coordinate, d coordinate / d g)."""
    if align:
        return (g + 1) / 2 * (size - 1), (size - 1) / 2
    return ((g + 1) * size - 1) / 2, size / 2


class _NumpyGeometry:
    """The tap geometry in numpy: the eager path (no tracing mode, the grid has an array; a few numpy calls
    instead of some sixty dispatched ops)."""
    clamp, floor, fmod, where, rint = np.clip, np.floor, np.fmod, np.where, np.rint
    zeros_like, ones_like = np.zeros_like, np.ones_like

    @staticmethod
    def grid(grid):
        return grid._np

    @staticmethod
    def like(c, ref):
        return c.astype(ref.dtype)

    @staticmethod
    def ints(c):
        return c.astype(np.int64)

    @staticmethod
    def weight(c, dtype):
        return _const(c, dtype)

    @staticmethod
    def cat_index(parts):
        return _const(np.concatenate(parts, axis=1)[:, None, :], _i64())

    @staticmethod
    def cat_mask(parts):
        return _const(np.concatenate(parts, axis=1)[:, None, :], _D.bool_)


class _OpGeometry:
    """The tap geometry in ember ops on the detached grid: what tracing modes and fake tensors record."""
    where, zeros_like, ones_like = at.where, at.zeros_like, at.ones_like

    @staticmethod
    def grid(grid):
        return grid.detach()

    @staticmethod
    def clamp(c, lo, hi):
        return c.clamp(lo, hi)

    @staticmethod
    def floor(c):
        return c.floor()

    @staticmethod
    def fmod(c, d):
        return c.fmod(d)

    @staticmethod
    def rint(c):
        return c.round()

    @staticmethod
    def like(c, ref):
        return c.to(ref.dtype)

    @staticmethod
    def ints(c):
        return c.to(_i64())

    @staticmethod
    def weight(c, dtype):
        return c.to(dtype)

    @staticmethod
    def cat_index(parts):
        return at.cat(parts, 1).unsqueeze(1)

    cat_mask = cat_index


def _clip_slope(xp, c, size):
    """clip to [0, size-1] and its slope: 0 at and beyond the ends (torch's clip_coordinates_set_grad)."""
    return xp.clamp(c, 0, size - 1), xp.like((c > 0) & (c < size - 1), c)


def _reflect_slope(xp, c, lo2, hi2):
    """reflect into [lo2/2, hi2/2] and its slope (+-1; torch's reflect_coordinates_set_grad)."""
    if lo2 == hi2:
        return xp.zeros_like(c), xp.zeros_like(c)
    mn, span = lo2 / 2, (hi2 - lo2) / 2
    s = 1 - 2 * xp.like(c - mn < 0, c)
    a = abs(c - mn)
    extra, flips = xp.fmod(a, span), xp.floor(a / span)
    even = xp.fmod(flips, 2) == 0
    return xp.where(even, extra + mn, span - extra + mn), xp.where(even, s, -s)


def _pad_slope(xp, c, size, mode, align):
    if mode == _BORDER:
        return _clip_slope(xp, c, size)
    if mode == _REFLECTION:
        r, s = _reflect_slope(xp, c, 0, 2 * (size - 1)) if align else _reflect_slope(xp, c, -1, 2 * size - 1)
        r, s2 = _clip_slope(xp, r, size)
        return r, s * s2
    return c, xp.ones_like(c)


def _cubic(t):
    """The 4 cubic-convolution weights of fraction t and their derivatives in t (ember ops)."""
    a = _A_CUBIC

    def near(u):
        return ((a + 2) * u - (a + 3)) * u * u + 1

    def far(u):
        return ((a * u - 5 * a) * u + 8 * a) * u - 4 * a

    def dnear(u):
        return (3 * (a + 2) * u - 2 * (a + 3)) * u

    def dfar(u):
        return (3 * a * u - 10 * a) * u + 8 * a
    w = [far(t + 1), near(t), near(1 - t), far(2 - t)]
    dw = [dfar(t + 1), dnear(t), -dnear(1 - t), -dfar(2 - t)]
    return w, dw


def _taps(xp, grid, h, w, mode, padding_mode, align, gx_t, gy_t):
    """The taps of every output point: flat plane index (N, L) and in-bounds mask (arrays of the geometry
    `xp`), weight and its derivatives in the x / y grid coordinates (ember tensors of grid_t's dtype, (N, L))."""
    n = grid._size[0]
    points = 1
    for s in grid._size[1:-1]:
        points *= s
    g = xp.grid(grid).reshape(n, points, 2)     # explicit: -1 cannot be inferred when n == 0
    gx, gy = g[:, :, 0], g[:, :, 1]
    ux, sx = _unnorm(gx, w, align)
    uy, sy = _unnorm(gy, h, align)
    dt = gx_t.dtype
    taps = []

    def add(iy, ix, wt, dx, dy):
        iy, ix = xp.ints(iy), xp.ints(ix)
        ok = (iy >= 0) & (iy < h) & (ix >= 0) & (ix < w)
        taps.append((xp.clamp(iy, 0, h - 1) * w + xp.clamp(ix, 0, w - 1), ok, wt, dx, dy))
    if mode == _BICUBIC:                       # the coordinate is not padded; each tap index is
        fx, fy = xp.floor(ux), xp.floor(uy)
        tx = gx_t * sx + xp.weight(ux - fx - sx * gx, dt)
        ty = gy_t * sy + xp.weight(uy - fy - sy * gy, dt)
        (wx, dwx), (wy, dwy) = _cubic(tx), _cubic(ty)
        for i in range(4):
            py = _pad_slope(xp, fy - 1 + i, h, padding_mode, align)[0]
            for j in range(4):
                px = _pad_slope(xp, fx - 1 + j, w, padding_mode, align)[0]
                add(py, px, wy[i] * wx[j], wy[i] * dwx[j] * sx, dwy[i] * wx[j] * sy)
        return taps
    ix, kx = _pad_slope(xp, ux, w, padding_mode, align)
    iy, ky = _pad_slope(xp, uy, h, padding_mode, align)
    if mode == _NEAREST:
        add(xp.rint(iy), xp.rint(ix), None, None, None)
        return taps
    x0, y0 = xp.floor(ix), xp.floor(iy)
    ax, ay = kx * sx, ky * sy                   # d padded coordinate / d grid value
    cax, cay = xp.weight(ax, dt), xp.weight(ay, dt)
    tx = gx_t * cax + xp.weight(ix - x0 - ax * gx, dt)
    ty = gy_t * cay + xp.weight(iy - y0 - ay * gy, dt)
    for yo, wy_, dwy in ((0, 1 - ty, -cay), (1, ty, cay)):
        for xo, wx_, dwx in ((0, 1 - tx, -cax), (1, tx, cax)):
            add(y0 + yo, x0 + xo, wy_ * wx_, wy_ * dwx, dwy * wx_)
    return taps


def _grid_backward_c(grad, input, grid, taps, interpolation_mode, mask):
    """The first-order grads by csrc/taps.c (no graph is recorded, so the channel loops need not be
    ember ops), or None when C does not apply."""
    from ...kernels.cpu import interpolate_taps
    if is_grad_enabled() or input._np is None or grad._np is None:
        return None
    dt = input._np.dtype
    if grad._np.dtype != dt or grid._np.dtype != dt or interpolate_taps.kernel("scatter", dt) is None:
        return None
    n, c, h, w = input._size
    ho, wo = grid._size[1:3]
    idx = np.stack([np.where(t[1], t[0], -1) for t in taps], 1)                       # N, k, L
    go = np.ascontiguousarray(grad._np).reshape(n, c, ho * wo)
    gi = gg = None
    if mask[0]:
        wt = np.ones(idx.shape, dt) if taps[0][2] is None else np.stack([t[2]._np for t in taps], 1).astype(dt)
        gi = _const(interpolate_taps.scatter(go, idx, np.ascontiguousarray(wt), h * w).reshape(n, c, h, w), input.dtype)
    if mask[1]:
        if taps[0][2] is None:
            gg = at.zeros_like(grid)
        else:
            prod = interpolate_taps.dot(go, np.ascontiguousarray(input._np).reshape(n, c, h * w), idx)   # N, k, L
            gx = (prod * np.stack([t[3]._np for t in taps], 1)).sum(1)
            gy = (prod * np.stack([t[4]._np for t in taps], 1)).sum(1)
            gg = _const(np.stack([gx, gy], -1).reshape(n, ho, wo, 2), input.dtype)
    return gi, gg


def grid_sampler_2d_backward_(grad, input, grid, interpolation_mode, padding_mode, align_corners, mask):
    """grad_input: grad * tap weight scattered to every in-bounds tap; grad_grid: sum over channels of
    grad * tap value * d(tap weight)/d(grid). Nearest sampling has a zero grid grad (torch)."""
    if _on_meta(grad, input, grid):
        return (at.empty_like(input) if mask[0] else None), (at.empty_like(grid) if mask[1] else None)
    n, c, h, w = input._size
    ho, wo = grid._size[1:3]
    L = ho * wo
    gflat = grid.reshape(n, L, 2)
    xp = _OpGeometry if state.mode_stack or grid._np is None else _NumpyGeometry
    taps = _taps(xp, grid, h, w, interpolation_mode, padding_mode, align_corners, gflat[..., 0], gflat[..., 1])
    if xp is _NumpyGeometry:
        fast = _grid_backward_c(grad, input, grid, taps, interpolation_mode, mask)
        if fast is not None:
            return fast
    go = grad.reshape(n, c, L)
    gi = gg = None
    k = len(taps)
    idx = xp.cat_index([t[0] for t in taps]).expand(n, c, k * L)
    ok = xp.cat_mask([t[1] for t in taps])      # N, 1, kL: outside taps are left out (where, not * 0: an inf
                                                # must not leak)
    if mask[0]:
        wts = at.ones((), dtype=grad.dtype) if taps[0][2] is None else at.cat([t[2] for t in taps], 1).unsqueeze(1)
        vals = at.where(ok, go.repeat(1, 1, k) * wts, 0)
        gi = at.zeros((n, c, h * w), dtype=grad.dtype).scatter_add(2, idx, vals).reshape(n, c, h, w)
    if mask[1]:
        if taps[0][2] is None:
            gg = at.zeros_like(grid)
        else:
            v = at.where(ok, input.reshape(n, c, h * w).gather(2, idx), 0)               # N, C, kL
            prod = (go.repeat(1, 1, k) * v).sum(1)                                      # N, kL
            dx = at.cat([t[3] for t in taps], 1)
            dy = at.cat([t[4] for t in taps], 1)
            gx = (prod * dx).reshape(n, k, L).sum(1)
            gy = (prod * dy).reshape(n, k, L).sum(1)
            gg = at.stack([gx, gy], -1).reshape(n, ho, wo, 2)
    return gi, gg
