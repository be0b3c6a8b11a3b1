"""nn.functional (torch/nn/functional.py): the stateless ops layers are built from.

Each function composes ember ops, so autograd records the same graph torch would.
"""
import warnings

import ember
from .._tensor import Tensor

__all__ = ["linear", "relu", "relu_", "sigmoid", "tanh", "mse_loss"]


def linear(input, weight, bias=None):
    if input.dim() == 2 and bias is not None:
        return ember.addmm(bias, input, weight.t())
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
