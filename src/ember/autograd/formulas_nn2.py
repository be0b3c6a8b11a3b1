"""Helpers for the formulas in native/derivatives_nn2.yaml: max_unpool2d, _cdist_forward, _embedding_bag and
grid_sampler_2d (torch's FunctionsManual.cpp / the CPU backward kernels they stand for).

Each is written in ember ops over the differentiable arguments (grad and the inputs), so the backward is
itself differentiable. Integer positions (tap indices, masks, padding-mode slopes) are piecewise constant in
the inputs: they are computed once in numpy and enter as constants."""
import numpy as np

from .formulas import _const, sum_to


def _e():
    import ember
    return ember


def _meta(*ts):
    """On the meta device there are no values to build index constants from: the grads are shapes only."""
    return any(t is not None and t.device.type == "meta" for t in ts)


def _ints(arr):
    from .._core import dtype as D
    return _const(arr, D.int64)


# ---------------------------------------------------------------- max_unpool2d
def max_unpool2d_backward_(grad, indices, self_sizes):
    """Each input element went to one output position (its index in the plane): read the grad there."""
    flat = grad.reshape(tuple(grad._size[:-2]) + (-1,))
    return flat.gather(-1, indices.reshape(tuple(indices._size[:-2]) + (-1,))).reshape(tuple(self_sizes))


# ---------------------------------------------------------------- cdist
def _uses_mm(p, compute_mode, P, R):
    """The same test as the forward kernel (kernels/cpu/distance.py): p=2 through one matmul."""
    return p == 2 and (compute_mode == 1 or (compute_mode is None and (P > 25 or R > 25)))


def _cdist_grad(grad, x1, x2, p, dist, mm):
    """d/dx1 of sum(grad * cdist(x1, x2)) before summing over broadcast batch dims (torch's _cdist_backward;
    with `mm`, its _euclidean_dist_backward). Where a distance is 0 the grad is 0 (the p-norm is not
    differentiable there)."""
    e = _e()
    if p == 1 and not e.is_grad_enabled() and grad.device.type == "cpu":   # no graph to record: C loop
        from ..kernels.cpu import distance
        r = distance.p1_grad(grad._np, x1._np, x2._np)
        if r is not None:
            return e.from_numpy(r)
    if p == 0:                                  # piecewise constant: the count of unequal coordinates
        return e.zeros(tuple(grad._size[:-2]) + tuple(x1._size[-2:]), dtype=x1.dtype)
    zero = dist == 0
    if mm:                                      # sum_j g_ij / d_ij * (x1_i - x2_j), no (P, R, M) tensor
        ratio = e.where(zero, e.zeros_like(grad), grad / e.where(zero, e.ones_like(dist), dist))
        return ratio.sum(-1, keepdim=True) * x1 - ratio.matmul(x2)
    diff = x1.unsqueeze(-2) - x2.unsqueeze(-3)                                   # ..., P, R, M
    g = grad.unsqueeze(-1)
    if p == 1:
        return (g * diff.sign()).sum(-2)
    if np.isinf(p):                             # every coordinate that attains the max shares the grad
        hit = diff.abs() == dist.unsqueeze(-1)
        return (g * diff.sign() * hit.to(grad.dtype)).sum(-2)
    ad = diff.abs()
    bad = zero.unsqueeze(-1) | (ad == 0) if p < 1 else zero.unsqueeze(-1)
    safe_d = e.where(zero, e.ones_like(dist), dist).unsqueeze(-1)
    safe_a = e.where(ad == 0, e.ones_like(ad), ad) if p < 1 else ad
    term = diff.sign() * safe_a ** (p - 1) * g / safe_d ** (p - 1)
    return e.where(bad, e.zeros_like(term), term).sum(-2)


