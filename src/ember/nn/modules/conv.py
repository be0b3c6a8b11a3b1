"""Convolution modules (torch/nn/modules/conv.py): Conv1d/2d/3d, ConvTranspose1d/2d/3d and their Lazy forms."""
import math

import ember
from .. import functional as F
from .. import init
from ..parameter import Parameter, UninitializedParameter
from .lazy import LazyModuleMixin
from .module import Module
from .utils import _single, _pair, _triple, _reverse_repeat_tuple

__all__ = ["Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d", "LazyConv1d",
           "LazyConv2d", "LazyConv3d", "LazyConvTranspose1d", "LazyConvTranspose2d", "LazyConvTranspose3d"]

_PADDING_STRINGS = {"same", "valid"}
_PADDING_MODES = {"zeros", "reflect", "replicate", "circular"}


class _ConvNd(Module):
    __constants__ = ["stride", "padding", "dilation", "groups", "padding_mode", "output_padding", "in_channels",
                     "out_channels", "kernel_size"]
    _ntuple = None

    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, dilation, transposed,
                 output_padding, groups, bias, padding_mode, device=None, dtype=None):
        super().__init__()
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        if isinstance(padding, str):
            if padding not in _PADDING_STRINGS:
                raise ValueError(f"Invalid padding string {padding!r}, should be one of {_PADDING_STRINGS}")
            if padding == "same" and any(s != 1 for s in stride):
                raise ValueError("padding='same' is not supported for strided convolutions")
        if padding_mode not in _PADDING_MODES:
            raise ValueError(f"padding_mode must be one of {_PADDING_MODES}, but got padding_mode='{padding_mode}'")
        self.in_channels, self.out_channels = in_channels, out_channels
        self.kernel_size, self.stride, self.padding, self.dilation = kernel_size, stride, padding, dilation
        self.transposed, self.output_padding, self.groups, self.padding_mode = (transposed, output_padding, groups,
                                                                              padding_mode)
        if isinstance(padding, str):
            self._reversed_padding_repeated_twice = [0, 0] * len(kernel_size)
            if padding == "same":
                for d, k, i in zip(dilation, kernel_size, range(len(kernel_size) - 1, -1, -1)):
                    total = d * (k - 1)
                    left = total // 2
                    self._reversed_padding_repeated_twice[2 * i] = left
                    self._reversed_padding_repeated_twice[2 * i + 1] = total - left
        else:
            self._reversed_padding_repeated_twice = _reverse_repeat_tuple(padding, 2)
        shape = ((in_channels, out_channels // groups) if transposed else (out_channels, in_channels // groups))
        kw = {"device": device, "dtype": dtype}
        self.weight = Parameter(ember.empty(shape + tuple(kernel_size), **kw))
        if bias:
            self.bias = Parameter(ember.empty(out_channels, **kw))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            if fan_in != 0:
                bound = 1 / math.sqrt(fan_in)
                init.uniform_(self.bias, -bound, bound)

    def extra_repr(self):
        n = len(self.kernel_size)
        s = "{in_channels}, {out_channels}, kernel_size={kernel_size}, stride={stride}"
        if self.padding != (0,) * n:
            s += ", padding={padding}"
        if self.dilation != (1,) * n:
            s += ", dilation={dilation}"
        if self.output_padding != (0,) * n:
            s += ", output_padding={output_padding}"
        if self.groups != 1:
            s += ", groups={groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += ", padding_mode={padding_mode}"
        return s.format(**self.__dict__)

    def __setstate__(self, state):
        super().__setstate__(state)
        if not hasattr(self, "padding_mode"):
            self.padding_mode = "zeros"


class _Conv(_ConvNd):
    _fn = None

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
                 bias=True, padding_mode="zeros", device=None, dtype=None):
        t = type(self)._ntuple
        super().__init__(in_channels, out_channels, t(kernel_size), t(stride),
                         padding if isinstance(padding, str) else t(padding), t(dilation), False, t(0), groups,
                         bias, padding_mode, device, dtype)

    def _conv_forward(self, input, weight, bias):
        fn = type(self)._fn
        if self.padding_mode != "zeros":
            mode = "constant" if self.padding_mode == "zeros" else self.padding_mode
            input = F.pad(input, self._reversed_padding_repeated_twice, mode=mode)
            return fn(input, weight, bias, self.stride, type(self)._ntuple(0), self.dilation, self.groups)
        return fn(input, weight, bias, self.stride, self.padding, self.dilation, self.groups)

    def forward(self, input):
        return self._conv_forward(input, self.weight, self.bias)


class Conv1d(_Conv):
    _ntuple = staticmethod(_single)
    _fn = staticmethod(F.conv1d)


class Conv2d(_Conv):
    _ntuple = staticmethod(_pair)
    _fn = staticmethod(F.conv2d)


class Conv3d(_Conv):
    _ntuple = staticmethod(_triple)
    _fn = staticmethod(F.conv3d)


class _ConvTransposeNd(_ConvNd):
    _fn = None
    _nd = 0

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1,
                 bias=True, dilation=1, padding_mode="zeros", device=None, dtype=None):
        if padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for {self.__class__.__name__}')
        t = type(self)._ntuple
        super().__init__(in_channels, out_channels, t(kernel_size), t(stride), t(padding), t(dilation), True,
                         t(output_padding), groups, bias, padding_mode, device, dtype)

    def _output_padding(self, input, output_size, stride, padding, kernel_size, num_spatial_dims, dilation=None):
        if output_size is None:
            return _single(self.output_padding)
        has_batch = input.dim() == num_spatial_dims + 2
        output_size = list(output_size)
        if len(output_size) == num_spatial_dims + 2 or (not has_batch and len(output_size) == num_spatial_dims + 1):
            output_size = output_size[-num_spatial_dims:]
        if len(output_size) != num_spatial_dims:
            raise ValueError(f"ConvTranspose{num_spatial_dims}D: for {input.dim()}D input, output_size must have "
                             f"{num_spatial_dims} or {num_spatial_dims + 2} elements (got {len(output_size)})")
        spatial = input.shape[-num_spatial_dims:]
        res = []
        for d in range(num_spatial_dims):
            dil = 1 if dilation is None else dilation[d]
            lo = (spatial[d] - 1) * stride[d] - 2 * padding[d] + dil * (kernel_size[d] - 1) + 1
            hi = lo + stride[d] - 1
            if not lo <= output_size[d] <= hi:
                raise ValueError(f"requested an output size of {output_size}, but valid sizes range from "
                                 f"{[lo]} to {[hi]} (for an input of {list(spatial)})")
            res.append(output_size[d] - lo)
        return tuple(res)

    def forward(self, input, output_size=None):
        nd = type(self)._nd
        op = self._output_padding(input, output_size, self.stride, self.padding, self.kernel_size, nd,
                                  self.dilation)
        return type(self)._fn(input, self.weight, self.bias, self.stride, self.padding, op, self.groups,
                              self.dilation)


