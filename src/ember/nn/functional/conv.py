"""nn.functional's convolutions (torch/nn/functional.py conv1d/2d/3d, conv_transpose1d/2d, unfold, fold)."""


import ember
from ._common import _chk
from ..._core import torch_function as _tf  # noqa: E402

_TF = False      # the __torch_function__ check: kept current by _tf.register (see _core/torch_function.py)
_tf.register(globals())

__all__ = ["conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d", "unfold", "fold"]


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    return ember.conv1d(input, weight, bias, stride, padding, dilation, groups)


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    return ember.conv2d(input, weight, bias, stride, padding, dilation, groups)


def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    return ember.conv3d(input, weight, bias, stride, padding, dilation, groups)


def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    return ember.conv_transpose1d(input, weight, bias, stride, padding, output_padding, groups, dilation)


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    return ember.conv_transpose2d(input, weight, bias, stride, padding, output_padding, groups, dilation)


def conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    return ember.conv_transpose3d(input, weight, bias, stride, padding, output_padding, groups, dilation)


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    if _TF:      # torch's has_torch_function check: a mode or subclass sees F.unfold
        _r = _tf.handle_locals(unfold, locals())
        if _r is not _tf.NOT_HANDLED:
            return _r
    _chk().check_tensor("im2col", "input", 1, input)
    if input.dim() == 4 or input.dim() == 3:
        return ember._nn.im2col(input, kernel_size, dilation, padding, stride)
    raise NotImplementedError(f"Input Error: Only 3D or 4D input Tensors are supported (got {input.dim()}D)")


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    if _TF:      # torch's has_torch_function check: a mode or subclass sees F.fold
        _r = _tf.handle_locals(fold, locals())
        if _r is not _tf.NOT_HANDLED:
            return _r
    _chk().check_tensor("col2im", "input", 1, input)
    if input.dim() == 3 or input.dim() == 2:
        return ember._nn.col2im(input, output_size, kernel_size, dilation, padding, stride)
    raise NotImplementedError(f"Input Error: Only unbatched (2D) or batched (3D) input Tensors are supported "
                              f"(got {input.dim()}D)")
