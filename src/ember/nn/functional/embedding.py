"""nn.functional's embeddings (torch/nn/functional.py embedding, embedding_bag, one_hot)."""


import ember
from ._common import _chk
from ..._core import torch_function as _tf  # noqa: E402

_TF = False      # the __torch_function__ check: kept current by _tf.register (see _core/torch_function.py)
_tf.register(globals())

__all__ = ["embedding", "one_hot", "embedding_bag"]


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False, sparse=False):
    if _TF:      # torch's has_torch_function check: a mode or subclass sees F.embedding
        _r = _tf.handle_locals(embedding, locals())
        if _r is not _tf.NOT_HANDLED:
            return _r
    if padding_idx is not None:
        if padding_idx > 0:
            assert padding_idx < weight.shape[0], "Padding_idx must be within num_embeddings"
        elif padding_idx < 0:
            assert padding_idx >= -weight.shape[0], "Padding_idx must be within num_embeddings"
            padding_idx = weight.shape[0] + padding_idx
    else:
        padding_idx = -1
    if max_norm is not None:
        input = input.contiguous()
        with ember.no_grad():
            ember.embedding_renorm_(weight, input, max_norm, norm_type)
    return ember.embedding(weight, input, padding_idx, scale_grad_by_freq, sparse)


def one_hot(tensor, num_classes=-1):
    return ember._nn.one_hot(tensor, num_classes)


def embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2, scale_grad_by_freq=False, mode="mean",
                  sparse=False, per_sample_weights=None, include_last_offset=False, padding_idx=None):
    if _TF:      # torch's has_torch_function check: a mode or subclass sees F.embedding_bag
        _r = _tf.handle_locals(embedding_bag, locals())
        if _r is not _tf.NOT_HANDLED:
            return _r
    _chk().check_tensor("embedding_bag", "input", 1, input)
    _chk().check_tensor("embedding_bag", "weight", 2, weight)
    if input.dim() == 2:
        if offsets is not None:
            raise ValueError("if input is 2D, then offsets has to be None, as input is treated is a mini-batch of "
                             f"fixed length sequences. However, found offsets of type {type(offsets)}")
        b, l = input.shape
        offsets = ember.arange(0, b * l, l, dtype=input.dtype)
        input = input.reshape(-1)
        if per_sample_weights is not None:
            per_sample_weights = per_sample_weights.reshape(-1)
    elif input.dim() == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
    else:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension {input.dim()}")
    if padding_idx is not None and padding_idx < 0:
        padding_idx = weight.shape[0] + padding_idx
    if mode == "max" and scale_grad_by_freq:
        raise ValueError("max mode does not support scaling the gradient by the frequency")
    if mode == "max" and sparse:
        raise ValueError("max mode does not support sparse weights")
    if mode not in ("sum", "mean", "max"):
        raise ValueError("mode has to be one of sum, mean or max")
    m = {"sum": 0, "mean": 1, "max": 2}[mode]
    if max_norm is not None:          # rows referenced by any bag are renormalised in place first
        with ember.no_grad():
            ember.embedding_renorm_(weight, input, max_norm, norm_type)
    return ember.embedding_bag(weight, input, offsets, scale_grad_by_freq, m, sparse, per_sample_weights,
                           include_last_offset, padding_idx)[0]
