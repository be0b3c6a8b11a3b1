"""cpu kernels for order statistics and sorting: numpy's stable argsort along the moved-last axis, and
run-length arithmetic (for mode / unique_consecutive) in whole-array numpy operations.
NaN sorts greater than every number, as in torch."""
import numpy as np

from ..._core import dtype as D
from ..._core.tensor_impl import TensorImpl as Tensor
from ..common import check_out
from ..meta import sort as M
from ..meta.reduction import reduce_spec
from ..._core.strides import wrap_dim


def _contig(arr):
    return arr if arr.flags.c_contiguous else arr.copy()


def _wrap(arr, dtype, shape=None):
    arr = np.asarray(arr)
    if arr.dtype != dtype._np:
        arr = arr.astype(dtype._np)
    if shape is not None:
        arr = arr.reshape(shape)
    return Tensor._wrap_np(_contig(arr), dtype)


def _argsort(a, axis, descending=False):
    """Stable argsort along axis; descending keeps equal elements in their original order."""
    if not descending:
        return np.argsort(a, axis=axis, kind="stable")
    n = a.shape[axis]
    r = np.flip(a, axis=axis)
    idx = np.argsort(r, axis=axis, kind="stable")
    return (n - 1) - np.flip(idx, axis=axis)


def _last(a, d):
    return np.moveaxis(a, d, -1)


def _wrap_along(arr, d, dtype):
    """A result of unique/unique_consecutive along dim d, laid out like torch's: contiguous with d first,
    then moved back to d (a permuted dense tensor, not a contiguous one)."""
    first = np.ascontiguousarray(np.moveaxis(np.asarray(arr, dtype=dtype._np), d, 0))
    return Tensor._wrap_np(np.moveaxis(first, 0, d), dtype)


# ------------------------------------------------------------------ sort family
def sort(self, dim=-1, descending=False):
    d = wrap_dim(dim, self.dim())
    a = self._np
    if a.ndim == 0:
        return _wrap(a, self.dtype), _wrap(0, D.int64, ())
    idx = _argsort(a, d, descending)
    return _wrap(np.take_along_axis(a, idx, d), self.dtype), _wrap(idx, D.int64)


def sort_stable(self, *, stable=None, dim=-1, descending=False):
    return sort(self, dim, descending)


def argsort(self, dim=-1, descending=False):
    return sort(self, dim, descending)[1]


def argsort_stable(self, *, stable, dim=-1, descending=False):
    return argsort(self, dim, descending)


def argsort_stable_out(self, *, stable, dim=-1, descending=False, out):
    r = argsort(self, dim, descending)
    check_out(out, r._size, r.dtype, "argsort")
    np.copyto(out._np, r._np)
    return out


def msort(self):
    return sort(self, 0)[0]


def msort_out(self, *, out):
    r = msort(self)
    check_out(out, r._size, r.dtype, "msort")
    np.copyto(out._np, r._np)
    return out


def topk(self, k, dim=-1, largest=True, sorted=True):
    d, shape = M.topk_shape(self, k, dim)
    a = self._np
    if a.ndim == 0:
        return _wrap(a, self.dtype), _wrap(0, D.int64, ())
    idx = np.take(_argsort(a, d, largest), np.arange(k), axis=d)
    return _wrap(np.take_along_axis(a, idx, d), self.dtype), _wrap(idx, D.int64)


# ------------------------------------------------------------------ order statistics
def _kth_along(self, d, pos, keepdim, name):
    """Values/indices of the element at sorted position pos[...] along dim d."""
    a = self._np
    shape = reduce_spec(self, d, keepdim, name)[1]
    if a.ndim == 0:
        return _wrap(a, self.dtype, shape), _wrap(0, D.int64, shape)
    idx = _argsort(a, d)
    sel = np.take_along_axis(idx, np.expand_dims(pos, d), d)
    return _wrap(np.take_along_axis(a, sel, d), self.dtype, shape), _wrap(sel, D.int64, shape)


def kthvalue(self, k, dim=-1, keepdim=False):
    d = M.kth_check(self, k, dim)
    pos = np.full(tuple(s for i, s in enumerate(self._size) if i != d), k - 1)
    return _kth_along(self, d, pos, keepdim, "kthvalue")


def _nan_first_or(self, d, pos):
    a = self._np
    if a.dtype.kind not in "fc":
        return pos
    nan = np.isnan(a)
    n = a.shape[d]
    # NaN sorts last: its sorted position is (n - count(nan)); torch's median returns the first NaN
    return np.where(nan.any(axis=d), n - nan.sum(axis=d), pos)


