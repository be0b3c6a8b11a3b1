"""CompositeImplicitAutograd kernels of convolution (torch's Convolution.cpp: conv1d/2d/3d, conv_transpose*, padding='same')."""

from ..common import size_str
from ..common import tup
from ..._ops import ops

aten = ops.aten


def _batchify(input, d, name):
    if input.dim() == d + 1:
        return aten.unsqueeze.default(input, 0), True
    if input.dim() != d + 2:
        raise RuntimeError(f"Expected {d + 1}D (unbatched) or {d + 2}D (batched) input to {name}, but got input "
                           f"of size: {size_str(input._size)}")
    return input, False


def _conv(d, input, weight, bias, stride, padding, dilation, groups):
    x, unb = _batchify(input, d, f"conv{d}d")
    if isinstance(padding, str):
        padding, x = _str_padding(d, x, weight, stride, padding, dilation)
    out = aten.convolution.default(x, weight, bias, tup(stride, d), tup(padding, d), tup(dilation, d), False,
                                  [0] * d, groups)
    return aten.squeeze.dim(out, 0) if unb else out


def _str_padding(d, x, weight, stride, padding, dilation):
    if padding == "valid":
        return [0] * d, x
    if padding != "same":
        raise RuntimeError(f"Invalid padding string: '{padding}'")
    if any(s != 1 for s in tup(stride, d)):
        raise RuntimeError("padding='same' is not supported for strided convolutions")
    dl = tup(dilation, d)
    total = [dl[i] * (weight._size[2 + i] - 1) for i in range(d)]
    if any(t % 2 for t in total):
        pad = []
        for t in reversed(total):
            pad += [0, t % 2]
        x = aten.constant_pad_nd.default(x, pad, 0)
    return [t // 2 for t in total], x


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    return _conv(1, input, weight, bias, stride, padding, dilation, groups)


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    return _conv(2, input, weight, bias, stride, padding, dilation, groups)


def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    return _conv(3, input, weight, bias, stride, padding, dilation, groups)


def _conv_t(d, input, weight, bias, stride, padding, output_padding, groups, dilation):
    x, unb = _batchify(input, d, f"conv_transpose{d}d")
    out = aten.convolution.default(x, weight, bias, tup(stride, d), tup(padding, d), tup(dilation, d), True,
                                  tup(output_padding, d), groups)
    return aten.squeeze.dim(out, 0) if unb else out


def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    return _conv_t(1, input, weight, bias, stride, padding, output_padding, groups, dilation)


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    return _conv_t(2, input, weight, bias, stride, padding, output_padding, groups, dilation)


def conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    return _conv_t(3, input, weight, bias, stride, padding, output_padding, groups, dilation)
