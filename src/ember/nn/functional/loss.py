"""nn.functional's losses (torch/nn/functional.py): string reductions and legacy size_average/reduce
(nn/_reduction.py), F-level checks and warnings, then the aten loss ops."""
import math
import warnings


import ember
from .distance import pairwise_distance
from .._reduction import get_enum, legacy_get_string, reduction_enum as _reduction_enum
from ._common import _RED, _apply_reduction, _torch_size
from ..._core import torch_function as _tf  # noqa: E402

_TF = False      # the __torch_function__ check: kept current by _tf.register (see _core/torch_function.py)
_tf.register(globals())

__all__ = ["cross_entropy", "nll_loss", "l1_loss", "smooth_l1_loss", "huber_loss", "binary_cross_entropy",
           "binary_cross_entropy_with_logits", "kl_div", "soft_margin_loss", "margin_ranking_loss",
           "hinge_embedding_loss", "cosine_embedding_loss", "triplet_margin_loss", "poisson_nll_loss",
           "gaussian_nll_loss", "multilabel_soft_margin_loss", "ctc_loss", "mse_loss",
           "triplet_margin_with_distance_loss", "multi_margin_loss", "multilabel_margin_loss"]


def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean",
                  label_smoothing=0.0):
    if _TF:      # torch's has_torch_function check: a mode or subclass sees F.cross_entropy
        _r = _tf.handle_locals(cross_entropy, locals())
        if _r is not _tf.NOT_HANDLED:
            return _r
    return ember._nn.cross_entropy_loss(input, target, weight, _reduction_enum(reduction, size_average, reduce), ignore_index,
                                label_smoothing)


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean"):
    if _TF:      # torch's has_torch_function check: a mode or subclass sees F.nll_loss
        _r = _tf.handle_locals(nll_loss, locals())
        if _r is not _tf.NOT_HANDLED:
            return _r
    return ember._nn.nll_loss_nd(input, target, weight, _reduction_enum(reduction, size_average, reduce), ignore_index)


def _size_warning(input, target, name):
    if tuple(target.shape) != tuple(input.shape):
        warnings.warn(f"Using a target size ({_torch_size(target)}) that is different to the input size "
                      f"({_torch_size(input)}). This will likely lead to incorrect results due to broadcasting. "
                      f"Please ensure they have the same size.", stacklevel=3)


def _weighted(op, input, target, reduction, weight, *extra):
    if weight is None:
        return op(input, target, _RED[reduction], *extra)
    loss = op(input, target, 0, *extra) * weight
    return _apply_reduction(loss, reduction)


def l1_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    if _TF:      # torch's has_torch_function check: a mode or subclass sees F.l1_loss
        _r = _tf.handle_locals(l1_loss, locals())
        if _r is not _tf.NOT_HANDLED:
            return _r
    _size_warning(input, target, "l1_loss")
    reduction = _name(_reduction_enum(reduction, size_average, reduce))
    if input.shape != target.shape:
        input, target = ember.broadcast_tensors(input, target)
    if weight is None:
        return ember._nn.l1_loss(input, target, _RED[reduction])
    return _weighted_mean_by_weight_sum((input - target).abs(), weight, input, reduction)


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    if _TF:      # torch's has_torch_function check: a mode or subclass sees F.smooth_l1_loss
        _r = _tf.handle_locals(smooth_l1_loss, locals())
        if _r is not _tf.NOT_HANDLED:
            return _r
    _size_warning(input, target, "smooth_l1_loss")
    return ember._nn.smooth_l1_loss(input, target, _reduction_enum(reduction, size_average, reduce), beta)


def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    if _TF:      # torch's has_torch_function check: a mode or subclass sees F.huber_loss
        _r = _tf.handle_locals(huber_loss, locals())
        if _r is not _tf.NOT_HANDLED:
            return _r
    _size_warning(input, target, "huber_loss")
    _reduction_enum(reduction)
    return _weighted(ember._nn.huber_loss, input, target, reduction, weight, delta)


def _name(code):
    return {0: "none", 1: "mean", 2: "sum"}[code]


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    if _TF:      # torch's has_torch_function check: a mode or subclass sees F.binary_cross_entropy
        _r = _tf.handle_locals(binary_cross_entropy, locals())
        if _r is not _tf.NOT_HANDLED:
            return _r
    r = _reduction_enum(reduction, size_average, reduce)
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(f"Using a target size ({_torch_size(target)}) that is different to the input size "
                         f"({_torch_size(input)}) is deprecated. Please ensure they have the same size.")
    if weight is not None:
        _check_broadcastable(weight, input.shape, 1)
        weight = weight.expand(input.shape)
    return ember._nn.binary_cross_entropy(input, target, weight, r)


