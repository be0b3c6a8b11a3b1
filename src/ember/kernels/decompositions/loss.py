"""CompositeImplicitAutograd kernels of the losses (torch's Loss.cpp composites): written in aten ops."""

from ..common import size_str
import math
from .distance import pairwise_distance
from ..._ops import ops

aten = ops.aten


def nll_loss_nd(self, target, weight=None, reduction=1, ignore_index=-100):
    if self.dim() < 1:
        raise ValueError(f"Expected 1 or more dimensions (got {self.dim()})")
    if self.dim() != 1 and target.dim() >= 1 and self._size[0] != target._size[0]:
        raise ValueError(f"Expected input batch_size ({self._size[0]}) to match target batch_size "
                         f"({target._size[0]}).")
    if self.dim() <= 2:
        return aten.nll_loss_forward.default(self, target, weight, reduction, ignore_index)[0]
    if self.dim() == 4:
        return aten.nll_loss2d_forward.default(self, target, weight, reduction, ignore_index)[0]
    n, c = self._size[:2]
    out_size = (n,) + tuple(self._size[2:])
    if tuple(target._size[1:]) != tuple(self._size[2:]):
        raise RuntimeError(f"Expected target size {size_str(out_size)}, got {size_str(target._size)}")
    x = aten.reshape.default(self, [n, c, 1, -1])
    t = aten.reshape.default(target, [n, 1, -1])
    out = aten.nll_loss2d_forward.default(x, t, weight, reduction, ignore_index)[0]
    return out if reduction != 0 else aten.reshape.default(out, list(out_size))


def _class_view(weight, self, class_dim):
    shape = [1] * self.dim()
    shape[class_dim] = weight._size[0]
    return aten.view.default(weight, shape)


def cross_entropy_loss(self, target, weight=None, reduction=1, ignore_index=-100, label_smoothing=0.0):
    class_dim = 0 if self.dim() == 1 else 1
    if not 0.0 <= label_smoothing <= 1.0:
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}")
    logp = aten._log_softmax.default(self, class_dim, False)
    if tuple(self._size) == tuple(target._size):
        return _ce_probs(self, logp, target, weight, reduction, label_smoothing, class_dim)
    nll = nll_loss_nd(logp, target, weight, reduction, ignore_index)
    if label_smoothing == 0.0:
        return nll
    return _ce_smooth(self, logp, target, nll, weight, reduction, ignore_index, label_smoothing, class_dim)


def _ce_probs(self, logp, target, weight, reduction, ls, class_dim):
    if not target.dtype.is_floating_point:
        raise RuntimeError(f"Expected floating point type for target with class probabilities, got "
                           f"{_tn(target.dtype)}")
    c = self._size[class_dim]
    if weight is not None and weight.numel() != c:
        raise RuntimeError(f"cross_entropy: weight tensor should be defined either for all {c} classes or no "
                           f"classes but got weight tensor of shape: {size_str(weight._size)}")
    if ls > 0:
        target = aten.add.Scalar(aten.mul.Scalar(target, 1 - ls), ls / c)
    loss = aten.mul.Tensor(logp, target)
    if weight is not None:
        loss = aten.mul.Tensor(loss, _class_view(weight, self, class_dim))
    if reduction == 0:
        return aten.neg.default(aten.sum.dim_IntList(loss, [class_dim]))
    total = aten.neg.default(aten.sum.default(loss))
    return total if reduction == 2 else aten.div.Scalar(total, self.numel() / c)