def median_dim(self, dim, keepdim=False):
    M.dim_reduce_shape(self, dim, keepdim, "median")
    d = wrap_dim(dim, self.dim())
    n = self._size[d] if self.dim() else 1
    base = np.full(tuple(s for i, s in enumerate(self._size) if i != d), (n - 1) // 2)
    return _kth_along(self, d, _nan_first_or(self, d, base) if self.dim() else base, keepdim, "median")


def nanmedian_dim(self, dim, keepdim=False):
    M.dim_reduce_shape(self, dim, keepdim, "nanmedian")
    d = wrap_dim(dim, self.dim())
    if not self.dim():
        return _kth_along(self, d, np.zeros((), np.int64), keepdim, "nanmedian")
    a = self._np
    valid = a.shape[d] - (np.isnan(a).sum(axis=d) if a.dtype.kind in "fc" else 0)
    pos = np.maximum(valid - 1, 0) // 2 + np.zeros(tuple(s for i, s in enumerate(self._size) if i != d), np.int64)
    return _kth_along(self, d, pos, keepdim, "nanmedian")


def median(self):
    if self.numel() == 0:
        return _wrap(np.nan, self.dtype, ())
    flat = self._np.reshape(-1)
    return _wrap(median_dim(Tensor._wrap_np(np.ascontiguousarray(flat), self.dtype), 0)[0]._np, self.dtype, ())


def nanmedian(self):
    if self.numel() == 0:
        return _wrap(np.nan, self.dtype, ())
    flat = self._np.reshape(-1)
    return _wrap(nanmedian_dim(Tensor._wrap_np(np.ascontiguousarray(flat), self.dtype), 0)[0]._np, self.dtype, ())


def mode(self, dim=-1, keepdim=False):
    shape = M.dim_reduce_shape(self, dim, keepdim, "mode")
    d = wrap_dim(dim, self.dim())
    a = self._np
    if a.ndim == 0:
        return _wrap(a, self.dtype, shape), _wrap(0, D.int64, shape)
    a = _last(a, d)
    n = a.shape[-1]
    idx = np.argsort(a, axis=-1, kind="stable")
    s = np.take_along_axis(a, idx, -1)
    pos = np.broadcast_to(np.arange(n), s.shape)
    start = np.ones(s.shape, bool)
    start[..., 1:] = s[..., 1:] != s[..., :-1]
    run_start = np.maximum.accumulate(np.where(start, pos, 0), axis=-1)
    end = np.ones(s.shape, bool)
    end[..., :-1] = start[..., 1:]
    run_end = np.flip(np.minimum.accumulate(np.flip(np.where(end, pos, n), -1), axis=-1), -1)
    count = run_end - run_start + 1
    best = np.argmax(count, axis=-1)[..., None]            # first = smallest value among the most frequent
    last_of_run = np.take_along_axis(run_end, best, -1)     # stable sort: the run's last is the latest index
    vals = np.take_along_axis(s, best, -1)[..., 0]
    inds = np.take_along_axis(idx, last_of_run, -1)[..., 0]
    return _wrap(vals, self.dtype, shape), _wrap(inds, D.int64, shape)


# ------------------------------------------------------------------ unique / counting
def _unique2(self, sorted=True, return_inverse=False, return_counts=False):
    u, inv, cnt = np.unique(self._np.reshape(-1), return_inverse=True, return_counts=True)
    empty = np.zeros(0, np.int64)
    return (_wrap(u, self.dtype), _wrap(inv.reshape(self._size) if return_inverse else empty, D.int64),
            _wrap(cnt if return_counts else empty, D.int64))


def unique_dim(self, dim, sorted=True, return_inverse=False, return_counts=False):
    d = wrap_dim(dim, self.dim())
    u, inv, cnt = np.unique(self._np, return_inverse=True, return_counts=True, axis=d)
    empty = np.zeros(0, np.int64)
    return (_wrap_along(u, d, self.dtype), _wrap(inv.reshape(-1) if return_inverse else empty, D.int64),
            _wrap(cnt if return_counts else empty, D.int64))


def unique_consecutive(self, return_inverse=False, return_counts=False, dim=None):
    a = self._np
    if dim is None:
        flat = a.reshape(-1)
        change = np.ones(flat.shape, bool)
        change[1:] = flat[1:] != flat[:-1]
        vals = flat[change]
        inv = (np.cumsum(change) - 1).reshape(self._size)
    else:
        d = wrap_dim(dim, self.dim())
        m = _last(a, d).reshape(-1, a.shape[d]) if a.ndim else a.reshape(1, 1)
        change = np.ones(m.shape[1], bool)
        change[1:] = np.any(m[:, 1:] != m[:, :-1], axis=0)
        vals = np.compress(change, a, axis=d)
        inv = np.cumsum(change) - 1
    starts = np.flatnonzero(change)
    counts = np.diff(np.append(starts, change.size))
    empty = np.zeros(0, np.int64)
    vals = _wrap(vals, self.dtype) if dim is None else _wrap_along(vals, d, self.dtype)
    return (vals, _wrap(inv if return_inverse else empty, D.int64), _wrap(counts if return_counts else empty, D.int64))


def bincount(self, weights=None, minlength=0):
    M.bincount_check(self, weights, minlength)
    a = self._np
    if a.size and a.min() < 0:
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    rdt = M.bincount_dtype(weights)
    w = None if weights is None else weights._np.astype(np.float64)
    return _wrap(np.bincount(a, weights=w, minlength=minlength), rdt)


def histc(self, bins=100, min=0, max=0):
    M.hist_check(self, bins, min, max)
    a = self._np.reshape(-1)
    lo, hi = float(min), float(max)
    if lo == hi and a.size:
        lo, hi = float(a.min()), float(a.max())
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    keep = (a >= lo) & (a <= hi)
    v = a[keep].astype(np.float64)
    b = ((v - lo) * bins / (hi - lo)).astype(np.int64)
    b = np.minimum(b, bins - 1)
    return _wrap(np.bincount(b, minlength=bins), self.dtype)


def histc_out(self, bins=100, min=0, max=0, *, out):
    r = histc(self, bins, min, max)
    check_out(out, r._size, r.dtype, "histc")
    np.copyto(out._np, r._np)
    return out
