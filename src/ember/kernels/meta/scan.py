"""Meta functions for statistical reductions and scans (var/std, logsumexp, norms, cumsum/cumprod,
cummax/cummin, logcumsumexp, count_nonzero): shapes, dtypes and torch's argument checks. The cpu
kernels in kernels/cpu/scan.py allocate from these."""
from ..._core import dtype as D
from ..._core.strides import wrap_dim
from .reduction import _t, float_dtype, sum_dtype
from ..common import check_out
from ..out_rules import SCALAR_TYPE_LAYOUT, exact


def correction_of(unbiased=None, correction=None):
    if correction is not None:
        return correction
    return 1 if unbiased is None or unbiased else 0


def scan_dim(self, dim):
    return wrap_dim(dim, self.dim())


# ------------------------------------------------------------------ meta kernels


def norm_args(p, dim, keepdim, dtype):
    return (2 if p is None else p), dim, keepdim, dtype


def cumsum(self, dim, *, dtype=None):
    scan_dim(self, dim)
    return _t(self._size, sum_dtype(self, dtype))


cumprod = cumsum


def cumsum_(self, dim, *, dtype=None):
    scan_dim(self, dim)
    return self


cumprod_ = cumsum_


def cumsum_out(self, dim, *, dtype=None, out):
    scan_dim(self, dim)
    check_out(out, self._size, dtype or out.dtype, "cumsum", exact)
    return out


cumprod_out = cumsum_out


def logcumsumexp_out(self, dim, *, out):
    scan_dim(self, dim)
    check_out(out, self._size, float_dtype(self), "logcumsumexp", SCALAR_TYPE_LAYOUT)
    return out


def cummax(self, dim):
    scan_dim(self, dim)
    return _t(self._size, self.dtype), _t(self._size, D.int64)


cummin = cummax


def logcumsumexp(self, dim):
    scan_dim(self, dim)
    return _t(self._size, float_dtype(self))
