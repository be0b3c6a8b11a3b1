"""Meta function of conj_physical: same shape and dtype."""
from ..common import alloc


def conj_physical(self):
    return alloc(self._size, self.dtype, self.device)
