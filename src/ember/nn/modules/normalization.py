"""LayerNorm, GroupNorm, RMSNorm, LocalResponseNorm (torch/nn/modules/normalization.py)."""
import numbers
import warnings

import ember
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .batchnorm import _NormBase, _dims
from .module import Module

__all__ = ["LayerNorm", "GroupNorm", "RMSNorm", "LocalResponseNorm", "CrossMapLRN2d"]


def _shape(normalized_shape):
    if isinstance(normalized_shape, numbers.Integral):
        return (normalized_shape,)
    return tuple(normalized_shape)


def _affine_parameters(module, shape, affine, bias, factory_kwargs):
    """weight (and bias unless bias=False) of `shape` when affine, else both registered as None."""
    if affine:
        module.weight = Parameter(ember.empty(shape, **factory_kwargs))
        if bias:
            module.bias = Parameter(ember.empty(shape, **factory_kwargs))
        else:
            module.register_parameter("bias", None)
    else:
        module.register_parameter("weight", None)
        module.register_parameter("bias", None)


def _reset_affine(module):
    if module.weight is not None:
        init.ones_(module.weight)
    if module.bias is not None:
        init.zeros_(module.bias)


class LayerNorm(Module):
    __constants__ = ["normalized_shape", "eps", "elementwise_affine"]

    def __init__(self, normalized_shape, eps=1e-5, elementwise_affine=True, bias=True, device=None, dtype=None):
        kw = {"device": device, "dtype": dtype}
        super().__init__()
        self.normalized_shape = _shape(normalized_shape)
        self.eps, self.elementwise_affine = eps, elementwise_affine
        _affine_parameters(self, self.normalized_shape, elementwise_affine, bias, kw)
        self.reset_parameters()

    def reset_parameters(self):
        _reset_affine(self)

    def forward(self, input):
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return "{normalized_shape}, eps={eps}, elementwise_affine={elementwise_affine}, bias={use_bias}".format(
            **self.__dict__, use_bias=self.bias is not None)


class RMSNorm(Module):
    __constants__ = ["normalized_shape", "eps", "elementwise_affine"]

    def __init__(self, normalized_shape, eps=None, elementwise_affine=True, device=None, dtype=None):
        super().__init__()
        self.normalized_shape = _shape(normalized_shape)
        self.eps, self.elementwise_affine = eps, elementwise_affine
        if elementwise_affine:
            self.weight = Parameter(ember.empty(self.normalized_shape, device=device, dtype=dtype))
        else:
            self.register_parameter("weight", None)
        self.reset_parameters()

    def reset_parameters(self):
        if self.elementwise_affine:
            init.ones_(self.weight)

    def forward(self, x):
        return F.rms_norm(x, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self):
        return "{normalized_shape}, eps={eps}, elementwise_affine={elementwise_affine}".format(**self.__dict__)


class GroupNorm(Module):
    __constants__ = ["num_groups", "num_channels", "eps", "affine"]

    def __init__(self, num_groups, num_channels, eps=1e-5, affine=True, device=None, dtype=None, *, bias=True):
        super().__init__()
        if num_channels % num_groups != 0:
            raise ValueError("num_channels must be divisible by num_groups")
        self.num_groups, self.num_channels, self.eps, self.affine = num_groups, num_channels, eps, affine
        _affine_parameters(self, num_channels, affine, bias, {"device": device, "dtype": dtype})
        self.reset_parameters()

    def reset_parameters(self):
        _reset_affine(self)

    def forward(self, input):
        return F.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return "{num_groups}, {num_channels}, eps={eps}, affine={affine}, bias={use_bias}".format(
            **self.__dict__, use_bias=self.bias is not None)


class LocalResponseNorm(Module):
    __constants__ = ["size", "alpha", "beta", "k"]

    def __init__(self, size, alpha=1e-4, beta=0.75, k=1.0):
        super().__init__()
        self.size, self.alpha, self.beta, self.k = size, alpha, beta, k

    def forward(self, input):
        return F.local_response_norm(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self):
        return "{size}, alpha={alpha}, beta={beta}, k={k}".format(**self.__dict__)


def _cross_map_lrn2d(input, size, alpha, beta, k):
    """torch's legacy CrossMapLRN2d (nn/modules/_functions.py, from Lua torch): input * scale ** -beta with
    scale = k + alpha / size * (a sum of squares over channels). torch builds the sum with a running window
    whose first channel, once in, never leaves: channel c sums squares over [lo, hi] plus channel 0 when
    c > pre_pad, where pre_pad = (size - 1) // 2 + 1, hi = min(c + pre_pad - 1, C - 1) and lo = 0 for
    c <= pre_pad, else c - pre_pad + 1. Written here in ops (prefix sums), so the gradient is the exact one of
    that sum (torch's hand-written backward assumes a centred window and differs from it)."""
    if input.dim() != 4:
        raise ValueError(f"CrossMapLRN2d: Expected input to be 4D, got {input.dim()}D instead.")
    channels = input.size(1)
    pre_pad = int((size - 1) / 2 + 1)
    sq = input * input
    prefix = ember.cat([ember.zeros_like(sq[:, :1]), sq.cumsum(1)], 1)        # prefix[:, i] = sum sq[:, :i]
    hi = [min(c + pre_pad - 1, channels - 1) + 1 for c in range(channels)]
    lo = [0 if c <= pre_pad else c - pre_pad + 1 for c in range(channels)]
    idx = lambda v: ember.tensor(v, dtype=ember.int64, device=input.device)  # noqa: E731
    total = prefix.index_select(1, idx(hi)) - prefix.index_select(1, idx(lo))
    first = ember.tensor([float(c > pre_pad) for c in range(channels)], dtype=input.dtype, device=input.device)
    total = total + sq[:, :1] * first.view(1, -1, 1, 1)
    scale = total * (alpha / size) + k
    return input * scale.pow(-beta)


class CrossMapLRN2d(Module):
    """Local response normalisation across channels of a 4-d input, in torch's legacy (Lua) form."""

    def __init__(self, size, alpha=1e-4, beta=0.75, k=1):
        super().__init__()
        self.size, self.alpha, self.beta, self.k = size, alpha, beta, k

    def forward(self, input):
        return _cross_map_lrn2d(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self):
        return "{size}, alpha={alpha}, beta={beta}, k={k}".format(**self.__dict__)
