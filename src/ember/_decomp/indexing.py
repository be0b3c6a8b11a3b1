"""torch._decomp.decompositions, the lookup family: embedding and its backward, the negative log likelihood
loss forward and backward, written in index_select / index_put and one-hot comparisons (core aten).

The class picked by nll_loss is a comparison against `arange(C)` (a one-hot mask) rather than a gather, so a
loop-nest code generator lowers it as pointwise work plus a row reduction.
"""
from ember._ops import ops

from .registry import register_decomposition

aten = ops.aten
_NONE, _MEAN, _SUM = 0, 1, 2


@register_decomposition(aten.embedding.default)
def embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
    if indices.dim() == 1:
        return aten.index_select.default(weight, 0, indices)
    rows = aten.index_select.default(weight, 0, aten.reshape.default(indices, [-1]))
    return aten.view.default(rows, list(indices.shape) + [weight.shape[1]])


@register_decomposition(aten.embedding_dense_backward.default)
def embedding_dense_backward(grad_output, indices, num_weights, padding_idx, scale_grad_by_freq):
    d = grad_output.shape[-1]
    idx = aten.reshape.default(indices, [-1])
    grad = aten.reshape.default(grad_output, [-1, d])
    if padding_idx >= 0:
        grad = aten.mul.Tensor(grad, aten.unsqueeze.default(aten.ne.Scalar(idx, padding_idx), 1))
    if scale_grad_by_freq:
        counts = aten.index_put.default(aten.new_zeros.default(grad, [num_weights]), [idx],
                                        aten.new_ones.default(grad, [idx.shape[0]]), True)
        grad = aten.div.Tensor(grad, aten.unsqueeze.default(aten.index_select.default(counts, 0, idx), 1))
    return aten.index_put.default(aten.new_zeros.default(grad, [num_weights, d]), [idx], grad, True)


def _one_hot_rows(x2d, target1d, ignore_index):
    """(mask [N, C] of each row's target class, kept [N] rows whose target is not ignore_index)."""
    classes = aten.arange.default(x2d.shape[1], dtype=target1d.dtype)
    mask = aten.eq.Tensor(aten.unsqueeze.default(target1d, 1), aten.unsqueeze.default(classes, 0))
    return mask, aten.ne.Scalar(target1d, ignore_index)


def _row_weights(x2d, mask, kept, weight):
    w = aten._to_copy.default(kept, dtype=x2d.dtype)
    if weight is not None:
        per_row = aten.sum.dim_IntList(aten.where.self(mask, aten.unsqueeze.default(weight, 0),
                                                       aten.zeros_like.default(x2d)), [1])
        w = aten.mul.Tensor(w, per_row)
    return w


@register_decomposition(aten.nll_loss_forward.default)
def nll_loss_forward(self, target, weight, reduction, ignore_index):
    if self.dim() > 2:
        return NotImplemented
    x = self if self.dim() == 2 else aten.unsqueeze.default(self, 0)
    t = target if target.dim() == 1 else aten.unsqueeze.default(target, 0)
    mask, kept = _one_hot_rows(x, t, ignore_index)
    picked = aten.sum.dim_IntList(aten.where.self(mask, x, aten.zeros_like.default(x)), [1])
    w = _row_weights(x, mask, kept, weight)
    loss = aten.neg.default(aten.mul.Tensor(picked, w))
    total_weight = aten.sum.default(w)
    if reduction == _NONE:
        out = loss if self.dim() == 2 else aten.squeeze.dim(loss, 0)
        return out, aten.new_zeros.default(x, [])
    if reduction == _SUM:
        return aten.sum.default(loss), total_weight
    return aten.div.Tensor(aten.sum.default(loss), total_weight), total_weight


@register_decomposition(aten.nll_loss_backward.default)
def nll_loss_backward(grad_output, self, target, weight, reduction, ignore_index, total_weight):
    if self.dim() > 2:
        return NotImplemented
    x = self if self.dim() == 2 else aten.unsqueeze.default(self, 0)
    t = target if target.dim() == 1 else aten.unsqueeze.default(target, 0)
    mask, kept = _one_hot_rows(x, t, ignore_index)
    w = _row_weights(x, mask, kept, weight)
    if reduction == _NONE:
        g = grad_output if grad_output.dim() == 1 else aten.unsqueeze.default(grad_output, 0)
        per_row = aten.mul.Tensor(g, w)
    elif reduction == _MEAN:
        per_row = aten.mul.Tensor(w, aten.div.Tensor(grad_output, total_weight))
    else:
        per_row = aten.mul.Tensor(w, grad_output)
    grad = aten.where.self(mask, aten.unsqueeze.default(aten.neg.default(per_row), 1), aten.zeros_like.default(x))
    return grad if self.dim() == 2 else aten.squeeze.dim(grad, 0)