def cdist_backward_(grad, x1, x2, p, compute_mode, result, which):
    """Grad of _cdist_forward for x1 (which=0) or x2 (which=1); x2's is x1's with the roles swapped."""
    mm = _uses_mm(p, compute_mode, x1._size[-2], x2._size[-2])
    if which == 0:
        g = _cdist_grad(grad, x1, x2, p, result, mm)
        return sum_to(g, x1._size) if g._size != x1._size else g
    g = _cdist_grad(grad.mT, x2, x1, p, result.mT, mm)
    return sum_to(g, x2._size) if g._size != x2._size else g


# ---------------------------------------------------------------- embedding_bag
SUM, MEAN, MAX = 0, 1, 2


def _kept(indices, padding_idx):
    idx = indices._np.astype(np.int64)
    return idx >= 0 if padding_idx is None or padding_idx < 0 else idx != padding_idx


def embedding_bag_weight_backward(grad, indices, offset2bag, bag_size, max_indices, num_weights,
                                  scale_grad_by_freq, mode, per_sample_weights, padding_idx):
    """Each index's row got grad[its bag] (times its per-sample weight, / bag size in mean mode); in max
    mode only the row that won each (bag, column) did. Padding indices and empty bags give nothing."""
    e = _e()
    d = grad._size[-1]
    zeros = e.zeros((int(num_weights), d), dtype=grad.dtype, device=indices.device)
    if _meta(grad, indices):
        return zeros
    idx = indices._np.astype(np.int64).reshape(-1)
    if mode == MAX:
        full = _const((bag_size._np > 0)[:, None], grad.dtype)
        g = grad * full
        if scale_grad_by_freq:
            freq = np.bincount(idx, minlength=int(num_weights)).astype(np.float64)
            g = g / _const(np.maximum(freq[max_indices._np], 1), grad.dtype)
        return zeros.scatter_add(0, max_indices, g)
    keep = _kept(indices, padding_idx)
    scale = keep.astype(np.float64)
    if mode == MEAN:
        scale = scale / np.maximum(bag_size._np[offset2bag._np], 1)
    if scale_grad_by_freq:
        scale = scale / np.maximum(np.bincount(idx, minlength=int(num_weights))[idx], 1)
    rows = grad.index_select(0, offset2bag) * _const(scale[:, None], grad.dtype)
    if per_sample_weights is not None:
        rows = rows * per_sample_weights.unsqueeze(-1)
    return zeros.index_add(0, indices, rows)


def embedding_bag_psw_backward(grad, weight, indices, offset2bag, mode, padding_idx):
    """d out[bag] / d psw[i] = weight[indices[i]] (sum mode); 0 for padding indices."""
    if mode != SUM:
        raise NotImplementedError("embedding_bag_backward: per_sample_weights only supported for mode='sum'")
    if _meta(grad, indices):
        return _e().empty(tuple(indices._size), dtype=grad.dtype, device=indices.device)
    keep = _const(_kept(indices, padding_idx), grad.dtype)
    return (grad.index_select(0, offset2bag) * weight.index_select(0, indices)).sum(-1) * keep


# ---------------------------------------------------------------- grid_sampler_2d
BILINEAR, NEAREST, BICUBIC = 0, 1, 2
ZEROS, BORDER, REFLECTION = 0, 1, 2
A_CUBIC = -0.75


def _unnorm(g, size, align):
    """(coordinate, d coordinate / d g)."""
    if align:
        return (g + 1) / 2 * (size - 1), (size - 1) / 2
    return ((g + 1) * size - 1) / 2, size / 2


def _clip_slope(c, size):
    """clip to [0, size-1] and its slope: 0 at and beyond the ends (torch's clip_coordinates_set_grad)."""
    return np.clip(c, 0, size - 1), ((c > 0) & (c < size - 1)).astype(c.dtype)


