"""Pooling modules (torch/nn/modules/pooling.py)."""
from .. import functional as F
from .module import Module
from .utils import _pair, _single, _triple

__all__ = ["MaxPool1d", "MaxPool2d", "MaxPool3d", "AvgPool1d", "AvgPool2d", "AvgPool3d", "AdaptiveAvgPool1d",
           "AdaptiveAvgPool2d", "AdaptiveAvgPool3d", "AdaptiveMaxPool1d", "AdaptiveMaxPool2d", "AdaptiveMaxPool3d",
           "MaxUnpool1d", "MaxUnpool2d", "MaxUnpool3d", "LPPool1d", "LPPool2d", "LPPool3d", "FractionalMaxPool2d",
           "FractionalMaxPool3d"]


class _MaxPoolNd(Module):
    __constants__ = ["kernel_size", "stride", "padding", "dilation", "return_indices", "ceil_mode"]

    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices=False, ceil_mode=False):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if (stride is not None) else kernel_size
        self.padding, self.dilation = padding, dilation
        self.return_indices, self.ceil_mode = return_indices, ceil_mode

    def extra_repr(self):
        return ("kernel_size={kernel_size}, stride={stride}, padding={padding}, dilation={dilation}, "
                "ceil_mode={ceil_mode}".format(**self.__dict__))


class MaxPool1d(_MaxPoolNd):
    def forward(self, input):
        return F.max_pool1d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                            ceil_mode=self.ceil_mode, return_indices=self.return_indices)


class MaxPool2d(_MaxPoolNd):
    def forward(self, input):
        return F.max_pool2d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                            ceil_mode=self.ceil_mode, return_indices=self.return_indices)


class MaxPool3d(_MaxPoolNd):
    def forward(self, input):
        return F.max_pool3d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                            ceil_mode=self.ceil_mode, return_indices=self.return_indices)


class _AvgPoolNd(Module):
    __constants__ = ["kernel_size", "stride", "padding", "ceil_mode", "count_include_pad"]

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AvgPool1d(_AvgPoolNd):
    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
        super().__init__()
        self.kernel_size = _single(kernel_size)
        self.stride = _single(stride if stride is not None else kernel_size)
        self.padding = _single(padding)
        self.ceil_mode, self.count_include_pad = ceil_mode, count_include_pad

    def forward(self, input):
        return F.avg_pool1d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad)


class AvgPool2d(_AvgPoolNd):
    __constants__ = _AvgPoolNd.__constants__ + ["divisor_override"]

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
                 divisor_override=None):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if (stride is not None) else kernel_size
        self.padding, self.ceil_mode = padding, ceil_mode
        self.count_include_pad, self.divisor_override = count_include_pad, divisor_override

    def forward(self, input):
        return F.avg_pool2d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad, self.divisor_override)


class AvgPool3d(_AvgPoolNd):
    __constants__ = _AvgPoolNd.__constants__ + ["divisor_override"]

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
                 divisor_override=None):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if (stride is not None) else kernel_size
        self.padding, self.ceil_mode = padding, ceil_mode
        self.count_include_pad, self.divisor_override = count_include_pad, divisor_override

    def forward(self, input):
        return F.avg_pool3d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad, self.divisor_override)


class _AdaptiveAvgPoolNd(Module):
    __constants__ = ["output_size"]

    def __init__(self, output_size):
        super().__init__()
        self.output_size = output_size

    def extra_repr(self):
        return f"output_size={self.output_size}"


class AdaptiveAvgPool1d(_AdaptiveAvgPoolNd):
    def forward(self, input):
        return F.adaptive_avg_pool1d(input, self.output_size)


class AdaptiveAvgPool2d(_AdaptiveAvgPoolNd):
    def forward(self, input):
        return F.adaptive_avg_pool2d(input, self.output_size)


class AdaptiveAvgPool3d(_AdaptiveAvgPoolNd):
    def forward(self, input):
        return F.adaptive_avg_pool3d(input, self.output_size)


class _AdaptiveMaxPoolNd(Module):
    __constants__ = ["output_size", "return_indices"]

    def __init__(self, output_size, return_indices=False):
        super().__init__()
        self.output_size, self.return_indices = output_size, return_indices

    def extra_repr(self):
        return f"output_size={self.output_size}"


class AdaptiveMaxPool1d(_AdaptiveMaxPoolNd):
    def forward(self, input):
        return F.adaptive_max_pool1d(input, self.output_size, self.return_indices)


class AdaptiveMaxPool2d(_AdaptiveMaxPoolNd):
    def forward(self, input):
        return F.adaptive_max_pool2d(input, self.output_size, self.return_indices)


