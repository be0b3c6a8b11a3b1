"""Meta function for grid_sampler_2d: (N, C, H, W) x (N, Ho, Wo, 2) -> (N, C, Ho, Wo)."""
from ..common import alloc, size_str


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
