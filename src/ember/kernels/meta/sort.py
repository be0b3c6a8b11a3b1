"""Meta functions for order statistics and sorting (median, mode, kthvalue, sort, argsort, topk, msort,
unique, bincount, histc): output shapes/dtypes and torch's checks. Data-dependent shapes (unique,
bincount) cannot be known on meta: those raise like torch's meta does."""
from ..._core import dtype as D
from ..._core.device import META
from ..._core.strides import wrap_dim
from ..common import empty_tensor, _tname
from .reduction import _data_dependent, reduce_spec
from ..._core.tensor_impl import TensorImpl as Tensor
from .shape import _fmt
from .shape import _t as _t_shape
from ..common import check_out
from ..out_rules import SEARCHSORTED, exact


def _t(shape, dtype):
    return empty_tensor(shape, dtype, META)


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


_unique2 = _data_dependent("_unique2")
unique_dim = _data_dependent("unique_dim")
unique_consecutive = _data_dependent("unique_consecutive")


def msort_out(self, *, out):
    check_out(out, self._size, self.dtype, "msort", exact)
    return out


def argsort_stable_out(self, *, stable, dim=-1, descending=False, out):
    check_out(out, self._size, D.int64, "argsort", exact)
    return out


def searchsorted_spec(sorted_sequence, self, out_int32=False, right=False, side=None, sorter=None):
    """(right, output shape, output dtype) with torch's checks."""
    if side is not None:
        if side not in ("left", "right"):
            raise RuntimeError(f"torch.searchsorted(): side can only be 'left' or 'right' but got {side}")
        if right and side == "left":
            raise RuntimeError("torch.searchsorted(): side and right can't be set to opposites, got side of left "
                               "while right was True")
        right = side == "right"
    shape = self._size if isinstance(self, Tensor) else ()
    seq = sorted_sequence._size
    if len(seq) > 1 and (not isinstance(self, Tensor) or len(shape) != len(seq) or shape[:-1] != seq[:-1]):
        raise RuntimeError("torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 dimensions "
                           f"of boundaries tensor and input value tensor must match, but we got boundaries tensor "
                           f"{_fmt(seq)} and input value tensor {_fmt(shape)}")
    if len(seq) == 0:
        raise RuntimeError("torch.searchsorted(): boundaries tensor should have positive dimension, but got 0 "
                           "dimension")
    if sorter is not None:
        if sorter._size != seq:
            raise RuntimeError("torch.searchsorted(): boundary and sorter must have the same size, but got boundary "
                               f"tensor {_fmt(seq)}and got sorter tensor {_fmt(sorter._size)}")
        if sorter.dtype is not D.int64:
            raise RuntimeError(f"torch.searchsorted(): sorter must be a tensor of long dtype but got "
                               f"{_tname(sorter.dtype)}")
    return right, tuple(shape), (D.int32 if out_int32 else D.int64)


def searchsorted_Tensor(sorted_sequence, self, *, out_int32=False, right=False, side=None, sorter=None):
    _, shape, dt = searchsorted_spec(sorted_sequence, self, out_int32, right, side, sorter)
    return _t_shape(shape, dt)


searchsorted_Scalar = searchsorted_Tensor


def searchsorted_Tensor_out(sorted_sequence, self, *, out_int32=False, right=False, side=None, sorter=None, out):
    _, shape, dt = searchsorted_spec(sorted_sequence, self, out_int32, right, side, sorter)
    check_out(out, shape, dt, "searchsorted", SEARCHSORTED)
    return out


searchsorted_Scalar_out = searchsorted_Tensor_out


def bucketize_check(boundaries):
    if boundaries.dim() != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim({boundaries.dim()})")


def bucketize_Tensor(self, boundaries, *, out_int32=False, right=False):
    bucketize_check(boundaries)
    return searchsorted_Tensor(boundaries, self, out_int32=out_int32, right=right)


bucketize_Scalar = bucketize_Tensor


def bucketize_Tensor_out(self, boundaries, *, out_int32=False, right=False, out):
    bucketize_check(boundaries)
    return searchsorted_Tensor_out(boundaries, self, out_int32=out_int32, right=right, out=out)
