"""CompositeImplicitAutograd kernels of embeddings (torch's Embedding.cpp, EmbeddingBag.cpp composites)."""

from ..._ops import ops

aten = ops.aten


def embedding_bag(weight, indices, offsets, scale_grad_by_freq=False, mode=0, sparse=False,
                  per_sample_weights=None, include_last_offset=False, padding_idx=None):
    return aten._embedding_bag.default(weight, indices, offsets, scale_grad_by_freq, mode, sparse, per_sample_weights,
                                      include_last_offset, -1 if padding_idx is None else padding_idx)
