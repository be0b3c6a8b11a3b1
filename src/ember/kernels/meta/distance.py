"""Meta functions for _cdist_forward ((..., P, M) x (..., R, M) -> (..., P, R) with broadcast batch dims),
_pdist_forward ((N, M) -> (N (N - 1) / 2,)) and _pdist_backward (the input's shape)."""
from ..common import broadcast_shapes
from ..common import alloc


def cdist_spec(x1, x2):
    batch = broadcast_shapes(x1._size[:-2], x2._size[:-2])
    return tuple(batch) + (x1._size[-2], x2._size[-2]), x1.dtype


def _cdist_forward(x1, x2, p, compute_mode):
    shape, dt = cdist_spec(x1, x2)
    return alloc(shape, dt, x1.device)


def _pdist_forward(self, p=2.0):
    n = self._size[0]
    return alloc((n * (n - 1) // 2,), self.dtype, self.device)


def _pdist_backward(grad, self, p, pdist):
    return alloc(self._size, self.dtype, self.device)
