"""Meta functions for embedding and one_hot."""
from ..._core import dtype as D
from .nn_common import alloc, _tn


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
