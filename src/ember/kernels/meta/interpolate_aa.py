"""Meta functions for the antialiased 2-D resampling ops (_upsample_{bilinear,bicubic,lanczos}2d_aa
and their backwards): shape checks, dtype checks, and the output layout (channels-last input gives
a channels-last output, as in torch)."""
from ..._core import dtype as D
from ..._core.strides import is_channels_last
from ..common import empty_tensor
from .copy import channels_last_strides

AA_DTYPES = (D.float32, D.float64, D.uint8)


def _sizes_str(keys, vals):
    return ", ".join(f"{k}: {v}" for k, v in zip(keys, vals))


def check_aa(input_size, output_size, what):
    """torch's upsample_2d_common_check for the aa ops: 4-d input, 2 output sizes, all positive."""
    if len(output_size) != 2:
        raise RuntimeError(f"It is expected output_size equals to 2, but got size {len(output_size)}")
    if len(input_size) != 4:
        raise RuntimeError(f"It is expected input_size equals to 4, but got size {len(input_size)}")
    n, c, h, w = input_size
    oh, ow = (int(v) for v in output_size)
    if h <= 0 or w <= 0 or oh <= 0 or ow <= 0:
        raise RuntimeError(f"Input and output sizes should be greater than 0, but got input "
                           f"({_sizes_str('HW', (h, w))}) output ({_sizes_str('HW', (oh, ow))})")
    return (n, c, oh, ow)


def check_dtype(t, name, allowed=AA_DTYPES):
    if t.dtype not in allowed:
        from ..common import _tname
        raise NotImplementedError(f"\"{name}\" not implemented for '{_tname(t.dtype)}'")


def out_like(input, shape, dtype=None):
    cl = is_channels_last(input._size, input.stride())
    return empty_tensor(shape, dtype or input.dtype, input.device, channels_last_strides(shape) if cl else None)


def _forward(name):
    def f(self, output_size, align_corners, scales_h=None, scales_w=None):
        if self.dim() != 4:
            raise RuntimeError(f"It is expected input_size equals to 4, but got size {self.dim()}")
        shape = check_aa(self._size, output_size, name)
        check_dtype(self, "compute_index_ranges_weights")
        return out_like(self, shape)
    f.__name__ = name
    return f


def _backward(name):
    def f(grad_output, output_size, input_size, align_corners, scales_h=None, scales_w=None):
        shape = check_aa(tuple(int(v) for v in input_size), output_size, name)
        if grad_output.dim() != 4:
            raise RuntimeError(f"Expected grad_output to be a tensor of dimension 4 but got: dimension "
                               f"{grad_output.dim()}")
        for i in range(4):
            if grad_output._size[i] != shape[i]:
                raise RuntimeError(f"Expected grad_output to have the same shape as output; output.size({i}) = "
                                   f"{shape[i]} but got grad_output.size({i}) = {grad_output._size[i]}")
        check_dtype(grad_output, name[1:] + "_cpu", (D.float32, D.float64))
        return out_like(grad_output, tuple(int(v) for v in input_size))
    f.__name__ = name
    return f


_upsample_bilinear2d_aa = _forward("_upsample_bilinear2d_aa")
_upsample_bicubic2d_aa = _forward("_upsample_bicubic2d_aa")
_upsample_lanczos2d_aa = _forward("_upsample_lanczos2d_aa")
_upsample_bilinear2d_aa_backward = _backward("_upsample_bilinear2d_aa_backward")
_upsample_bicubic2d_aa_backward = _backward("_upsample_bicubic2d_aa_backward")
_upsample_lanczos2d_aa_backward = _backward("_upsample_lanczos2d_aa_backward")
