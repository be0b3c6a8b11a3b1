"""Backward helpers of the embedding ops (torch's FunctionsManual.cpp): embedding_bag's weight and
per-sample-weight grads and embedding_dense_backward's double backward."""

from ..._generated import functions as at  # the ember.* bindings below the facade (torch's at:: functions)
from ._common import _f64, _i64, _on_meta

__all__ = ["embedding_bag_psw_backward", "embedding_bag_weight_backward", "embedding_double_backward"]


_MODE_SUM, _MODE_MEAN, _MODE_MAX = 0, 1, 2


def _kept(indices, padding_idx):
    """True where the index counts (not padding_idx; with no padding_idx, not negative)."""
    return indices >= 0 if padding_idx is None or padding_idx < 0 else indices != padding_idx


def _freq(idx, num_weights):
    """How often each row index occurs (bincount with a fixed length, so the shape depends on no value)."""
    return at.zeros((num_weights,), dtype=_f64(), device=idx.device).index_add(0, idx, at.ones_like(idx, dtype=_f64()))


def embedding_bag_weight_backward(grad, indices, offset2bag, bag_size, max_indices, num_weights,
                                  scale_grad_by_freq, mode, per_sample_weights, padding_idx):
    """Each index's row got grad[its bag] (times its per-sample weight, / bag size in mean mode); in max
    mode only the row that won each (bag, column) did. Padding indices and empty bags give nothing.
    Written in ops (no value read), so tracing modes and fake tensors record it."""
    d = grad._size[-1]
    nw = int(num_weights)
    zeros = at.zeros((nw, d), dtype=grad.dtype, device=indices.device)
    if _on_meta(grad, indices):
        return zeros
    idx = indices.reshape(-1).to(_i64())
    if mode == _MODE_MAX:
        g = grad * (bag_size > 0).unsqueeze(1).to(grad.dtype)
        if scale_grad_by_freq:
            won = max_indices.clamp_min(0)       # an empty bag's -1 (its grad is zero already)
            g = g / _freq(idx, nw).index_select(0, won.reshape(-1)).reshape(won._size).clamp_min(1).to(grad.dtype)
        return zeros.scatter_add(0, max_indices, g)
    scale = _kept(idx, padding_idx).to(_f64())
    if mode == _MODE_MEAN:
        scale = scale / bag_size.index_select(0, offset2bag).to(_f64()).clamp_min(1)
    if scale_grad_by_freq:
        scale = scale / _freq(idx, nw).index_select(0, idx).clamp_min(1)
    rows = grad.index_select(0, offset2bag) * scale.to(grad.dtype).unsqueeze(-1)
    if per_sample_weights is not None:
        rows = rows * per_sample_weights.unsqueeze(-1)
    return zeros.index_add(0, indices, rows)


def embedding_bag_psw_backward(grad, weight, indices, offset2bag, mode, padding_idx):
    """d out[bag] / d psw[i] = weight[indices[i]] (sum mode); 0 for padding indices."""
    if mode != _MODE_SUM:
        raise NotImplementedError("embedding_bag_backward: per_sample_weights only supported for mode='sum'")
    if _on_meta(grad, indices):
        return at.empty(tuple(indices._size), dtype=grad.dtype, device=indices.device)
    keep = _kept(indices, padding_idx).to(grad.dtype)
    return (grad.index_select(0, offset2bag) * weight.index_select(0, indices)).sum(-1) * keep


def embedding_double_backward(grad, indices, padding_idx, scale_grad_by_freq):
    """Transpose of the row scatter-add: gather the rows at `indices` (zero at padding_idx)."""
    if scale_grad_by_freq:
        # the frequency-scaled first derivative is not the gradient of any function (the scaling
        # also reaches second-order paths through embedding's own backward), so no formula here
        # gives right second derivatives: refuse rather than return wrong ones
        raise RuntimeError("the derivative for 'embedding_dense_backward' is not implemented with "
                           "scale_grad_by_freq=True: the frequency-scaled gradient has no second derivative; "
                           "use scale_grad_by_freq=False for double backward")
    idx = indices.reshape(-1)
    rows = grad.index_select(0, idx)
    if padding_idx is not None and padding_idx >= 0:
        rows = rows * (idx != padding_idx).to(grad.dtype).reshape(-1, 1)
    return rows.reshape(list(indices._size) + [grad._size[-1]])
