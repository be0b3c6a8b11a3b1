"""Backward helpers of the embedding ops (torch's FunctionsManual.cpp): embedding_bag's weight and
per-sample-weight grads and embedding_dense_backward's double backward."""

import numpy as np

from ..._generated import functions as at  # the ember.* bindings below the facade (torch's at:: functions)
from ._common import _const, _on_meta

__all__ = ["embedding_bag_psw_backward", "embedding_bag_weight_backward", "embedding_double_backward"]


_MODE_SUM, _MODE_MEAN, _MODE_MAX = 0, 1, 2


def _kept(indices, padding_idx):
    idx = indices._np.astype(np.int64)
    return idx >= 0 if padding_idx is None or padding_idx < 0 else idx != padding_idx


def embedding_bag_weight_backward(grad, indices, offset2bag, bag_size, max_indices, num_weights,
                                  scale_grad_by_freq, mode, per_sample_weights, padding_idx):
    """Each index's row got grad[its bag] (times its per-sample weight, / bag size in mean mode); in max
    mode only the row that won each (bag, column) did. Padding indices and empty bags give nothing."""
    d = grad._size[-1]
    zeros = at.zeros((int(num_weights), d), dtype=grad.dtype, device=indices.device)
    if _on_meta(grad, indices):
        return zeros
    idx = indices._np.astype(np.int64).reshape(-1)
    if mode == _MODE_MAX:
        full = _const((bag_size._np > 0)[:, None], grad.dtype)
        g = grad * full
        if scale_grad_by_freq:
            freq = np.bincount(idx, minlength=int(num_weights)).astype(np.float64)
            g = g / _const(np.maximum(freq[max_indices._np], 1), grad.dtype)
        return zeros.scatter_add(0, max_indices, g)
    keep = _kept(indices, padding_idx)
    scale = keep.astype(np.float64)
    if mode == _MODE_MEAN:
        scale = scale / np.maximum(bag_size._np[offset2bag._np], 1)
    if scale_grad_by_freq:
        scale = scale / np.maximum(np.bincount(idx, minlength=int(num_weights))[idx], 1)
    rows = grad.index_select(0, offset2bag) * _const(scale[:, None], grad.dtype)
    if per_sample_weights is not None:
        rows = rows * per_sample_weights.unsqueeze(-1)
    return zeros.index_add(0, indices, rows)


def embedding_bag_psw_backward(grad, weight, indices, offset2bag, mode, padding_idx):
    """d out[bag] / d psw[i] = weight[indices[i]] (sum mode); 0 for padding indices."""
    if mode != _MODE_SUM:
        raise NotImplementedError("embedding_bag_backward: per_sample_weights only supported for mode='sum'")
    if _on_meta(grad, indices):
        return at.empty(tuple(indices._size), dtype=grad.dtype, device=indices.device)
    keep = _const(_kept(indices, padding_idx), grad.dtype)
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
    from ._common import _const
    idx = indices.reshape(-1)
    rows = grad.index_select(0, idx)
    if padding_idx is not None and padding_idx >= 0:
        keep = (idx._np != padding_idx).astype(np.float64)
        rows = rows * _const(keep.reshape(-1, 1), grad.dtype)
    return rows.reshape(list(indices._size) + [grad._size[-1]])
