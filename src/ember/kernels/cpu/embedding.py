"""cpu embedding (one np.take over rows) and one_hot (one comparison against arange)."""
import numpy as np

from ..._core import dtype as D
from ..meta.embedding import embedding_spec, one_hot_check
from ..meta.nn_common import wrap


def embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
    shape, dt = embedding_spec(weight, indices)
    idx = indices._np
    n = weight._size[0]
    if idx.size and (idx.min() < 0 or idx.max() >= n):
        raise IndexError("index out of range in self")
    return wrap(np.take(weight._np, idx, axis=0), dt)


def one_hot(self, num_classes=-1):
    one_hot_check(self)
    x = self._np
    if num_classes == -1:
        if x.size == 0:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        num_classes = int(x.max()) + 1
    if x.size:
        if x.min() < 0:
            raise RuntimeError("Class values must be non-negative.")
        if x.max() >= num_classes:
            raise RuntimeError("Class values must be smaller than num_classes.")
    return wrap(x[..., None] == np.arange(num_classes), D.int64)
