"""Meta functions for reductions: reduced shape (keepdim), result dtype, torch's argument checks.
The cpu kernels in kernels/cpu/reductions.py call `reduce_spec` / `*_dtype` and allocate with `out_like`."""
from ..._core import dtype as D
from ..._core.device import META
from ..._core.strides import wrap_dim
from ..._core.tensor_impl import TensorImpl as Tensor
from ..common import as_dtype, empty_tensor


def _dims_list(dim):
    if dim is None:
        return None
    if isinstance(dim, int) or hasattr(dim, "__index__") and not isinstance(dim, (list, tuple)):
        return [int(dim)]
    return [int(d) for d in dim]


def reduce_spec(self, dim, keepdim, name, nonempty=False):
    """(axes, out_shape): `dim` None or [] reduces every dim. `nonempty` (max/amax/argmax...) rejects
    reducing a zero-size dim, as torch does."""
    nd = self.dim()
    dims = _dims_list(dim)
    if not dims:
        if nonempty and self.numel() == 0:
            msg = f"{name}(): Expected reduction dim to be specified for input.numel() == 0."
            if name in ("argmax", "argmin"):
                raise IndexError(msg)
            raise RuntimeError(msg + " Specify the reduction dim with the 'dim' argument.")
        axes = tuple(range(nd))
    else:
        axes = []
        for d in dims:
            w = wrap_dim(d, nd)
            if w in axes:
                raise RuntimeError(f"dim {w} appears multiple times in the list of dims")
            axes.append(w)
        axes = tuple(a for a in axes if nd)            # a 0-d tensor reduces over dim 0/-1 as a no-op
        if nonempty:
            for a in axes:
                if self._size[a] == 0:
                    raise IndexError(f"{name}(): Expected reduction dim {a} to have non-zero size.")
    if keepdim:
        shape = tuple(1 if i in axes else s for i, s in enumerate(self._size))
    else:
        shape = tuple(s for i, s in enumerate(self._size) if i not in axes)
    return axes, shape


def sum_dtype(self, dtype):
    d = as_dtype(dtype)
    if d is not None:
        return d
    t = self.dtype
    return D.int64 if not (t.is_floating_point or t.is_complex) else t


def mean_dtype(self, dtype, name="mean"):
    d = as_dtype(dtype) or self.dtype
    if not (d.is_floating_point or d.is_complex):
        from ..common import _tname
        raise RuntimeError(f"{name}(): could not infer output dtype. Input dtype must be either a floating point "
                           f"or complex dtype. Got: {_tname(d)}")
    return d


def logical_dtype(self):
    return D.uint8 if self.dtype is D.uint8 else D.bool_


def out_like(self, shape, dtype):
    return empty_tensor(shape, dtype, self.device)


# ------------------------------------------------------------------ meta kernels
def sum(self, dim=None, keepdim=False, *, dtype=None):
    return out_like(self, reduce_spec(self, dim, keepdim, "sum")[1], sum_dtype(self, dtype))


prod = sum


def mean(self, dim=None, keepdim=False, *, dtype=None):
    d = mean_dtype(self, dtype)
    return out_like(self, reduce_spec(self, dim, keepdim, "mean")[1], d)


def amax(self, dim=(), keepdim=False):
    return out_like(self, reduce_spec(self, dim, keepdim, "amax", True)[1], self.dtype)


def amin(self, dim=(), keepdim=False):
    return out_like(self, reduce_spec(self, dim, keepdim, "amin", True)[1], self.dtype)


def max(self):
    return out_like(self, reduce_spec(self, None, False, "max", True)[1], self.dtype)


def min(self):
    return out_like(self, reduce_spec(self, None, False, "min", True)[1], self.dtype)


def max_dim(self, dim, keepdim=False):
    shape = reduce_spec(self, dim, keepdim, "max", True)[1]
    return out_like(self, shape, self.dtype), out_like(self, shape, D.int64)


def min_dim(self, dim, keepdim=False):
    shape = reduce_spec(self, dim, keepdim, "min", True)[1]
    return out_like(self, shape, self.dtype), out_like(self, shape, D.int64)


def argmax(self, dim=None, keepdim=False):
    return out_like(self, arg_spec(self, dim, keepdim, "argmax")[1], D.int64)


def argmin(self, dim=None, keepdim=False):
    return out_like(self, arg_spec(self, dim, keepdim, "argmin")[1], D.int64)


def arg_spec(self, dim, keepdim, name):
    """argmax/argmin: dim=None flattens (keepdim then gives all-ones dims)."""
    if self.dtype is D.bool_:
        raise RuntimeError(f"{name}(): does not support bool input")
    axes, shape = reduce_spec(self, dim, keepdim, name, True)
    return axes, shape


def all(self, dim=None, keepdim=False):
    return out_like(self, reduce_spec(self, dim, keepdim, "all")[1], logical_dtype(self))


any = all
