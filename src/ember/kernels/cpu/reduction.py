"""cpu kernels for reductions: one numpy reduction over the axes from kernels/meta/reductions.py."""
import numpy as np

from ..._core import dtype as D
from ..._core.tensor_impl import TensorImpl as Tensor
from ..meta.reduction import arg_spec, logical_dtype, mean_dtype, reduce_spec, sum_dtype


def _wrap(arr, dtype, shape):
    arr = np.asarray(arr)
    if arr.dtype != dtype._np:
        arr = arr.astype(dtype._np)
    arr = arr.reshape(shape)
    return Tensor._wrap_np(arr if arr.flags.c_contiguous else arr.copy(), dtype)


def _acc(d):
    """numpy accumulation dtype for a result dtype (half types accumulate in float32, like torch)."""
    return np.float32 if d._np.kind == "f" and d._np.itemsize < 4 or d._np.kind == "V" else d._np


def sum(self, dim=None, keepdim=False, *, dtype=None):
    if dim is None and dtype is None and self.dtype._kind == "f" and self.dtype.itemsize >= 4:
        # full reduction of a float32/64 tensor: the common case, one ufunc call
        return Tensor._wrap_fresh(np.asarray(np.add.reduce(self._np, axis=None)), self.dtype)
    d = sum_dtype(self, dtype)
    axes, shape = reduce_spec(self, dim, keepdim, "sum")
    return _wrap(np.add.reduce(self._np, axis=axes, dtype=_acc(d)), d, shape)


def prod(self, dim=None, keepdim=False, *, dtype=None):
    d = sum_dtype(self, dtype)
    axes, shape = reduce_spec(self, dim, keepdim, "prod")
    return _wrap(np.prod(self._np, axis=axes, dtype=_acc(d)), d, shape)


def mean(self, dim=None, keepdim=False, *, dtype=None):
    d = mean_dtype(self, dtype)
    axes, shape = reduce_spec(self, dim, keepdim, "mean")
    src = self._np if self.dtype is d else self._np.astype(d._np)
    with np.errstate(invalid="ignore", divide="ignore"):
        r = np.mean(src, axis=axes, dtype=_acc(d)) if src.size else np.full(shape, np.nan)
    return _wrap(r, d, shape)


def _minmax(fn, name):
    def k(self, dim=(), keepdim=False):
        axes, shape = reduce_spec(self, dim, keepdim, name, True)
        return _wrap(fn(self._np, axis=axes), self.dtype, shape)
    k.__name__ = name
    return k


amax = _minmax(np.max, "amax")
amin = _minmax(np.min, "amin")


def max(self):
    return _minmax(np.max, "max")(self, None)


def min(self):
    return _minmax(np.min, "min")(self, None)


def _arg(fn, name):
    def k(self, dim=None, keepdim=False):
        axes, shape = arg_spec(self, dim, keepdim, name)
        a = self._np
        if dim is None:
            r = fn(a.reshape(-1)) if a.ndim else 0
        else:
            r = fn(a, axis=axes[0]) if a.ndim else 0
        return _wrap(r, D.int64, shape)
    k.__name__ = name
    return k


argmax = _arg(np.argmax, "argmax")
argmin = _arg(np.argmin, "argmin")


def _with_indices(vfn, ifn, name):
    def k(self, dim, keepdim=False):
        axes, shape = reduce_spec(self, dim, keepdim, name, True)
        a = self._np
        if not a.ndim:
            return _wrap(a, self.dtype, shape), _wrap(0, D.int64, shape)
        return _wrap(vfn(a, axis=axes[0]), self.dtype, shape), _wrap(ifn(a, axis=axes[0]), D.int64, shape)
    k.__name__ = name + "_dim"
    return k


max_dim = _with_indices(np.max, np.argmax, "max")
min_dim = _with_indices(np.min, np.argmin, "min")


def all(self, dim=None, keepdim=False):
    axes, shape = reduce_spec(self, dim, keepdim, "all")
    return _wrap(np.all(self._np, axis=axes), logical_dtype(self), shape)


def any(self, dim=None, keepdim=False):
    axes, shape = reduce_spec(self, dim, keepdim, "any")
    return _wrap(np.any(self._np, axis=axes), logical_dtype(self), shape)