def _check_broadcastable(t, shape, index):
    """torch's expand check for a weight broadcast to the input shape (message names the argument index)."""
    ts = list(t.shape)
    for i in range(1, len(ts) + 1):
        if i > len(shape) or ts[-i] not in (1, shape[-i]):
            raise RuntimeError(f"Attempting to broadcast a dimension of length {ts[-i]} at -{i}! Mismatching argument "
                               f"at index {index} had {_torch_size(t)}; but expected shape should be broadcastable "
                               f"to {list(shape)}")


def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None, reduction="mean",
                                     pos_weight=None):
    if _TF:      # torch's has_torch_function check: a mode or subclass sees F.binary_cross_entropy_with_logits
        _r = _tf.handle_locals(binary_cross_entropy_with_logits, locals())
        if _r is not _tf.NOT_HANDLED:
            return _r
    r = _reduction_enum(reduction, size_average, reduce)
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(f"Target size ({_torch_size(target)}) must be the same as input size ({_torch_size(input)})")
    return ember.binary_cross_entropy_with_logits(input, target, weight, pos_weight, r)


def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    if _TF:      # torch's has_torch_function check: a mode or subclass sees F.kl_div
        _r = _tf.handle_locals(kl_div, locals())
        if _r is not _tf.NOT_HANDLED:
            return _r
    if size_average is not None or reduce is not None:
        reduction = _name(_reduction_enum(reduction, size_average, reduce))
    if reduction == "mean":
        warnings.warn("reduction: 'mean' divides the total loss by both the batch size and the support size."
                      "'batchmean' divides only by the batch size, and aligns with the KL div math definition."
                      "'mean' will be changed to behave the same as 'batchmean' in the next major release.")
    if reduction == "batchmean":
        loss = ember.kl_div(input, target, 2, log_target=log_target)
        return loss / input.shape[0] if input.dim() != 0 else loss
    return ember.kl_div(input, target, _reduction_enum(reduction), log_target=log_target)


def soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    if _TF:      # torch's has_torch_function check: a mode or subclass sees F.soft_margin_loss
        _r = _tf.handle_locals(soft_margin_loss, locals())
        if _r is not _tf.NOT_HANDLED:
            return _r
    return ember._nn.soft_margin_loss(input, target, _reduction_enum(reduction, size_average, reduce))


def margin_ranking_loss(input1, input2, target, margin=0, size_average=None, reduce=None, reduction="mean"):
    if _TF:      # torch's has_torch_function check: a mode or subclass sees F.margin_ranking_loss
        _r = _tf.handle_locals(margin_ranking_loss, locals())
        if _r is not _tf.NOT_HANDLED:
            return _r
    r = _reduction_enum(reduction, size_average, reduce)
    if input1.dim() != input2.dim() or input1.dim() != target.dim():
        raise RuntimeError(f"margin_ranking_loss : All input tensors should have same dimension but got sizes: "
                           f"input1: {_torch_size(input1)}, input2: {_torch_size(input2)}, target: "
                           f"{_torch_size(target)} ")
    return ember.margin_ranking_loss(input1, input2, target, margin, r)


def hinge_embedding_loss(input, target, margin=1.0, size_average=None, reduce=None, reduction="mean"):
    if _TF:      # torch's has_torch_function check: a mode or subclass sees F.hinge_embedding_loss
        _r = _tf.handle_locals(hinge_embedding_loss, locals())
        if _r is not _tf.NOT_HANDLED:
            return _r
    return ember.hinge_embedding_loss(input, target, margin, _reduction_enum(reduction, size_average, reduce))


def cosine_embedding_loss(input1, input2, target, margin=0, size_average=None, reduce=None, reduction="mean"):
    if _TF:      # torch's has_torch_function check: a mode or subclass sees F.cosine_embedding_loss
        _r = _tf.handle_locals(cosine_embedding_loss, locals())
        if _r is not _tf.NOT_HANDLED:
            return _r
    return ember.cosine_embedding_loss(input1, input2, target, margin, _reduction_enum(reduction, size_average, reduce))


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False, size_average=None,
                        reduce=None, reduction="mean"):
    if _TF:      # torch's has_torch_function check: a mode or subclass sees F.triplet_margin_loss
        _r = _tf.handle_locals(triplet_margin_loss, locals())
        if _r is not _tf.NOT_HANDLED:
            return _r
    return ember.triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap,
                                 _reduction_enum(reduction, size_average, reduce))


def poisson_nll_loss(input, target, log_input=True, full=False, size_average=None, eps=1e-8, reduce=None,
                     reduction="mean"):
    if _TF:      # torch's has_torch_function check: a mode or subclass sees F.poisson_nll_loss
        _r = _tf.handle_locals(poisson_nll_loss, locals())
        if _r is not _tf.NOT_HANDLED:
            return _r
    return ember.poisson_nll_loss(input, target, log_input, full, eps, _reduction_enum(reduction, size_average, reduce))


