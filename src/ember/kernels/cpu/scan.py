"""cpu kernels for statistical reductions and scans: one numpy call each over the axes computed by
kernels/meta/scan.py (var/std via np.var's ddof = correction)."""

import numpy as np

from ..._core import dtype as D
from ..._core.tensor_impl import TensorImpl as Tensor
from ..common import check_out
from ..out_rules import SCALAR_TYPE_LAYOUT, exact, write_outs
from ..meta import scan as M
from ..meta.reduction import sum_dtype


def _contig(arr):
    return arr if arr.flags.c_contiguous else arr.copy()


def _wrap(arr, dtype, shape):
    arr = np.asarray(arr)
    if arr.dtype != dtype._np:
        arr = arr.astype(dtype._np)
    return Tensor._wrap_np(_contig(arr.reshape(shape)), dtype)


def _into(out, r):
    check_out(out, r._size, r.dtype, "out")
    np.copyto(out._np, r._np, casting="unsafe")
    return out


def _quiet(f):
    def g(*a, **k):
        with np.errstate(divide="ignore", invalid="ignore", over="ignore", under="ignore"):
            return f(*a, **k)
    g.__name__ = f.__name__
    return g


# ------------------------------------------------------------------ var / std


# ------------------------------------------------------------------ logsumexp / norms


# ------------------------------------------------------------------ scans
def _scan(uf, name):
    def f(self, dim, *, dtype=None):
        d = M.scan_dim(self, dim)
        rdt = sum_dtype(self, dtype)
        a = self._np.astype(rdt._np, copy=False)
        return _wrap(uf(a, axis=d) if a.ndim else a, rdt, self._size)

    def f_(self, dim, *, dtype=None):
        r = f(self, dim, dtype=dtype)
        np.copyto(self._np, r._np, casting="unsafe")
        return self

    def f_out(self, dim, *, dtype=None, out):
        # torch's cum_ops_meta: the result has dtype= or else `out`'s dtype, set on `out` as is (exact)
        return write_outs((f(self, dim, dtype=dtype or out.dtype),), (out,), exact)[0]
    return f, f_, f_out


# the ufuncs' accumulate called from here, not np.cumsum/np.cumprod (the same loops): numpy attributes an
# overflow warning to the frame calling the ufunc, which is then ember's (runtime/fp_errors.py's filter)
cumsum, cumsum_, cumsum_out = _scan(np.add.accumulate, "cumsum")
cumprod, cumprod_, cumprod_out = _scan(np.multiply.accumulate, "cumprod")


def _cumext(uf, cmp):
    def f(self, dim):
        d = M.scan_dim(self, dim)
        a = self._np
        if a.ndim == 0:
            return _wrap(a, self.dtype, ()), _wrap(0, D.int64, ())
        v = uf.accumulate(a, axis=d)
        nan = np.isnan(a) if a.dtype.kind in "fc" else np.zeros(a.shape, bool)
        if nan.any():                                   # a NaN wins from where it appears on
            v = np.where(np.logical_or.accumulate(nan, axis=d), np.nan, v)
        shape = [1] * a.ndim
        shape[d] = a.shape[d]
        pos = np.broadcast_to(np.arange(a.shape[d]).reshape(shape), a.shape)
        hit = (a == v) | nan   # positions where the running extremum is (re)attained
        idx = np.maximum.accumulate(np.where(hit, pos, 0), axis=d)
        if nan.any():
            first_nan = np.where(nan, pos, a.shape[d])
            fn = np.minimum.accumulate(first_nan, axis=d)
            idx = np.where(fn < a.shape[d], np.maximum.accumulate(np.where(nan, pos, 0), axis=d), idx)
        return _wrap(v, self.dtype, self._size), _wrap(idx, D.int64, self._size)
    return f


cummax = _cumext(np.maximum, None)
cummin = _cumext(np.minimum, None)


@_quiet
def logcumsumexp(self, dim):
    d = M.scan_dim(self, dim)
    rdt = M.float_dtype(self)
    a = self._np.astype(rdt._np, copy=False)
    return _wrap(np.logaddexp.accumulate(a, axis=d) if a.ndim else a, rdt, self._size)


def logcumsumexp_out(self, dim, *, out):
    return write_outs((logcumsumexp(self, dim),), (out,), SCALAR_TYPE_LAYOUT)[0]
