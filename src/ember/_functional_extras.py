"""Hand-written Python-level functions of the `ember` namespace that are not single ops."""
from ._tensor import Tensor

__all__ = ["broadcast_shapes", "norm", "cdist"]

_CDIST_MODES = {"use_mm_for_euclid_dist_if_necessary": None, "use_mm_for_euclid_dist": 1,
                "donot_use_mm_for_euclid_dist": 2}


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


def cdist(x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"):
    """torch.cdist (torch/functional.py): compute_mode is a name here, the op's int code below."""
    from ._generated import functions as _F
    if compute_mode not in _CDIST_MODES:
        raise ValueError(f"{compute_mode} is not a valid value for compute_mode")
    return _F.cdist(x1, x2, p, _CDIST_MODES[compute_mode])


def _tensor_norm(self, p="fro", dim=None, keepdim=False, dtype=None):
    return norm(self, p, dim, keepdim, dtype=dtype)


Tensor.norm = _tensor_norm
