"""cpu conj_physical / conj_physical_: the complex conjugate (a copy, or nothing in place, for every other dtype,
as in torch)."""
import numpy as np

from .elementwise import _alloc


def conj_physical(self):
    out = _alloc(self._size, self.dtype, self)
    if self.dtype.is_complex:
        np.conjugate(self._np, out=out._np)
    else:
        np.copyto(out._np, self._np)
    return out


def conj_physical_(self):
    if self.dtype.is_complex:
        np.conjugate(self._np, out=self._np)
    return self
