"""cpu kernels for order statistics and sorting: numpy's stable argsort along the moved-last axis, and
run-length arithmetic (for mode / unique_consecutive) in whole-array numpy operations.
NaN sorts greater than every number, as in torch."""
import numpy as np

from ..._core import dtype as D
from ..._core.tensor_impl import TensorImpl as Tensor
from ..common import check_out
from ..out_rules import SEARCHSORTED, exact
from ..meta import sort as M
from ..meta.reduction import reduce_spec
from ..._core.strides import wrap_dim
from ..meta import sort as M_sort
from .shape import _copy_out
from .shape import _wrap as _wrap_shape


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
    check_out(out, r._size, r.dtype, "argsort", exact)
    np.copyto(out._np, r._np)
    return out


def msort(self):
    return sort(self, 0)[0]


def msort_out(self, *, out):
    r = msort(self)
    check_out(out, r._size, r.dtype, "msort", exact)
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


def _searchsorted(seq, vals, right, sorter):
    if sorter is not None:
        seq = np.take_along_axis(seq, sorter, -1)
    side = "right" if right else "left"
    if seq.ndim == 1:
        return np.searchsorted(seq, vals, side=side)
    # batched: count the boundaries below each value in one broadcast comparison while that stays small,
    # else one np.searchsorted per boundary row
    if seq.shape[-1] * vals.size <= 1 << 24:
        cmp = np.less_equal if right else np.less
        return cmp(seq[..., None, :], vals[..., :, None]).sum(-1)
    s2, v2 = seq.reshape(-1, seq.shape[-1]), vals.reshape(-1, vals.shape[-1])
    return np.stack([np.searchsorted(a, b, side=side) for a, b in zip(s2, v2)]).reshape(vals.shape)


def searchsorted_Tensor(sorted_sequence, self, *, out_int32=False, right=False, side=None, sorter=None):
    right, shape, dt = M_sort.searchsorted_spec(sorted_sequence, self, out_int32, right, side, sorter)
    vals = self._np if isinstance(self, Tensor) else np.asarray(self)
    r = _searchsorted(sorted_sequence._np, vals, right, None if sorter is None else sorter._np)
    return _wrap_shape(np.asarray(r).reshape(shape), dt)


searchsorted_Scalar = searchsorted_Tensor


def searchsorted_Tensor_out(sorted_sequence, self, *, out_int32=False, right=False, side=None, sorter=None, out):
    r = searchsorted_Tensor(sorted_sequence, self, out_int32=out_int32, right=right, side=side, sorter=sorter)
    return _copy_out(r, out, "searchsorted", SEARCHSORTED)


searchsorted_Scalar_out = searchsorted_Tensor_out


def bucketize_Tensor(self, boundaries, *, out_int32=False, right=False):
    M_sort.bucketize_check(boundaries)
    return searchsorted_Tensor(boundaries, self, out_int32=out_int32, right=right)


bucketize_Scalar = bucketize_Tensor


def bucketize_Tensor_out(self, boundaries, *, out_int32=False, right=False, out):
    return _copy_out(bucketize_Tensor(self, boundaries, out_int32=out_int32, right=right), out, "bucketize", SEARCHSORTED)
