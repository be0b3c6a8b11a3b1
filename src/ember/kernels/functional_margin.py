"""nn.functional entry points of the multi-class margin losses (torch/nn/functional.py): the F-level
argument checks, then the aten ops of native/nn_extra.yaml."""
import ember as E

from .functional_impl import _reduction

__all__ = ["multi_margin_loss", "multilabel_margin_loss"]


def multi_margin_loss(input, target, p=1, margin=1.0, weight=None, size_average=None, reduce=None,
                      reduction="mean"):
    r = _reduction(reduction, size_average, reduce)
    if p != 1 and p != 2:
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.dim() != 1:
        raise ValueError("weight must be one-dimensional")
    return E._nn.multi_margin_loss(input, target, p, margin, weight, r)


def multilabel_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    return E._nn.multilabel_margin_loss(input, target, _reduction(reduction, size_average, reduce))