def _reflect_slope(c, lo2, hi2):
    """reflect into [lo2/2, hi2/2] and its slope (+-1; torch's reflect_coordinates_set_grad)."""
    if lo2 == hi2:
        return np.zeros_like(c), np.zeros_like(c)
    mn, span = lo2 / 2, (hi2 - lo2) / 2
    s = np.where(c - mn < 0, -1.0, 1.0)
    a = np.abs(c - mn)
    extra, flips = np.fmod(a, span), np.floor(a / span)
    even = flips % 2 == 0
    return np.where(even, extra + mn, span - extra + mn), np.where(even, s, -s)


def _pad_slope(c, size, mode, align):
    if mode == BORDER:
        return _clip_slope(c, size)
    if mode == REFLECTION:
        r, s = _reflect_slope(c, 0, 2 * (size - 1)) if align else _reflect_slope(c, -1, 2 * size - 1)
        r, s2 = _clip_slope(r, size)
        return r, s * s2
    return c, np.ones_like(c)


def _cubic(t):
    """The 4 cubic-convolution weights of fraction t and their derivatives in t (ember ops)."""
    a = A_CUBIC

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


def _taps(g, h, w, mode, padding_mode, align, gx_t, gy_t):
    """The taps of every output point: flat plane index (N, L) and in-bounds mask (numpy), weight and its
    derivatives in the x / y grid coordinates (ember tensors of grid_t, (N, L))."""
    L = int(np.prod(g.shape[1:-1]))
    gx, gy = g[..., 0].reshape(g.shape[0], L), g[..., 1].reshape(g.shape[0], L)
    ux, sx = _unnorm(gx, w, align)
    uy, sy = _unnorm(gy, h, align)
    taps = []

    def add(iy, ix, wt, dx, dy):
        iy, ix = iy.astype(np.int64), ix.astype(np.int64)
        ok = (iy >= 0) & (iy < h) & (ix >= 0) & (ix < w)
        taps.append((np.clip(iy, 0, h - 1) * w + np.clip(ix, 0, w - 1), ok, wt, dx, dy))
    if mode == BICUBIC:                       # the coordinate is not padded; each tap index is
        fx, fy = np.floor(ux), np.floor(uy)
        tx = gx_t * sx + _const(ux - fx - sx * gx, gx_t.dtype)
        ty = gy_t * sy + _const(uy - fy - sy * gy, gy_t.dtype)
        (wx, dwx), (wy, dwy) = _cubic(tx), _cubic(ty)
        for i in range(4):
            py = _pad_slope(fy - 1 + i, h, padding_mode, align)[0]
            for j in range(4):
                px = _pad_slope(fx - 1 + j, w, padding_mode, align)[0]
                add(py, px, wy[i] * wx[j], wy[i] * dwx[j] * sx, dwy[i] * wx[j] * sy)
        return taps
    ix, kx = _pad_slope(ux, w, padding_mode, align)
    iy, ky = _pad_slope(uy, h, padding_mode, align)
    if mode == NEAREST:
        add(np.rint(iy), np.rint(ix), None, None, None)
        return taps
    x0, y0 = np.floor(ix), np.floor(iy)
    ax, ay = kx * sx, ky * sy                   # d padded coordinate / d grid value
    tx = gx_t * _const(ax, gx_t.dtype) + _const(ix - x0 - ax * gx, gx_t.dtype)
    ty = gy_t * _const(ay, gy_t.dtype) + _const(iy - y0 - ay * gy, gy_t.dtype)
    cax, cay = _const(ax, gx_t.dtype), _const(ay, gy_t.dtype)
    for yo, wy_, dwy in ((0, 1 - ty, -cay), (1, ty, cay)):
        for xo, wx_, dwx in ((0, 1 - tx, -cax), (1, tx, cax)):
            add(y0 + yo, x0 + xo, wy_ * wx_, wy_ * dwx, dwy * wx_)
    return taps