def _ce_smooth(self, logp, target, nll, weight, reduction, ignore_index, ls, class_dim):
    c = self._size[class_dim]
    mask = aten.eq.Scalar(target, ignore_index)
    x = logp if weight is None else aten.mul.Tensor(logp, _class_view(weight, self, class_dim))
    smooth = aten.neg.default(aten.sum.dim_IntList(x, [class_dim]))
    smooth = aten.where.self(mask, aten.zeros_like.default(smooth), smooth)
    if reduction == 1:
        if weight is None:
            denom = aten.sum.default(aten.logical_not.default(mask))
        else:
            tw = aten.index.Tensor(weight, [aten.where.self(mask, aten.zeros_like.default(target), target)])
            denom = aten.sum.default(aten.where.self(mask, aten.zeros_like.default(tw), tw))
        smooth = aten.div.Tensor(aten.sum.default(smooth), denom)
    elif reduction == 2:
        smooth = aten.sum.default(smooth)
    return aten.add.Tensor(aten.mul.Scalar(nll, 1 - ls), aten.mul.Scalar(smooth, ls / c))


def _tn(d):
    from ..common import _tname
    return _tname(d)


def _reduce(loss, reduction):
    if reduction == 0:
        return loss
    return aten.mean.default(loss) if reduction == 1 else aten.sum.default(loss)


def _zeros(t):
    return aten.zeros_like.default(t)


def margin_ranking_loss(input1, input2, target, margin=0.0, reduction=1):
    d = aten.sub.Tensor(input1, input2)
    out = aten.clamp_min.default(aten.add.Scalar(aten.mul.Tensor(aten.neg.default(target), d), margin), 0)
    return _reduce(out, reduction)


def hinge_embedding_loss(self, target, margin=1.0, reduction=1):
    clamp = aten.clamp_min.default(aten.add.Scalar(aten.neg.default(self), margin), 0)
    out_margin = aten.where.self(aten.ne.Scalar(target, 1), clamp, _zeros(clamp))
    out_self = aten.where.self(aten.ne.Scalar(target, -1), self, _zeros(self))
    return _reduce(aten.add.Tensor(out_margin, out_self), reduction)


def cosine_embedding_loss(input1, input2, target, margin=0.0, reduction=1):
    td = target.dim()
    if td > 1:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if input1.dim() != input2.dim():
        raise RuntimeError(f"cosine_embedding_loss : All input tensors should have same dimension but got sizes: "
                           f"input1: {size_str(input1._size)}, input2: {size_str(input2._size)}")
    if td == 1 and input1.dim() != 2 or td == 0 and input1.dim() != 1:
        raise RuntimeError(f"{td}D target tensor expects {td + 1}D input tensors, but found inputs with sizes "
                           f"{size_str(input1._size)} and {size_str(input2._size)}.")
    eps = 1e-12
    prod = aten.sum.dim_IntList(aten.mul.Tensor(input1, input2), [td])
    m1 = aten.add.Scalar(aten.sum.dim_IntList(aten.mul.Tensor(input1, input1), [td]), eps)
    m2 = aten.add.Scalar(aten.sum.dim_IntList(aten.mul.Tensor(input2, input2), [td]), eps)
    cos = aten.div.Tensor(prod, aten.sqrt.default(aten.mul.Tensor(m1, m2)))
    pos = aten.add.Scalar(aten.neg.default(cos), 1)
    neg = aten.clamp_min.default(aten.sub.Scalar(cos, margin), 0)
    out = aten.add.Tensor(aten.where.self(aten.eq.Scalar(target, 1), pos, _zeros(cos)),
                         aten.where.self(aten.eq.Scalar(target, -1), neg, _zeros(cos)))
    return _reduce(out, reduction)


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-06, swap=False, reduction=1):
    ad, pd, nd = anchor.dim(), positive.dim(), negative.dim()
    if not (ad == pd == nd):
        raise RuntimeError(f"The anchor, positive, and negative tensors are expected to have the same number of "
                           f"dimensions, but got: anchor {ad}D, positive {pd}D, and negative {nd}D inputs")
    dpos = pairwise_distance(anchor, positive, p, eps)
    dneg = pairwise_distance(anchor, negative, p, eps)
    if swap:
        dneg = aten.minimum.default(dneg, pairwise_distance(positive, negative, p, eps))
    out = aten.clamp_min.default(aten.add.Tensor(aten.add.Scalar(dpos, margin), aten.neg.default(dneg)), 0)
    return _reduce(out, reduction)


