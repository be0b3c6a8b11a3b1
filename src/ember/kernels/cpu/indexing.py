"""cpu kernels for advanced indexing: the checked index list becomes one numpy fancy-indexing call
(numpy and torch share the placement rule for separated advanced indices)."""
import numpy as np

from ..._core.tensor_impl import TensorImpl as Tensor
from ..common import empty_tensor
from ..meta.indexing import check_index_put, index_plan, index_strides, is_mask


def _np_index(self, entries):
    """The numpy index tuple for checked entries, raising torch's IndexError for out-of-range values."""
    out = []
    for d, t in entries:
        if t is None:
            out.append(slice(None))
            continue
        a = t._np
        if is_mask(t):
            out.append(a.astype(bool, copy=False))
            continue
        n = self._size[d]
        bad = (a < -n) | (a >= n)
        if bad.any():
            v = int(a[bad].reshape(-1)[0])
            raise IndexError(f"index {v} is out of bounds for dimension {d} with size {n}")
        out.append(a.astype(np.intp, copy=False))
    return tuple(out)


def index(self, indices):
    entries, bshape, shape = index_plan(self, indices)
    r = self._np[_np_index(self, entries)].reshape(shape)
    out = empty_tensor(shape, self.dtype, strides=index_strides(self, entries, bshape, shape))
    if r.size:
        out._np[...] = r
    return out


def index_put_(self, indices, values, accumulate=False):
    entries, shape = check_index_put(self, indices, values)
    idx = _np_index(self, entries)
    if self._np is None or self.numel() == 0:
        return self
    v = values._np
    if accumulate:
        idx = tuple(np.nonzero(i) if isinstance(i, np.ndarray) and i.dtype == bool else (i,) for i in idx)
        idx = tuple(x for group in idx for x in group)
        np.add.at(self._np, idx, np.broadcast_to(v, shape))
    else:
        self._np[idx] = np.broadcast_to(v, shape)
    return self
