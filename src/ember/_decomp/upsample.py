"""torch._decomp.decompositions, the upsample family: nearest (1d, 2d) and bilinear (2d) resizing written as
index_select of source rows/columns computed from `arange` (and, for bilinear, a blend of the two nearest
source lines), as torch's decompositions do."""
import math

from ember._ops import ops
from ember._core import dtype as _dt

from .registry import register_decomposition

aten = ops.aten


def _out_sizes(input, output_size, scale_factors, n):
    spatial = list(input.shape[-n:])
    if output_size is not None:
        return list(output_size), [None] * n
    return [int(math.floor(s * f)) for s, f in zip(spatial, scale_factors)], list(scale_factors)


def _scale(in_size, out_size, factor, align_corners=False):
    """torch's area_pixel_compute_scale: source pixels per output pixel."""
    if align_corners:
        return (in_size - 1) / (out_size - 1) if out_size > 1 else 0.0
    return 1.0 / factor if factor is not None and factor > 0 else in_size / out_size


def _nearest_index(in_size, out_size, factor):
    pos = aten.arange.default(out_size, dtype=_dt.float32)
    src = aten.floor.default(aten.mul.Tensor(pos, _scale(in_size, out_size, factor)))
    return aten.clamp_max.default(aten._to_copy.default(src, dtype=_dt.int64), in_size - 1)


def _nearest(input, output_size, scale_factors, n):
    sizes, factors = _out_sizes(input, output_size, scale_factors, n)
    out = input
    for k in range(n):
        dim = input.dim() - n + k
        out = aten.index_select.default(out, dim, _nearest_index(input.shape[dim], sizes[k], factors[k]))
    return out


@register_decomposition(aten.upsample_nearest1d.vec)
def upsample_nearest1d_vec(input, output_size, scale_factors):
    return _nearest(input, output_size, scale_factors, 1)


@register_decomposition(aten.upsample_nearest2d.vec)
def upsample_nearest2d_vec(input, output_size, scale_factors):
    return _nearest(input, output_size, scale_factors, 2)


def _linear_taps(in_size, out_size, factor, align_corners, dtype):
    """(lower index, upper index, weight of the upper one) of each output position along one dimension."""
    pos = aten.arange.default(out_size, dtype=_dt.float32)
    scale = _scale(in_size, out_size, factor, align_corners)
    if align_corners:
        src = aten.mul.Tensor(pos, scale)
    else:
        src = aten.clamp_min.default(aten.sub.Tensor(aten.mul.Tensor(aten.add.Tensor(pos, 0.5), scale), 0.5), 0)
    lo = aten.clamp_max.default(aten._to_copy.default(aten.floor.default(src), dtype=_dt.int64), in_size - 1)
    hi = aten.clamp_max.default(aten.add.Tensor(lo, 1), in_size - 1)
    lam = aten.clamp.default(aten.sub.Tensor(src, lo), 0, 1)
    return lo, hi, aten._to_copy.default(lam, dtype=dtype)


@register_decomposition(aten.upsample_bilinear2d.vec)
def upsample_bilinear2d_vec(input, output_size, align_corners, scale_factors):
    sizes, factors = _out_sizes(input, output_size, scale_factors, 2)
    out = input
    for k in range(2):
        dim = input.dim() - 2 + k
        lo, hi, lam = _linear_taps(input.shape[dim], sizes[k], factors[k], align_corners, input.dtype)
        a = aten.index_select.default(out, dim, lo)
        b = aten.index_select.default(out, dim, hi)
        w = aten.view.default(lam, [sizes[k]] + [1] * (input.dim() - 1 - dim))
        out = aten.add.Tensor(a, aten.mul.Tensor(aten.sub.Tensor(b, a), w))
    return out
