"""Meta functions for order statistics and sorting (median, mode, kthvalue, sort, argsort, topk, msort,
unique, bincount, histc): output shapes/dtypes and torch's checks. Data-dependent shapes (unique,
bincount) cannot be known on meta: those raise like torch's meta does."""
from ..._core import dtype as D
from ..._core.device import META
from ..._core.strides import wrap_dim
from ..common import empty_tensor, _tname
from .reduction import reduce_spec


def _t(shape, dtype):
    return empty_tensor(shape, dtype, META)


def dim_reduce_shape(self, dim, keepdim, name):
    return reduce_spec(self, dim, keepdim, name, True)[1]


def kth_check(self, k, dim, name="kthvalue"):
    d = wrap_dim(dim, self.dim())
    n = self._size[d] if self.dim() else 1
    if not 1 <= k <= n:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {d}")
    return d


def topk_shape(self, k, dim):
    d = wrap_dim(dim, self.dim())
    n = self._size[d] if self.dim() else 1
    if not 0 <= k <= n:
        raise RuntimeError("selected index k out of range")
    if not self.dim():
        return d, ()
    return d, self._size[:d] + (k,) + self._size[d + 1:]


def median(self):
    if self.numel() == 0:
        return _t((), self.dtype)
    return _t((), self.dtype)


nanmedian = median


def median_dim(self, dim, keepdim=False):
    s = dim_reduce_shape(self, dim, keepdim, "median")
    return _t(s, self.dtype), _t(s, D.int64)


nanmedian_dim = median_dim


def mode(self, dim=-1, keepdim=False):
    s = dim_reduce_shape(self, dim, keepdim, "mode")
    return _t(s, self.dtype), _t(s, D.int64)


def kthvalue(self, k, dim=-1, keepdim=False):
    kth_check(self, k, dim)
    s = reduce_spec(self, dim, keepdim, "kthvalue")[1]
    return _t(s, self.dtype), _t(s, D.int64)


def sort(self, dim=-1, descending=False):
    wrap_dim(dim, self.dim())
    return _t(self._size, self.dtype), _t(self._size, D.int64)


def sort_stable(self, *, stable=None, dim=-1, descending=False):
    return sort(self, dim, descending)


def argsort(self, dim=-1, descending=False):
    wrap_dim(dim, self.dim())
    return _t(self._size, D.int64)


def argsort_stable(self, *, stable, dim=-1, descending=False):
    return argsort(self, dim, descending)


def msort(self):
    return sort(self, 0)[0]


def topk(self, k, dim=-1, largest=True, sorted=True):
    s = topk_shape(self, k, dim)[1]
    return _t(s, self.dtype), _t(s, D.int64)


def histc(self, bins=100, min=0, max=0):
    hist_check(self, bins, min, max)
    return _t((bins,), self.dtype)


def hist_check(self, bins, lo, hi):
    if not (self.dtype.is_floating_point):
        raise NotImplementedError(f"\"histogram_cpu\" not implemented for '{_tname(self.dtype)}'")
    if bins <= 0:
        raise RuntimeError(f"torch.histc: bins must be > 0, but got {bins} for dimension 0")
    if lo > hi:
        raise RuntimeError("torch.histc: max must be larger than min")


def bincount_check(self, weights, minlength):
    if self.dim() != 1 or self.dtype.is_floating_point or self.dtype.is_complex or self.dtype is D.bool_:
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    if weights is not None and (weights.dim() != 1 or weights._size[0] != self._size[0]):
        raise RuntimeError("weights should be 1-d and have the same length as input")


def bincount_dtype(weights):
    if weights is None:
        return D.int64
    return D.float32 if weights.dtype is D.float32 else D.float64


def _data_dependent(name):
    def f(self, *args, **kw):
        raise NotImplementedError(f"aten::{name}: the output shape depends on the data, which meta tensors do not have")
    f.__name__ = name
    return f


_unique2 = _data_dependent("_unique2")
unique_dim = _data_dependent("unique_dim")
unique_consecutive = _data_dependent("unique_consecutive")
bincount = _data_dependent("bincount")


def histc_out(self, bins=100, min=0, max=0, *, out):
    return out


def msort_out(self, *, out):
    return out


def argsort_stable_out(self, *, stable, dim=-1, descending=False, out):
    return out
