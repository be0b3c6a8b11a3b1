"""Hand-written Python-level functions of the `ember` namespace that are not single ops."""
from ._tensor import Tensor

__all__ = ["broadcast_shapes", "norm"]


def broadcast_shapes(*shapes):
    from .kernels.common import broadcast_shapes as _bs
    from ._core.size import Size
    return Size(_bs(*[(s,) if isinstance(s, int) else tuple(s) for s in shapes]))


def norm(input, p="fro", dim=None, keepdim=False, out=None, dtype=None):
    """torch.norm: p may be a number, 'fro' or 'nuc' (torch/functional.py); built on ember.linalg."""
    from . import linalg
    if isinstance(dim, int):
        dim = (dim,)
    if p == "nuc":
        r = linalg.matrix_norm(input, "nuc", dim if dim is not None else (-2, -1), keepdim, dtype=dtype)
    else:
        r = linalg.vector_norm(input, 2 if p in ("fro", None) else p, dim, keepdim, dtype=dtype)
    if out is not None:
        return out.resize_(r.shape).copy_(r)
    return r


def _tensor_norm(self, p="fro", dim=None, keepdim=False, dtype=None):
    return norm(self, p, dim, keepdim, dtype=dtype)


Tensor.norm = _tensor_norm