def poisson_nll_loss(input, target, log_input, full, eps, reduction):
    if log_input:
        loss = aten.sub.Tensor(aten.exp.default(input), aten.mul.Tensor(target, input))
    else:
        loss = aten.sub.Tensor(input, aten.mul.Tensor(target, aten.log.default(aten.add.Scalar(input, eps))))
    if full:
        st = aten.add.Tensor(aten.sub.Tensor(aten.mul.Tensor(target, aten.log.default(target)), target),
                            aten.mul.Scalar(aten.log.default(aten.mul.Scalar(target, 2 * math.pi)), 0.5))
        loss = aten.add.Tensor(loss, aten.where.self(aten.le.Scalar(target, 1), _zeros(st), st))
    return _reduce(loss, reduction)


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction=1, zero_infinity=False):
    def as_list(v):                    # a tensor (0-d for unbatched input), an int, or a sequence of ints
        v = v.tolist() if hasattr(v, "tolist") else v
        return [int(x) for x in v] if isinstance(v, (list, tuple)) else [int(v)]
    il, tl = as_list(input_lengths), as_list(target_lengths)
    unbatched = log_probs.dim() == 2
    if unbatched:
        log_probs = aten.unsqueeze.default(log_probs, 1)
        if targets.dim() == 1:
            targets = aten.unsqueeze.default(targets, 0)
        il, tl = il[:1] if il else [log_probs._size[0]], tl[:1] if tl else [targets._size[-1]]
    res = aten._ctc_loss.default(log_probs, targets, il, tl, blank, zero_infinity)[0]
    if zero_infinity:
        res = aten.where.self(aten.eq.Scalar(res, float("inf")), aten.zeros_like.default(res), res)
    if reduction == 1:
        tlen = aten.clamp_min.default(aten.to.dtype(_as_tensor(tl, res), res.dtype), 1)
        return aten.mean.default(aten.div.Tensor(res, tlen))
    if reduction == 2:
        return aten.sum.default(res)
    return aten.squeeze.dim(res, 0) if unbatched else res


def _as_tensor(values, like):
    import numpy as np
    from ..._core.tensor_impl import TensorImpl as Tensor
    t = Tensor._wrap_np(np.asarray(values, dtype=np.int64))
    return t if like.device.type == "cpu" else aten._to_copy.default(t, device=like.device)


def multilabel_margin_loss(self, target, reduction=1):
    return aten.multilabel_margin_loss_forward.default(self, target, reduction)[0]


def l1_loss(self, target, reduction=1):
    """|self - target| reduced, as torch's CompositeImplicitAutograd l1_loss (so its graph shows
    MeanBackward0 <- AbsBackward0 <- SubBackward0, as torch's does)."""
    loss = aten.abs.default(aten.sub.Tensor(self, target))
    if reduction == 1:
        return aten.mean.default(loss)
    return aten.sum.default(loss) if reduction == 2 else loss


def kl_div(self, target, reduction=1, *, log_target=False):
    """torch's composite (Loss.cpp), the op's only kernel as in torch: exp(t) (t - x) or xlogy(t, t) - t x, then
    the reduction, so the graph ends in torch's nodes (MulBackward0, SubBackward0, MeanBackward0, SumBackward0)
    and the result dtype is the promoted one with or without grad."""
    if self.dtype.is_complex or target.dtype.is_complex:
        raise RuntimeError("kl_div: Complex inputs not supported.")
    if not (self.dtype.is_floating_point and target.dtype.is_floating_point):
        raise RuntimeError("kl_div: Integral inputs not supported.")
    if log_target:
        out = aten.mul.Tensor(aten.exp.default(target), aten.sub.Tensor(target, self))
    else:
        out = aten.sub.Tensor(aten.xlogy.Tensor(target, target), aten.mul.Tensor(target, self))
    if reduction == 1:
        return aten.mean.default(out)
    return aten.sum.default(out) if reduction == 2 else out
