"""Meta functions for embedding and one_hot."""
from ..._core import dtype as D
from ..common import alloc, _tn


def embedding_spec(weight, indices):
    if weight.dim() != 2:
        raise RuntimeError("'weight' must be 2-D")
    if indices.dtype not in (D.int64, D.int32):
        raise RuntimeError(f"Expected tensor for argument #1 'indices' to have one of the following scalar types: "
                           f"Long, Int; but got torch.{_tn(indices.dtype)}Tensor instead (while checking arguments "
                           f"for embedding)")
    return tuple(indices._size) + (weight._size[1],), weight.dtype


def embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
    shape, dt = embedding_spec(weight, indices)
    return alloc(shape, dt, weight.device)


def one_hot_check(self):
    if self.dtype is not D.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")


def one_hot(self, num_classes=-1):
    one_hot_check(self)
    if num_classes == -1:
        raise RuntimeError("Tensor.item() cannot be called on meta tensors")
    return alloc(tuple(self._size) + (num_classes,), D.int64, self.device)


def embedding_bag_spec(weight, indices, offsets, mode, per_sample_weights, include_last_offset):
    if indices.dim() != 1:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension {indices.dim()}")
    if offsets.dim() != 1:
        raise ValueError("offsets has to be a 1D Tensor")
    if per_sample_weights is not None and mode != 0:
        raise NotImplementedError(f"embedding_bag: per_sample_weights was not None. per_sample_weights is only "
                                  f"supported for mode='sum' (got mode='{['sum', 'mean', 'max'][mode]}'). Please "
                                  f"open a feature request on GitHub.")
    bags = offsets._size[0] - (1 if include_last_offset else 0)
    return bags, weight._size[1]


def _embedding_bag(weight, indices, offsets, scale_grad_by_freq=False, mode=0, sparse=False,
                   per_sample_weights=None, include_last_offset=False, padding_idx=-1):
    b, d = embedding_bag_spec(weight, indices, offsets, mode, per_sample_weights, include_last_offset)
    dev = weight.device
    return (alloc((b, d), weight.dtype, dev), alloc(indices._size, D.int64, dev), alloc((b,), D.int64, dev),
            alloc((b, d) if mode == 2 else (b,), D.int64, dev))


def embedding_renorm_check(self, indices):
    if indices.dtype not in (D.int64, D.int32):
        raise RuntimeError(f"Expected tensor for argument #2 'indices' to have one of the following scalar types: "
                           f"Long, Int; but got torch.{_tn(indices.dtype)}Tensor instead (while checking arguments "
                           f"for embedding_renorm_)")
    if self.dim() != 2:
        raise RuntimeError(f"Expected 2-dimensional tensor, but got {self.dim()}-dimensional tensor for argument #1 "
                           f"'self' (while checking arguments for embedding_renorm_)")
    if not (self.dtype.is_floating_point or self.dtype.is_complex):
        raise RuntimeError(f"norm(): input dtype should be either floating point or complex. Got "
                           f"{_tn(self.dtype)} instead.")


def embedding_renorm_(self, indices, max_norm, norm_type):
    embedding_renorm_check(self, indices)
    return self


def embedding_dense_backward(grad_output, indices, num_weights, padding_idx, scale_grad_by_freq):
    return alloc((num_weights, grad_output._size[-1]), grad_output.dtype, grad_output.device)
