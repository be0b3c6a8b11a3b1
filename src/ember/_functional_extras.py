"""Hand-written Python-level functions of the `ember` namespace that are not single ops."""
from ._tensor import Tensor

__all__ = ["broadcast_shapes"]


def broadcast_shapes(*shapes):
    from .kernels.common import broadcast_shapes as _bs
    from ._core.size import Size
    return Size(_bs(*[(s,) if isinstance(s, int) else tuple(s) for s in shapes]))
