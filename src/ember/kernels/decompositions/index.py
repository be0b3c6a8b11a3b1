"""CompositeImplicitAutograd kernels of indexing (torch's TensorAdvancedIndexing.cpp composites)."""

from ..._core import dtype as D
from ..common import _tname
from .shape import _to_out
from ..out_rules import exact
from ..common import broadcast_shapes
from ..._core.strides import wrap_dim
from ..._ops import ops

aten = ops.aten


def take_along_dim(self, indices, dim=None):
    if indices.dtype is not D.int64:
        raise RuntimeError(f"torch.take_along_dim(): dtype of indices should be Long but got {_tname(indices.dtype)}")
    if dim is None:
        return self.reshape(-1).gather(0, indices.reshape(-1))
    if self.dim() != indices.dim():
        raise RuntimeError("torch.take_along_dim(): input and indices should have the same number of dimensions, but "
                           f"got {self.dim()} dimensions for input, and {indices.dim()} dimensions for indices")
    d = wrap_dim(dim, self.dim())
    s = list(self._size)
    if s:
        s[d] = indices._size[d]
    shape = broadcast_shapes(tuple(s), indices._size)
    idx = indices.broadcast_to(shape)
    s = list(shape)
    if s:
        s[d] = self._size[d]
    return self.broadcast_to(s).gather(d, idx)


def take_along_dim_out(self, indices, dim=None, *, out):
    return _to_out(take_along_dim(self, indices, dim), out, "take_along_dim", exact)


def argwhere(self):
    return self.nonzero()


def index_put(self, indices, values, accumulate=False):
    return aten.index_put_.default(aten.clone.default(self), indices, values, accumulate)


def where(condition):
    c = condition.unsqueeze(0) if condition.dim() == 0 else condition
    return list(c.nonzero().unbind(1))
