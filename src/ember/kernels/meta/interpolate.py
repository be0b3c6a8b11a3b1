"""Meta functions for the upsample_*.vec ops: output size from output_size or floor(in * scale)."""
from ..common import alloc
from ..common import size_str


def upsample_spec(input, output_size, scale_factors, d, name):
    if input.dim() != d + 2:
        raise RuntimeError(f"It is expected input_size equals to {d + 2}, but got size {input.dim()}")
    sp = input._size[2:]
    if output_size is not None and scale_factors is not None:
        raise RuntimeError("Must specify exactly one of output_size and scale_factors")
    if output_size is not None:
        o = tuple(int(v) for v in output_size)
        if len(o) != d:
            raise RuntimeError(f"It is expected output_size equals to {d}, but got size {len(o)}")
        scales = (None,) * d
    elif scale_factors is not None:
        if len(scale_factors) != d:
            raise RuntimeError(f"It is expected scale_factors equals to {d}, but got size {len(scale_factors)}")
        o = tuple(int(sp[i] * float(scale_factors[i])) for i in range(d))
        scales = tuple(float(s) for s in scale_factors)
    else:
        raise RuntimeError("Must specify exactly one of output_size and scale_factors")
    if any(v <= 0 for v in o) or any(v <= 0 for v in sp):
        raise RuntimeError(f"Input and output sizes should be greater than 0, but got input ({', '.join(f'{k}: {v}' for k, v in zip('DHW'[-d:], sp))}) "
                           f"output ({', '.join(f'{k}: {v}' for k, v in zip('DHW'[-d:], o))})")
    return tuple(input._size[:2]) + o, o, scales


def _meta(d, name, has_align):
    if has_align:
        def f(input, output_size, align_corners, scale_factors):
            shape, _, _ = upsample_spec(input, output_size, scale_factors, d, name)
            return alloc(shape, input.dtype, input.device)
    else:
        def f(input, output_size, scale_factors):
            shape, _, _ = upsample_spec(input, output_size, scale_factors, d, name)
            return alloc(shape, input.dtype, input.device)
    f.__name__ = name
    return f


upsample_nearest1d = _meta(1, "upsample_nearest1d", False)
upsample_nearest2d = _meta(2, "upsample_nearest2d", False)
_upsample_nearest_exact2d = _meta(2, "_upsample_nearest_exact2d", False)
upsample_linear1d = _meta(1, "upsample_linear1d", True)
upsample_bilinear2d = _meta(2, "upsample_bilinear2d", True)
upsample_bicubic2d = _meta(2, "upsample_bicubic2d", True)


def grid_spec(input, grid, interpolation_mode, padding_mode):
    if input.dim() != grid.dim() or input.dim() != 4:
        raise RuntimeError(f"grid_sampler(): expected 4D input and grid with same number of dimensions, but got "
                           f"input with sizes {size_str(input._size)} and grid with sizes {size_str(grid._size)}")
    if grid._size[-1] != 2:
        raise RuntimeError(f"grid_sampler(): expected grid to have size 2 in last dimension, but got grid with "
                           f"sizes {size_str(grid._size)}")
    if input._size[0] != grid._size[0]:
        raise RuntimeError(f"grid_sampler(): expected grid and input to have same batch size, but got input with "
                           f"sizes {size_str(input._size)} and grid with sizes {size_str(grid._size)}")
    if input.dtype is not grid.dtype:
        raise RuntimeError(f"grid_sampler(): expected input and grid to have same dtype, but input has "
                           f"{input.dtype} and grid has {grid.dtype}")
    return (input._size[0], input._size[1], grid._size[1], grid._size[2]), input.dtype


def grid_sampler_2d(input, grid, interpolation_mode, padding_mode, align_corners):
    shape, dt = grid_spec(input, grid, interpolation_mode, padding_mode)
    return alloc(shape, dt, input.device)
