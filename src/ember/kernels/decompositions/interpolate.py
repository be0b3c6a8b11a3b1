"""CompositeImplicitAutograd kernels of upsampling (torch's UpSample.cpp .vec overloads) and the
CompositeExplicitAutograd pixel_shuffle / pixel_unshuffle (PixelShuffle.cpp's math kernels: one fresh copy each;
their derivatives, PixelShuffleBackward0 ..., are in native/derivatives/interpolate.yaml)."""

from ..._ops import ops
from ..meta.interpolate import upsample_spec

aten = ops.aten
_CONTIGUOUS = "contiguous_format"


def pixel_shuffle(self, upscale_factor):
    r = upscale_factor
    if self.dim() < 3:
        raise RuntimeError(f"pixel_shuffle expects input to have at least 3 dimensions, but got input with "
                           f"{self.dim()} dimension(s)")
    if r <= 0:
        raise RuntimeError(f"pixel_shuffle expects a positive upscale_factor, but got {r}")
    *b, c, h, w = self._size
    if c % (r * r):
        raise RuntimeError(f"pixel_shuffle expects its input's 'channel' dimension to be divisible by the square "
                           f"of upscale_factor, but input.size(-3)={c} is not divisible by {r * r}")
    n = len(b)
    x = aten.reshape.default(self, b + [c // (r * r), r, r, h, w])
    x = aten.permute.default(x, list(range(n)) + [n, n + 3, n + 1, n + 4, n + 2])
    return aten._unsafe_view.default(aten.clone.default(x, memory_format=_CONTIGUOUS), b + [c // (r * r), h * r, w * r])


def pixel_unshuffle(self, downscale_factor):
    r = downscale_factor
    if self.dim() < 3:
        raise RuntimeError(f"pixel_unshuffle expects input to have at least 3 dimensions, but got input with "
                           f"{self.dim()} dimension(s)")
    if r <= 0:
        raise RuntimeError(f"pixel_unshuffle expects a positive downscale_factor, but got {r}")
    *b, c, h, w = self._size
    if h % r:
        raise RuntimeError(f"pixel_unshuffle expects height to be divisible by downscale_factor, but input.size(-2)="
                           f"{h} is not divisible by {r}")
    if w % r:
        raise RuntimeError(f"pixel_unshuffle expects width to be divisible by downscale_factor, but input.size(-1)="
                           f"{w} is not divisible by {r}")
    n = len(b)
    x = aten.reshape.default(self, b + [c, h // r, r, w // r, r])
    x = aten.permute.default(x, list(range(n)) + [n, n + 2, n + 4, n + 1, n + 3])
    return aten._unsafe_view.default(aten.clone.default(x, memory_format=_CONTIGUOUS), b + [c * r * r, h // r, w // r])


def grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners):
    if input.dim() == 4:
        return aten.grid_sampler_2d.default(input, grid, interpolation_mode, padding_mode, align_corners)
    raise NotImplementedError("grid_sampler: only 4-D (2d) inputs are supported")


def _aa_vec(name):
    """The .vec overload of an antialiased op (CompositeImplicitAutograd, as in torch): output size
    from output_size or floor(in * scale), then the op with per-axis scales."""
    def f(input, output_size, align_corners, scale_factors):
        _, o, scales = upsample_spec(input, output_size, scale_factors, 2, name)
        return getattr(aten, name).default(input, list(o), align_corners, scales[0], scales[1])
    f.__name__ = name
    return f


_upsample_bilinear2d_aa = _aa_vec("_upsample_bilinear2d_aa")
_upsample_bicubic2d_aa = _aa_vec("_upsample_bicubic2d_aa")
_upsample_lanczos2d_aa = _aa_vec("_upsample_lanczos2d_aa")


def channel_shuffle(self, groups):
    """Interleave the channels of `groups` groups: (N, g, C/g, *) -> (N, C/g, g, *), contiguous (ShuffleNet's op)."""
    if self.dim() <= 2:
        raise RuntimeError(f"channel_shuffle expects input with > 2 dims, but got input with sizes {list(self._size)}")
    if groups <= 0:
        raise RuntimeError(f"Number of groups to divide channels in must be positive. Value of groups:{groups}")
    c = self._size[1]
    if c % groups:
        raise RuntimeError(f"Number of channels must be divisible by groups. Got {c} channels and {groups} groups.")
    n, rest = self._size[0], list(self._size[2:])
    x = aten.view.default(self, [n, groups, c // groups] + rest)
    x = aten.clone.default(aten.transpose.int(x, 1, 2), memory_format="contiguous_format")
    return aten.view.default(x, list(self._size))


def _linspace_from_neg_one(theta, n, align_corners):
    """n sample positions in [-1, 1]: the pixel corners (align_corners) or centers, in theta's dtype."""
    if n <= 1:
        return aten.zeros.default([1], dtype=theta.dtype, device=theta.device)
    r = aten.linspace.default(-1, 1, n, dtype=theta.dtype, device=theta.device)
    return r if align_corners else aten.mul.Scalar(r, (n - 1) / n)


def affine_grid_generator(theta, size, align_corners):
    """The sampling grid of F.affine_grid: each output location's homogeneous base coordinates (x, y[, z], 1)
    times theta^T, for a 4-d (N, C, H, W) or 5-d (N, C, D, H, W) output size."""
    size = [int(s) for s in size]
    n, spatial = size[0], size[2:]
    nd = len(spatial)
    axes = []                       # x varies along the last spatial dim, y along the one before, ...
    for k, length in enumerate(reversed(spatial)):
        shape = [1] * nd
        shape[nd - 1 - k] = length if length > 1 else 1
        axes.append(aten.expand.default(aten.view.default(_linspace_from_neg_one(theta, length, align_corners),
                                                          shape), spatial))
    axes.append(aten.ones.default(spatial, dtype=theta.dtype, device=theta.device))
    base = aten.stack.default(axes, -1)                                   # (*spatial, nd + 1)
    count = 1
    for s in spatial:
        count *= s
    base = aten.expand.default(aten.view.default(base, [1, count, nd + 1]), [n, count, nd + 1])
    grid = aten.bmm.default(base, aten.transpose.int(theta, 1, 2))
    return aten.view.default(grid, [n] + spatial + [nd])