def _grid_backward_c(grad, input, grid, taps, interpolation_mode, mask):
    """The first-order grads by csrc/taps.c (no graph is recorded, so the channel loops need not be
    ember ops), or None when C does not apply."""
    from ..kernels.cpu import interpolate_taps
    e = _e()
    dt = input._np.dtype
    if e.is_grad_enabled() or input.device.type != "cpu" or grad._np.dtype != dt or grid._np.dtype != dt \
            or interpolate_taps.kernel("scatter", dt) is None:
        return None
    n, c, h, w = input._size
    ho, wo = grid._size[1:3]
    idx = np.stack([np.where(t[1], t[0], -1) for t in taps], 1)                       # N, k, L
    go = np.ascontiguousarray(grad._np).reshape(n, c, ho * wo)
    gi = gg = None
    if mask[0]:
        wt = np.ones(idx.shape, dt) if taps[0][2] is None else np.stack([t[2]._np for t in taps], 1).astype(dt)
        gi = e.from_numpy(interpolate_taps.scatter(go, idx, np.ascontiguousarray(wt), h * w).reshape(n, c, h, w))
    if mask[1]:
        if taps[0][2] is None:
            gg = e.zeros_like(grid)
        else:
            prod = interpolate_taps.dot(go, np.ascontiguousarray(input._np).reshape(n, c, h * w), idx)   # N, k, L
            gx = (prod * np.stack([t[3]._np for t in taps], 1)).sum(1)
            gy = (prod * np.stack([t[4]._np for t in taps], 1)).sum(1)
            gg = e.from_numpy(np.stack([gx, gy], -1).astype(dt).reshape(n, ho, wo, 2))
    return gi, gg


def grid_sampler_2d_backward_(grad, input, grid, interpolation_mode, padding_mode, align_corners, mask):
    """grad_input: grad * tap weight scattered to every in-bounds tap; grad_grid: sum over channels of
    grad * tap value * d(tap weight)/d(grid). Nearest sampling has a zero grid grad (torch)."""
    e = _e()
    if _meta(grad, input, grid):
        return (e.empty_like(input) if mask[0] else None), (e.empty_like(grid) if mask[1] else None)
    n, c, h, w = input._size
    ho, wo = grid._size[1:3]
    L = ho * wo
    gflat = grid.reshape(n, L, 2)
    taps = _taps(grid._np, h, w, interpolation_mode, padding_mode, align_corners, gflat[..., 0], gflat[..., 1])
    fast = _grid_backward_c(grad, input, grid, taps, interpolation_mode, mask)
    if fast is not None:
        return fast
    go = grad.reshape(n, c, L)
    gi = gg = None
    k = len(taps)
    idx = _ints(np.concatenate([t[0] for t in taps], axis=1)[:, None, :]).expand(n, c, k * L)
    from .._core import dtype as D
    okb = np.concatenate([t[1] for t in taps], axis=1)[:, None, :]                    # N, 1, kL
    ok = _const(okb, D.bool_)           # outside taps are left out (where, not * 0: an inf must not leak)
    if mask[0]:
        wts = e.ones((), dtype=grad.dtype) if taps[0][2] is None else e.cat([t[2] for t in taps], 1).unsqueeze(1)
        vals = e.where(ok, go.repeat(1, 1, k) * wts, 0)
        gi = e.zeros((n, c, h * w), dtype=grad.dtype).scatter_add(2, idx, vals).reshape(n, c, h, w)
    if mask[1]:
        if taps[0][2] is None:
            gg = e.zeros_like(grid)
        else:
            v = e.where(ok, input.reshape(n, c, h * w).gather(2, idx), 0)               # N, C, kL
            prod = (go.repeat(1, 1, k) * v).sum(1)                                      # N, kL
            dx = e.cat([t[3] for t in taps], 1)
            dy = e.cat([t[4] for t in taps], 1)
            gx = (prod * dx).reshape(n, k, L).sum(1)
            gy = (prod * dy).reshape(n, k, L).sum(1)
            gg = e.stack([gx, gy], -1).reshape(n, ho, wo, 2)
    return gi, gg
