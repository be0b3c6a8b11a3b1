"""Hand-written Python-level functions of the `ember` namespace that are not single ops."""
from ._tensor import Tensor

__all__ = ["broadcast_shapes", "norm", "cdist"]

_CDIST_MODES = {"use_mm_for_euclid_dist_if_necessary": None, "use_mm_for_euclid_dist": 1,
                "donot_use_mm_for_euclid_dist": 2}


def broadcast_shapes(*shapes):
    from ._core.size import Size
    from ._bind_helpers import _is_int
    norm_shapes = []
    for s in shapes:
        if _is_int(s):
            s = (s,)
        elif not hasattr(s, "__iter__"):
            raise RuntimeError(f"Input shapes should be of type ints, a tuple of ints, or a list of ints, got {s}")
        for v in s:
            if not _is_int(v):
                raise TypeError(f"broadcast_shapes(): a shape holds {type(v).__name__} {v!r}, expected int")
        norm_shapes.append(tuple(int(v) for v in s))
    return Size(_broadcast_in_order(norm_shapes))


def _broadcast_in_order(shapes):
    """torch.broadcast_shapes: grow the result argument by argument, naming the first one that does
    not fit the result so far (torch's message, with the dim counted from the end)."""
    n = max((len(s) for s in shapes), default=0)
    out = [1] * n
    for k, s in enumerate(shapes):
        for i in range(-1, -len(s) - 1, -1):
            d = s[i]
            if d < 0:
                raise ValueError("Attempting to broadcast a dimension with negative length!")
            if d == 1 or d == out[i]:
                continue
            if out[i] != 1:
                raise RuntimeError(f"Attempting to broadcast a dimension of length {d} at {i}! Mismatching argument "
                                   f"at index {k} had {tuple(s)}; but expected shape should be broadcastable to "
                                   f"{out}")
            out[i] = d
    return tuple(out)


def norm(input, p="fro", dim=None, keepdim=False, out=None, dtype=None):
    """torch.norm: p may be a number, 'fro' or 'nuc' (torch/functional.py); built on ember.linalg."""
    from . import linalg, _argcheck
    _argcheck.tensor("norm", "input", 1, input)
    if dim is not None and not isinstance(dim, int):
        _argcheck.int_list("norm", "dim", 3, dim)
    _argcheck.boolean("norm", "keepdim", 4, keepdim)
    _argcheck.tensor("norm", "out", None, out, optional=True)
    _argcheck.dtype("norm", "dtype", None, dtype)
    if isinstance(p, str) and p not in ("fro", "nuc"):
        raise RuntimeError(f"linalg.matrix_norm: Order {p} not supported.")
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
