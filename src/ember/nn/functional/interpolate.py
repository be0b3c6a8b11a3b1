"""nn.functional's resampling (torch/nn/functional.py interpolate, grid_sample, pixel_shuffle,
pixel_unshuffle): picks the upsample_* op from the mode and input rank and resolves size / scale_factor /
recompute_scale_factor the way torch does; the deprecated upsample, upsample_nearest and upsample_bilinear (interpolate
after torch's warning); channel_shuffle; affine_grid's argument checks."""
import math
import warnings

import ember
from ..._ops import ops as _ops
from ..._core import torch_function as _tf  # noqa: E402

_TF = False      # the __torch_function__ check: kept current by _tf.register (see _core/torch_function.py)
_tf.register(globals())

__all__ = ["pixel_shuffle", "pixel_unshuffle", "grid_sample", "interpolate", "channel_shuffle", "native_channel_shuffle",
           "affine_grid", "upsample", "upsample_nearest", "upsample_bilinear"]


def channel_shuffle(input, groups):
    return ember.channel_shuffle(input, groups)


def native_channel_shuffle(input, groups):
    return ember.native_channel_shuffle(input, groups)


def pixel_shuffle(input, upscale_factor):
    return ember.pixel_shuffle(input, upscale_factor)


def pixel_unshuffle(input, downscale_factor):
    return ember.pixel_unshuffle(input, downscale_factor)


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    if _TF:      # torch's has_torch_function check: a mode or subclass sees F.grid_sample
        _r = _tf.handle_locals(grid_sample, locals())
        if _r is not _tf.NOT_HANDLED:
            return _r
    modes = {"bilinear": 0, "nearest": 1, "bicubic": 2}
    pads = {"zeros": 0, "border": 1, "reflection": 2}
    if mode not in modes:
        raise ValueError(f"nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or 'bicubic', "
                         f"but got: '{mode}'")
    if padding_mode not in pads:
        raise ValueError(f"nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or "
                         f"'reflection', but got: '{padding_mode}'")
    return ember.grid_sampler(input, grid, modes[mode], pads[padding_mode], bool(align_corners))


_LINEAR = {3: "linear", 4: "bilinear", 5: "trilinear"}


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None, antialias=False):
    if _TF:      # torch's has_torch_function check: a mode or subclass sees F.interpolate
        _r = _tf.handle_locals(interpolate, locals())
        if _r is not _tf.NOT_HANDLED:
            return _r
    from ... import _arg_parser as chk
    chk.check_tensor("interpolate", "input", 1, input)
    chk.check_int_list("interpolate", "size", 2, size, optional=True)
    if scale_factor is not None and not (isinstance(scale_factor, (list, tuple)) and all(
            chk._is_double(s) for s in scale_factor)):
        chk.check_float("interpolate", "scale_factor", 3, scale_factor)
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError("align_corners option can only be set with the interpolating modes: "
                             "linear | bilinear | bicubic | trilinear")
    elif align_corners is None:
        align_corners = False
    d = input.dim() - 2
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    if size is not None:
        if isinstance(size, (list, tuple)):
            if len(size) != d:
                raise ValueError(f"Input and output must have the same number of spatial dimensions, but got input "
                                 f"with spatial dimensions of {list(input.shape[2:])} and output size of "
                                 f"{list(size)}. Please provide input tensor in (N, C, d1, d2, ...,dK) format and "
                                 f"output size in (o1, o2, ...,oK) format.")
            output_size = [int(s) for s in size]
        else:
            output_size = [int(size)] * d
        scale_factors = None
    elif scale_factor is not None:
        scale_factors = list(scale_factor) if isinstance(scale_factor, (list, tuple)) else [scale_factor] * d
        if len(scale_factors) != d:
            raise ValueError(f"Input and scale_factor must have the same number of spatial dimensions, but got input "
                             f"with spatial dimensions of {list(input.shape[2:])} and scale_factor of shape "
                             f"{list(scale_factor)}. Please provide input tensor in (N, C, d1, d2, ...,dK) format "
                             f"and scale_factor in (s1, s2, ...,sK) format.")
        output_size = None
    else:
        raise ValueError("either size or scale_factor should be defined")
    if recompute_scale_factor and size is not None:
        raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
    if recompute_scale_factor and scale_factors is not None:
        output_size = [math.floor(float(input.shape[i + 2]) * scale_factors[i]) for i in range(d)]
        scale_factors = None
    if antialias and not (mode in ("bilinear", "bicubic", "lanczos") and input.dim() == 4):
        raise ValueError("Anti-alias option is restricted to bilinear, bicubic, and lanczos modes and requires a "
                         "4-D tensor as input")
    if mode == "lanczos" and input.dim() == 4:
        if align_corners:
            raise ValueError("Lanczos mode does not support align_corners=True")
        if not antialias:
            raise ValueError("Lanczos mode requires antialias=True")
    if antialias:
        return getattr(ember._nn, f"_upsample_{mode}2d_aa")(input, output_size, align_corners, scale_factors)
    ops = {("nearest", 3): lambda: ember._nn.upsample_nearest1d(input, output_size, scale_factors),
           ("nearest", 4): lambda: ember._nn.upsample_nearest2d(input, output_size, scale_factors),
           ("nearest-exact", 4): lambda: _ops.aten._upsample_nearest_exact2d.vec(input, output_size, scale_factors),
           ("linear", 3): lambda: ember._nn.upsample_linear1d(input, output_size, align_corners, scale_factors),
           ("bilinear", 4): lambda: ember._nn.upsample_bilinear2d(input, output_size, align_corners, scale_factors),
           ("bicubic", 4): lambda: ember._nn.upsample_bicubic2d(input, output_size, align_corners, scale_factors)}
    if (mode, input.dim()) in ops:
        return ops[(mode, input.dim())]()
    if mode == "area" and input.dim() in (3, 4):
        fn = ember.adaptive_avg_pool1d if input.dim() == 3 else ember._nn.adaptive_avg_pool2d
        if output_size is None:
            output_size = [math.floor(float(input.shape[i + 2]) * scale_factors[i]) for i in range(d)]
        return fn(input, output_size)
    if mode in ("linear", "bilinear", "trilinear", "bicubic"):
        need = {"linear": 3, "bilinear": 4, "trilinear": 5, "bicubic": 4}[mode]
        raise NotImplementedError(f"Got {input.dim()}D input, but {mode} mode needs {need}D input")
    raise NotImplementedError(f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {input.dim()}D) for the "
                              f"modes: nearest | linear | bilinear | bicubic | trilinear | lanczos | area | "
                              f"nearest-exact (got {mode})")


