"""nn.functional (torch/nn/functional.py): the stateless ops layers are built from.

Each function composes ember ops, so autograd records the same graph torch would. The conv / pool / norm /
loss / attention entry points live in `ember.kernels.functional_impl` (next to the nn kernels) and are
re-exported here; activations are thin wrappers over ember's activation ops.
"""
import warnings

import ember
from .._arg_parser import _bad_arg
from .._tensor import Tensor
from ..kernels import functional_impl as _impl
from ..kernels.functional_impl import *  # noqa: F401,F403
from ..kernels.functional_impl import __all__ as _impl_all
from ..kernels.functional_margin import multi_margin_loss, multilabel_margin_loss  # noqa: F401
from ..kernels.functional_pool3d import *  # noqa: F401,F403
from ..kernels.functional_pool3d import __all__ as _pool3d_all

__all__ = list(_impl_all) + list(_pool3d_all) + ["multi_margin_loss", "multilabel_margin_loss"] + [
    "relu", "relu_", "sigmoid", "tanh", "gelu", "silu", "mish", "softplus", "elu", "elu_", "selu", "selu_",
    "celu", "celu_", "leaky_relu", "leaky_relu_", "hardtanh", "hardtanh_", "relu6", "hardsigmoid", "hardswish",
    "logsigmoid", "softsign", "threshold", "threshold_", "glu", "prelu", "rrelu", "rrelu_", "tanhshrink",
    "softshrink", "hardshrink", "multi_head_attention_forward",
]

def linear(input, weight, bias=None):
    # the generated binding's checks (torch's F.linear is the binding itself); this one skips a dispatch
    if input.__class__ is not Tensor and not isinstance(input, Tensor):
        raise _bad_arg("linear", "input", 1, "Tensor", input)
    if weight.__class__ is not Tensor and not isinstance(weight, Tensor):
        raise _bad_arg("linear", "weight", 2, "Tensor", weight)
    if bias is not None and bias.__class__ is not Tensor and not isinstance(bias, Tensor):
        raise _bad_arg("linear", "bias", 3, "Tensor", bias)
    if bias is not None:
        if input.dim() == 2:
            return ember.addmm(bias, input, weight.t())
        if input.dim() > 2 and input.is_contiguous():
            # like torch: fold the leading dims into one addmm (one gemm with the bias fused, and
            # a 2-D backward) instead of a batched matmul plus a broadcast add
            lead = input._size[:-1]
            rows = 1
            for n in lead:
                rows *= n           # not view(-1, k): k may be 0
            return ember.addmm(bias, input.view(rows, input._size[-1]), weight.t()).view(*lead, weight._size[0])
    out = ember.matmul(input, weight.t())
    return out + bias if bias is not None else out


def relu(input, inplace=False):
    return ember.relu_(input) if inplace else ember.relu(input)


def relu_(input):
    return ember.relu_(input)


def sigmoid(input):
    return ember.sigmoid(input)


def tanh(input):
    return ember.tanh(input)


def _check_reduction(size_average, reduce, reduction):
    if size_average is not None or reduce is not None:
        warnings.warn("size_average and reduce args will be deprecated, please use reduction='{}' instead.".format(
            _legacy_reduction(size_average, reduce)))
        return _legacy_reduction(size_average, reduce)
    return reduction


def _legacy_reduction(size_average, reduce):
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    if size_average and reduce:
        return "mean"
    return "sum" if reduce else "none"


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    if not (target.size() == input.size()):
        warnings.warn(f"Using a target size ({target.size()}) that is different to the input size ({input.size()}). "
                      "This will likely lead to incorrect results due to broadcasting. Please ensure they have the "
                      "same size.", stacklevel=2)
    reduction = _check_reduction(size_average, reduce, reduction)
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    diff = input - target
    sq = diff * diff
    if weight is not None:
        sq = sq * weight
    if reduction == "none":
        return sq
    return sq.sum() if reduction == "sum" else sq.mean()


# ---------------------------------------------------------------- activations
def _act(op, op_):
    def f(input, inplace=False):
        return op_(input) if inplace else op(input)
    return f


def gelu(input, approximate="none"):
    return ember._nn.gelu(input, approximate=approximate)


