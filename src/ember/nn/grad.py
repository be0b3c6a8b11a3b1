"""torch.nn.grad (also torch.nn.functional.grad): the gradients of conv1d/2d/3d with respect to their input or
weight, computed without a forward pass by aten.convolution_backward."""
from .._ops import ops as _ops

__all__ = ["conv1d_input", "conv1d_weight", "conv2d_input", "conv2d_weight", "conv3d_input", "conv3d_weight"]


def _ntuple(v, n):
    return list(v) if isinstance(v, (list, tuple)) else [v] * n


def _input_grad(n, input_size, weight, grad_output, stride, padding, dilation, groups):
    input = grad_output.new_empty(1).expand(input_size)
    return _ops.aten.convolution_backward.default(
        grad_output, input, weight, None, _ntuple(stride, n), _ntuple(padding, n), _ntuple(dilation, n), False,
        [0], groups, [True, False, False])[0]


def _weight_grad(n, input, weight_size, grad_output, stride, padding, dilation, groups):
    weight = grad_output.new_empty(1).expand(weight_size)
    return _ops.aten.convolution_backward.default(
        grad_output, input, weight, None, _ntuple(stride, n), _ntuple(padding, n), _ntuple(dilation, n), False,
        [0], groups, [False, True, False])[1]


def conv1d_input(input_size, weight, grad_output, stride=1, padding=0, dilation=1, groups=1):
    """The gradient of conv1d with respect to an input of shape `input_size`."""
    return _input_grad(1, input_size, weight, grad_output, stride, padding, dilation, groups)


def conv1d_weight(input, weight_size, grad_output, stride=1, padding=0, dilation=1, groups=1):
    """The gradient of conv1d with respect to a weight of shape `weight_size`."""
    return _weight_grad(1, input, weight_size, grad_output, stride, padding, dilation, groups)


def conv2d_input(input_size, weight, grad_output, stride=1, padding=0, dilation=1, groups=1):
    return _input_grad(2, input_size, weight, grad_output, stride, padding, dilation, groups)


def conv2d_weight(input, weight_size, grad_output, stride=1, padding=0, dilation=1, groups=1):
    return _weight_grad(2, input, weight_size, grad_output, stride, padding, dilation, groups)


def conv3d_input(input_size, weight, grad_output, stride=1, padding=0, dilation=1, groups=1):
    return _input_grad(3, input_size, weight, grad_output, stride, padding, dilation, groups)


def conv3d_weight(input, weight_size, grad_output, stride=1, padding=0, dilation=1, groups=1):
    return _weight_grad(3, input, weight_size, grad_output, stride, padding, dilation, groups)
