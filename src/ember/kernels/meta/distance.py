"""Meta function for _cdist_forward: (..., P, M) x (..., R, M) -> (..., P, R) with broadcast batch dims."""
from ..common import broadcast_shapes
from ..common import alloc


def cdist_spec(x1, x2):
    batch = broadcast_shapes(x1._size[:-2], x2._size[:-2])
    return tuple(batch) + (x1._size[-2], x2._size[-2]), x1.dtype


def _cdist_forward(x1, x2, p, compute_mode):
    shape, dt = cdist_spec(x1, x2)
    return alloc(shape, dt, x1.device)