silu = _act(ember._nn.silu, ember._nn.silu_)
mish = _act(ember._nn.mish, ember._nn.mish_)
selu = _act(ember.selu, ember.selu_)
relu6 = _act(ember._nn.relu6, ember._nn.relu6_)
hardsigmoid = _act(ember._nn.hardsigmoid, ember._nn.hardsigmoid_)
hardswish = _act(ember._nn.hardswish, ember._nn.hardswish_)
selu_ = ember.selu_
for _f, _n in [(silu, "silu"), (mish, "mish"), (selu, "selu"), (relu6, "relu6"), (hardsigmoid, "hardsigmoid"),
               (hardswish, "hardswish")]:
    _f.__name__ = _f.__qualname__ = _n


def softplus(input, beta=1.0, threshold=20.0):
    return ember._nn.softplus(input, beta, threshold)


def elu(input, alpha=1.0, inplace=False):
    return ember._nn.elu_(input, alpha) if inplace else ember._nn.elu(input, alpha)


def elu_(input, alpha=1.0):
    return ember._nn.elu_(input, alpha)


def celu(input, alpha=1.0, inplace=False):
    return ember.celu_(input, alpha) if inplace else ember.celu(input, alpha)


def celu_(input, alpha=1.0):
    return ember.celu_(input, alpha)


def leaky_relu(input, negative_slope=0.01, inplace=False):
    return ember._nn.leaky_relu_(input, negative_slope) if inplace else ember._nn.leaky_relu(input, negative_slope)


def leaky_relu_(input, negative_slope=0.01):
    return ember._nn.leaky_relu_(input, negative_slope)


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    return ember._nn.hardtanh_(input, min_val, max_val) if inplace else ember._nn.hardtanh(input, min_val, max_val)


def hardtanh_(input, min_val=-1.0, max_val=1.0):
    return hardtanh(input, min_val, max_val, inplace=True)


def logsigmoid(input):
    return ember._nn.log_sigmoid(input)


def softsign(input):
    return input / (input.abs() + 1)


def tanhshrink(input):
    return input - input.tanh()


def softshrink(input, lambd=0.5):
    if lambd < 0:
        raise RuntimeError(f"lambda must be greater or equal to 0, but found to be {lambd}.")
    zero = ember.zeros((), dtype=input.dtype)
    return ember.where(input > lambd, input - lambd, ember.where(input < -lambd, input + lambd, zero))


def hardshrink(input, lambd=0.5):
    zero = ember.zeros((), dtype=input.dtype)
    return ember.where((input > lambd) | (input < -lambd), input, zero)


def threshold(input, threshold, value, inplace=False):
    return ember.threshold_(input, threshold, value) if inplace else ember.threshold(input, threshold, value)


def threshold_(input, threshold, value):
    return ember.threshold_(input, threshold, value)


def glu(input, dim=-1):
    if input.dim() == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    return ember._nn.glu(input, dim)


def prelu(input, weight):
    return ember.prelu(input, weight)


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, inplace=False):
    if not training:
        return leaky_relu(input, (lower + upper) / 2, inplace)
    slopes = ember.empty(input.shape, dtype=input.dtype).uniform_(lower, upper)
    out = ember.where(input >= 0, input, input * slopes)
    if inplace:
        with ember.no_grad():
            input.copy_(out)
        return input
    return out


def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False):
    return rrelu(input, lower, upper, training, True)


def multi_head_attention_forward(*args, **kwargs):
    from .modules.attention import _mha_forward
    return _mha_forward(*args, **kwargs)


def triplet_margin_with_distance_loss(anchor, positive, negative, *, distance_function=None, margin=1.0,
                                      swap=False, reduction="mean"):
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    dist = distance_function if distance_function is not None else pairwise_distance  # noqa: F405
    d_pos = dist(anchor, positive)
    d_neg = dist(anchor, negative)
    if swap:
        d_neg = ember.minimum(d_neg, dist(positive, negative))
    loss = ember.clamp_min(margin + d_pos - d_neg, 0)
    if reduction == "none":
        return loss
    return loss.mean() if reduction == "mean" else loss.sum()


__all__.append("triplet_margin_with_distance_loss")