def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction="mean"):
    if _TF:      # torch's has_torch_function check: a mode or subclass sees F.gaussian_nll_loss
        _r = _tf.handle_locals(gaussian_nll_loss, locals())
        if _r is not _tf.NOT_HANDLED:
            return _r
    if isinstance(var, (int, float)):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        var = ember.full_like(input, float(var))
    if tuple(var.shape) != tuple(input.shape):
        if tuple(input.shape[:-1]) == tuple(var.shape):
            var = var.unsqueeze(-1)
        elif not (tuple(input.shape[:-1]) == tuple(var.shape[:-1]) and var.shape[-1] == 1):
            raise ValueError("var is of incorrect size")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not a valid value for reduction")
    if bool((var < 0).any()):
        raise ValueError("var has negative entry/entries")
    var = ember.clamp(var, min=eps)
    loss = 0.5 * (ember.log(var) + (input - target) ** 2 / var)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _apply_reduction(loss, reduction)


def multilabel_soft_margin_loss(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    if _TF:      # torch's has_torch_function check: a mode or subclass sees F.multilabel_soft_margin_loss
        _r = _tf.handle_locals(multilabel_soft_margin_loss, locals())
        if _r is not _tf.NOT_HANDLED:
            return _r
    if size_average is not None or reduce is not None:
        reduction = _name(_reduction_enum(reduction, size_average, reduce))
    loss = -(target * ember._nn.log_sigmoid(input) + (1 - target) * ember._nn.log_sigmoid(-input))
    if weight is not None:
        loss = loss * weight
    loss = loss.sum(dim=loss.dim() - 1) / input.shape[-1]
    if reduction not in _RED:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return _apply_reduction(loss, reduction)


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction="mean", zero_infinity=False):
    if _TF:      # torch's has_torch_function check: a mode or subclass sees F.ctc_loss
        _r = _tf.handle_locals(ctc_loss, locals())
        if _r is not _tf.NOT_HANDLED:
            return _r
    return ember.ctc_loss(log_probs, targets, input_lengths, target_lengths, blank, _reduction_enum(reduction), zero_infinity)


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    if _TF:      # torch's has_torch_function check: a mode or subclass sees F.mse_loss
        _r = _tf.handle_locals(mse_loss, locals())
        if _r is not _tf.NOT_HANDLED:
            return _r
    if not (target.size() == input.size()):
        warnings.warn(f"Using a target size ({target.size()}) that is different to the input size ({input.size()}). "
                      "This will likely lead to incorrect results due to broadcasting. Please ensure they have the "
                      "same size.", stacklevel=2)
    if size_average is not None or reduce is not None:
        reduction = legacy_get_string(size_average, reduce)
    enum = get_enum(reduction)     # a ValueError for an unknown reduction
    if input.shape != target.shape:
        input, target = ember.broadcast_tensors(input, target)
    if weight is None:
        return ember._nn.mse_loss(input, target, enum)
    return _weighted_mean_by_weight_sum((input - target).pow(2), weight, input, reduction)


def _weighted_mean_by_weight_sum(loss, weight, input, reduction):
    """torch's weighted l1_loss / mse_loss: a weighted mean divides by the sum of the weights."""
    if weight.size() != input.size():
        raise ValueError("Weights and input must have the same size.")
    loss = loss * weight
    if reduction == "none":
        return loss
    return ember.sum(loss) if reduction == "sum" else ember.sum(loss) / ember.sum(weight)


def triplet_margin_with_distance_loss(anchor, positive, negative, *, distance_function=None, margin=1.0,
                                      swap=False, reduction="mean"):
    if _TF:      # torch's has_torch_function check: a mode or subclass sees F.triplet_margin_with_distance_loss
        _r = _tf.handle_locals(triplet_margin_with_distance_loss, locals())
        if _r is not _tf.NOT_HANDLED:
            return _r
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    dist = distance_function if distance_function is not None else pairwise_distance
    d_pos = dist(anchor, positive)
    d_neg = dist(anchor, negative)
    if swap:
        d_neg = ember.minimum(d_neg, dist(positive, negative))
    loss = ember.clamp_min(margin + d_pos - d_neg, 0)
    if reduction == "none":
        return loss
    return loss.mean() if reduction == "mean" else loss.sum()


def multi_margin_loss(input, target, p=1, margin=1.0, weight=None, size_average=None, reduce=None,
                      reduction="mean"):
    if _TF:      # torch's has_torch_function check: a mode or subclass sees F.multi_margin_loss
        _r = _tf.handle_locals(multi_margin_loss, locals())
        if _r is not _tf.NOT_HANDLED:
            return _r
    r = _reduction_enum(reduction, size_average, reduce)
    if p != 1 and p != 2:
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.dim() != 1:
        raise ValueError("weight must be one-dimensional")
    return ember._nn.multi_margin_loss(input, target, p, margin, weight, r)


def multilabel_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    if _TF:      # torch's has_torch_function check: a mode or subclass sees F.multilabel_margin_loss
        _r = _tf.handle_locals(multilabel_margin_loss, locals())
        if _r is not _tf.NOT_HANDLED:
            return _r
    return ember._nn.multilabel_margin_loss(input, target, _reduction_enum(reduction, size_average, reduce))