class ConvTranspose1d(_ConvTransposeNd):
    _ntuple = staticmethod(_single)
    _fn = staticmethod(F.conv_transpose1d)
    _nd = 1


class ConvTranspose2d(_ConvTransposeNd):
    _ntuple = staticmethod(_pair)
    _fn = staticmethod(F.conv_transpose2d)
    _nd = 2


class ConvTranspose3d(_ConvTransposeNd):
    _ntuple = staticmethod(_triple)
    _fn = staticmethod(F.conv_transpose3d)
    _nd = 3


class _LazyConvXdMixin(LazyModuleMixin):
    """in_channels from the first input's channel dim (dim 1 batched, dim 0 unbatched)."""

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.in_channels != 0:
            super().reset_parameters()

    def initialize_parameters(self, input, *args, **kwargs):
        if self.has_uninitialized_params():
            self.in_channels = self._get_in_channels(input)
            if self.in_channels % self.groups != 0:
                raise ValueError("in_channels must be divisible by groups")
            if self.transposed:
                self.weight.materialize((self.in_channels, self.out_channels // self.groups, *self.kernel_size))
            else:
                self.weight.materialize((self.out_channels, self.in_channels // self.groups, *self.kernel_size))
            if self.bias is not None:
                self.bias.materialize((self.out_channels,))
            self.reset_parameters()

    def _get_in_channels(self, input):
        no_batch = self._get_num_spatial_dims() + 1
        if input.dim() not in (no_batch, no_batch + 1):
            raise RuntimeError(f"Expected {no_batch}D (unbatched) or {no_batch + 1}D (batched) input to "
                               f"{self.__class__.__name__}, but got input of size: {input.shape}")
        return input.shape[1] if input.dim() == no_batch + 1 else input.shape[0]

    def _get_num_spatial_dims(self):
        return len(self.kernel_size)


def _lazy_conv(base):
    class LazyConv(_LazyConvXdMixin, base):
        cls_to_become = base

        def __init__(self, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True,
                     padding_mode="zeros", device=None, dtype=None):
            factory_kwargs = {"device": device, "dtype": dtype}
            super().__init__(0, 0, kernel_size, stride, padding, dilation, groups, False, padding_mode,
                             **factory_kwargs)
            self.weight = UninitializedParameter(**factory_kwargs)
            self.out_channels = out_channels
            if bias:
                self.bias = UninitializedParameter(**factory_kwargs)
    LazyConv.__name__ = LazyConv.__qualname__ = "Lazy" + base.__name__
    LazyConv.__doc__ = f"A {base.__name__} whose in_channels comes from its first input (then it becomes one)."
    return LazyConv


def _lazy_conv_transpose(base):
    class LazyConvTranspose(_LazyConvXdMixin, base):
        cls_to_become = base

        def __init__(self, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1, bias=True,
                     dilation=1, padding_mode="zeros", device=None, dtype=None):
            factory_kwargs = {"device": device, "dtype": dtype}
            super().__init__(0, 0, kernel_size, stride, padding, output_padding, groups, False, dilation,
                             padding_mode, **factory_kwargs)
            self.weight = UninitializedParameter(**factory_kwargs)
            self.out_channels = out_channels
            if bias:
                self.bias = UninitializedParameter(**factory_kwargs)
    LazyConvTranspose.__name__ = LazyConvTranspose.__qualname__ = "Lazy" + base.__name__
    LazyConvTranspose.__doc__ = (f"A {base.__name__} whose in_channels comes from its first input (then it "
                                 "becomes one).")
    return LazyConvTranspose


LazyConv1d = _lazy_conv(Conv1d)
LazyConv2d = _lazy_conv(Conv2d)
LazyConv3d = _lazy_conv(Conv3d)
LazyConvTranspose1d = _lazy_conv_transpose(ConvTranspose1d)
LazyConvTranspose2d = _lazy_conv_transpose(ConvTranspose2d)
LazyConvTranspose3d = _lazy_conv_transpose(ConvTranspose3d)
