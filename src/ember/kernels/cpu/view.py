"""cpu kernels of the view family's functional scatters (ATen's slice_scatter / select_scatter /
diagonal_scatter / as_strided_scatter in TensorShape.cpp): copy self keeping its strides, then copy src into
the view the matching view op takes of the copy. Geometry and checks come from meta/view.py."""
from ..meta import view as M


def slice_scatter(self, src, dim=0, start=None, end=None, step=1):
    return M.scatter_into_view(self, src, lambda t: M.slice(t, dim, start, end, step), meta=False)


def select_scatter(self, src, dim, index):
    return M.scatter_into_view(self, src, lambda t: M.select(t, dim, index), meta=False)


def diagonal_scatter(self, src, offset=0, dim1=0, dim2=1):
    return M.scatter_into_view(self, src, lambda t: M.diagonal(t, offset, dim1, dim2), meta=False)


def as_strided_scatter(self, src, size, stride, storage_offset=None):
    return M.scatter_into_view(self, src, lambda t: M.as_strided(t, size, stride, storage_offset), meta=False)