def affine_grid(theta, size, align_corners=None):
    """The (N, H, W, 2) or (N, D, H, W, 3) grid for grid_sample that applies the affine maps theta."""
    if _TF:      # torch's has_torch_function check: a mode or subclass sees F.affine_grid
        _r = _tf.handle_locals(affine_grid, locals())
        if _r is not _tf.NOT_HANDLED:
            return _r
    if align_corners is None:
        warnings.warn("Default grid_sample and affine_grid behavior has changed to align_corners=False since 1.3.0. "
                      "Please specify align_corners=True if the old behavior is desired. See the documentation of "
                      "grid_sample for details.", stacklevel=2)
        align_corners = False
    if not theta.is_floating_point():
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    if len(size) == 4:
        if theta.dim() != 3 or theta.shape[-2] != 2 or theta.shape[-1] != 3:
            raise ValueError(f"Expected a batch of 2D affine matrices of shape Nx2x3 for size {size}. "
                             f"Got {theta.shape}.")
        spatial_size = size[-2:]
    elif len(size) == 5:
        if theta.dim() != 3 or theta.shape[-2] != 3 or theta.shape[-1] != 4:
            raise ValueError(f"Expected a batch of 3D affine matrices of shape Nx3x4 for size {size}. "
                             f"Got {theta.shape}.")
        spatial_size = size[-3:]
    else:
        raise NotImplementedError("affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, "
                                  f"respectively. Got size {size}.")
    if align_corners and min(spatial_size) == 1:
        warnings.warn("Since version 1.3.0, affine_grid behavior has changed for unit-size grids when "
                      "align_corners=True. This is not an intended use case of affine_grid. See the documentation "
                      "of affine_grid for details.", stacklevel=2)
    elif min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {size}")
    return ember.affine_grid_generator(theta, list(size), align_corners)


def _deprecated_upsample(name):
    warnings.warn(f"`nn.functional.{name}` is deprecated. Use `nn.functional.interpolate` instead.", stacklevel=3)


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    _deprecated_upsample("upsample")
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input, size=None, scale_factor=None):
    _deprecated_upsample("upsample_nearest")
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input, size=None, scale_factor=None):
    _deprecated_upsample("upsample_bilinear")
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)
