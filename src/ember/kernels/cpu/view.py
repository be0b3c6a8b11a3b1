"""cpu kernels of the view family's functional scatters (ATen's slice_scatter / select_scatter /
diagonal_scatter / as_strided_scatter in TensorShape.cpp): copy self keeping its strides, then copy src into
the view the matching view op takes of the copy. Geometry and checks come from meta/view.py."""
import numpy as np

from ..._core.tensor_impl import TensorImpl as Tensor
from ..common import empty_tensor
from ..meta import view as M


def _scatter_into_view(self, src, view_fn):
    strides = M.scatter_strides(self)
    if strides is not None:
        out = empty_tensor(self._size, self.dtype, device="cpu", strides=strides)
        if out.numel():
            out._np[...] = self._np
    else:
        out = Tensor._from_storage(self.untyped_storage().clone(), self._offset, self._size, self.stride(),
                                   self.dtype)
    region = view_fn(out)
    M.check_scatter_src(region, src)
    if region.numel():
        np.copyto(region._np, src._np, casting="unsafe")
    return out


def slice_scatter(self, src, dim=0, start=None, end=None, step=1):
    return _scatter_into_view(self, src, lambda t: M.slice(t, dim, start, end, step))


def select_scatter(self, src, dim, index):
    return _scatter_into_view(self, src, lambda t: M.select(t, dim, index))


def diagonal_scatter(self, src, offset=0, dim1=0, dim2=1):
    return _scatter_into_view(self, src, lambda t: M.diagonal(t, offset, dim1, dim2))


def as_strided_scatter(self, src, size, stride, storage_offset=None):
    return _scatter_into_view(self, src, lambda t: M.as_strided(t, size, stride, storage_offset))