class AdaptiveMaxPool3d(_AdaptiveMaxPoolNd):
    def forward(self, input):
        return F.adaptive_max_pool3d(input, self.output_size, self.return_indices)


class MaxUnpool2d(Module):
    def __init__(self, kernel_size, stride=None, padding=0):
        super().__init__()
        self.kernel_size = kernel_size if not isinstance(kernel_size, int) else (kernel_size, kernel_size)
        s = stride if stride is not None else kernel_size
        self.stride = s if not isinstance(s, int) else (s, s)
        self.padding = padding if not isinstance(padding, int) else (padding, padding)

    def forward(self, input, indices, output_size=None):
        return F.max_unpool2d(input, indices, self.kernel_size, self.stride, self.padding, output_size)

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class _MaxUnpoolNd(Module):
    _dims = 1

    def __init__(self, kernel_size, stride=None, padding=0):
        super().__init__()
        self.kernel_size = _n_tuple(kernel_size, self._dims)
        self.stride = _n_tuple(stride if stride is not None else kernel_size, self._dims)
        self.padding = _n_tuple(padding, self._dims)

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class MaxUnpool1d(_MaxUnpoolNd):
    def forward(self, input, indices, output_size=None):
        return F.max_unpool1d(input, indices, self.kernel_size, self.stride, self.padding, output_size)


class MaxUnpool3d(_MaxUnpoolNd):
    _dims = 3

    def forward(self, input, indices, output_size=None):
        return F.max_unpool3d(input, indices, self.kernel_size, self.stride, self.padding, output_size)


def _n_tuple(v, n):
    return tuple(v) if isinstance(v, (list, tuple)) else (v,) * n


class _LPPoolNd(Module):
    __constants__ = ["norm_type", "kernel_size", "stride", "ceil_mode"]

    def __init__(self, norm_type, kernel_size, stride=None, ceil_mode=False):
        super().__init__()
        self.norm_type = norm_type
        self.kernel_size = kernel_size
        self.stride = stride
        self.ceil_mode = ceil_mode

    def extra_repr(self):
        return "norm_type={norm_type}, kernel_size={kernel_size}, stride={stride}, ceil_mode={ceil_mode}".format(
            **self.__dict__)


class LPPool1d(_LPPoolNd):
    def forward(self, input):
        return F.lp_pool1d(input, float(self.norm_type), self.kernel_size, self.stride, self.ceil_mode)


class LPPool2d(_LPPoolNd):
    def forward(self, input):
        return F.lp_pool2d(input, float(self.norm_type), self.kernel_size, self.stride, self.ceil_mode)


class LPPool3d(_LPPoolNd):
    def forward(self, input):
        return F.lp_pool3d(input, float(self.norm_type), self.kernel_size, self.stride, self.ceil_mode)


class _FractionalMaxPoolNd(Module):
    """Fractional max pooling of d spatial dims: an output_size or an output_ratio in (0, 1); _random_samples,
    when given, is a buffer fixing the windows (torch's deterministic form)."""
    __constants__ = ["kernel_size", "return_indices", "output_size", "output_ratio"]
    _d = 2

    def __init__(self, kernel_size, output_size=None, output_ratio=None, return_indices=False, _random_samples=None):
        super().__init__()
        tup = _pair if self._d == 2 else _triple
        if self._d == 3 and ((isinstance(kernel_size, int) and kernel_size <= 0) or
                             (isinstance(kernel_size, (tuple, list)) and not all(k > 0 for k in kernel_size))):
            raise ValueError(f"kernel_size must be greater than 0, but got {kernel_size}")
        self.kernel_size = tup(kernel_size)
        self.return_indices = return_indices
        self.register_buffer("_random_samples", _random_samples)
        self.output_size = tup(output_size) if output_size is not None else None
        self.output_ratio = tup(output_ratio) if output_ratio is not None else None
        if output_size is None and output_ratio is None:
            raise ValueError(f"{type(self).__name__} requires specifying either an output size, or a pooling ratio")
        if output_size is not None and output_ratio is not None:
            raise ValueError("only one of output_size and output_ratio may be specified")
        if self.output_ratio is not None and not all(0 < r < 1 for r in self.output_ratio):
            raise ValueError(f"output_ratio must be between 0 and 1 (got {output_ratio})")

    def forward(self, input):
        fn = F.fractional_max_pool2d if self._d == 2 else F.fractional_max_pool3d
        return fn(input, self.kernel_size, self.output_size, self.output_ratio, self.return_indices,
                  _random_samples=self._random_samples)


class FractionalMaxPool2d(_FractionalMaxPoolNd):
    _d = 2


class FractionalMaxPool3d(_FractionalMaxPoolNd):
    _d = 3
