"""cpu kernels for statistical reductions and scans: one numpy call each over the axes computed by
kernels/meta/scans.py (var/std via np.var's ddof = correction)."""
import warnings

import numpy as np

from ..._core import dtype as D
from ..._core.tensor_impl import TensorImpl as Tensor
from ..common import check_out
from ..meta import scan as M
from ..meta.reduction import reduce_spec, sum_dtype


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
@_quiet
def _var(self, dim, correction, keepdim, sqrt):
    rdt = M.var_dtype(self)
    axes, shape = M.var_spec(self, dim, keepdim)
    a = self._np
    n = int(np.prod([a.shape[i] for i in axes])) if axes else (a.size if a.ndim else 1)
    if n - correction <= 0:
        warnings.warn("var(): degrees of freedom is <= 0. Correction should be strictly less than the reduction "
                      "factor (input numel divided by output numel).")
    acc = np.float32 if a.dtype == np.float16 else None
    if a.ndim == 0:
        a, axes = a.reshape(1), (0,)
    mean = np.mean(a, axis=axes, keepdims=True, dtype=acc)
    d = a - mean
    sq = (d * np.conj(d)).real if np.iscomplexobj(d) else d * d
    r = np.sum(sq, axis=axes, dtype=acc) / np.float64(max(n - correction, 0))
    return _wrap(np.sqrt(r) if sqrt else r, rdt, shape)


def _maker(sqrt):
    def full(self, unbiased=True):
        return _var(self, None, M.correction_of(unbiased), False, sqrt)

    def dim_(self, dim, unbiased=True, keepdim=False):
        return _var(self, dim, M.correction_of(unbiased), keepdim, sqrt)

    def corr(self, dim=None, *, correction=None, keepdim=False):
        return _var(self, dim, M.correction_of(None, correction), keepdim, sqrt)

    def out_(self, dim, unbiased=True, keepdim=False, *, out):
        return _into(out, dim_(self, dim, unbiased, keepdim))

    def corr_out(self, dim=None, *, correction=None, keepdim=False, out):
        return _into(out, corr(self, dim, correction=correction, keepdim=keepdim))
    return full, dim_, corr, out_, corr_out


var, var_dim, var_correction, var_out, var_correction_out = _maker(False)
std, std_dim, std_correction, std_out, std_correction_out = _maker(True)


def _with_mean(f):
    def g(self, *args, **kw):
        r = f(self, *args, **kw)
        dim = kw.get("dim", args[0] if args and f.__name__ != "full" else None)
        keepdim = kw.get("keepdim", args[2] if len(args) > 2 else False)
        axes, shape = reduce_spec(self, dim, keepdim, "mean")
        return r, _wrap(np.mean(self._np, axis=axes) if self._np.size else np.full(shape, np.nan), self.dtype, shape)
    return g


var_mean, var_mean_dim, var_mean_correction = (_with_mean(f) for f in (var, var_dim, var_correction))
std_mean, std_mean_dim, std_mean_correction = (_with_mean(f) for f in (std, std_dim, std_correction))


# ------------------------------------------------------------------ logsumexp / norms
@_quiet
def logsumexp(self, dim, keepdim=False):
    rdt = M.float_dtype(self)
    axes, shape = reduce_spec(self, dim, keepdim, "logsumexp")
    a = self._np.astype(rdt._np, copy=False)
    if a.ndim == 0:
        return _wrap(a, rdt, shape)
    m = np.max(a, axis=axes, keepdims=True) if a.size else np.zeros([1] * a.ndim, a.dtype)
    m = np.where(np.isfinite(m), m, 0)
    r = np.log(np.sum(np.exp(a - m), axis=axes, keepdims=True)) + m
    return _wrap(r, rdt, shape)


def logsumexp_out(self, dim, keepdim=False, *, out):
    return _into(out, logsumexp(self, dim, keepdim))


@_quiet
def linalg_vector_norm(self, ord=2, dim=None, keepdim=False, *, dtype=None):
    rdt = M.norm_dtype(self, dtype)
    axes, shape = reduce_spec(self, dim, keepdim, "linalg.vector_norm")
    a = np.abs(self._np.astype(np.result_type(self._np.dtype, rdt._np) if dtype is not None else self._np.dtype,
                               copy=False))
    if a.ndim == 0:
        a, axes = a.reshape(1), (0,)
    if a.size == 0 and ord in (float("inf"), float("-inf")) and any(a.shape[i] == 0 for i in axes):
        raise RuntimeError(f"linalg.vector_norm cannot compute the {ord} norm on an empty tensor because the "
                           "operation does not have an identity")
    if ord == float("inf"):
        r = np.max(a, axis=axes) if a.size else np.zeros(shape)
    elif ord == float("-inf"):
        r = np.min(a, axis=axes)
    elif ord == 0:
        r = np.sum(a != 0, axis=axes)
    elif ord == 1:
        r = np.sum(a, axis=axes)
    elif ord == 2:
        r = np.sqrt(np.sum(a * a, axis=axes))
    else:
        r = np.sum(a ** ord, axis=axes) ** (1.0 / ord)
    return _wrap(r, rdt, shape)


def linalg_vector_norm_out(self, ord=2, dim=None, keepdim=False, *, dtype=None, out):
    return _into(out, linalg_vector_norm(self, ord, dim, keepdim, dtype=dtype))


def norm_Scalar(self, p=2):
    return linalg_vector_norm(self, p)


def norm_ScalarOpt_dim(self, p, dim, keepdim=False):
    return linalg_vector_norm(self, 2 if p is None else p, dim, keepdim)


def norm_ScalarOpt_dim_dtype(self, p, dim, keepdim, *, dtype):
    return linalg_vector_norm(self, 2 if p is None else p, dim, keepdim, dtype=dtype)


def norm_ScalarOpt_dtype(self, p, *, dtype):
    return linalg_vector_norm(self, 2 if p is None else p, dtype=dtype)


def norm_out(self, p, dim, keepdim=False, *, out):
    return _into(out, norm_ScalarOpt_dim(self, p, dim, keepdim))


def norm_dtype_out(self, p, dim, keepdim, *, dtype, out):
    return _into(out, norm_ScalarOpt_dim_dtype(self, p, dim, keepdim, dtype=dtype))


def linalg_matrix_norm(self, ord, dim=(-2, -1), keepdim=False, *, dtype=None):
    rdt = M.norm_dtype(self, dtype, "linalg.matrix_norm")
    axes, shape = M.matrix_norm_spec(self, dim, keepdim)
    a = np.moveaxis(self._np, axes, (-2, -1)).astype(rdt._np if dtype is not None else self._np.dtype, copy=False)
    if ord == "fro":
        r = np.sqrt(np.sum(np.abs(a) ** 2, axis=(-2, -1)))
    elif ord == "nuc" or ord in (2, -2):
        s = np.linalg.svd(a, compute_uv=False)
        r = np.sum(s, axis=-1) if ord == "nuc" else (np.max(s, axis=-1) if ord == 2 else np.min(s, axis=-1))
    elif ord in (1, -1):
        c = np.sum(np.abs(a), axis=-2)
        r = np.max(c, axis=-1) if ord == 1 else np.min(c, axis=-1)
    elif ord in (float("inf"), float("-inf")):
        c = np.sum(np.abs(a), axis=-1)
        r = np.max(c, axis=-1) if ord > 0 else np.min(c, axis=-1)
    else:
        raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
    return _wrap(r, rdt, shape)


def linalg_matrix_norm_str_ord(self, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None):
    if ord not in ("fro", "nuc"):
        raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
    return linalg_matrix_norm(self, ord, dim, keepdim, dtype=dtype)


def linalg_matrix_norm_out(self, ord, dim=(-2, -1), keepdim=False, *, dtype=None, out):
    return _into(out, linalg_matrix_norm(self, ord, dim, keepdim, dtype=dtype))


linalg_matrix_norm_str_ord_out = linalg_matrix_norm_out


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
        return _into(out, f(self, dim, dtype=dtype))
    return f, f_, f_out


cumsum, cumsum_, cumsum_out = _scan(np.cumsum, "cumsum")
cumprod, cumprod_, cumprod_out = _scan(np.cumprod, "cumprod")


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
    return _into(out, logcumsumexp(self, dim))


def count_nonzero(self, dim=None):
    axes, shape = reduce_spec(self, dim, False, "count_nonzero")
    return _wrap(np.count_nonzero(self._np, axis=axes if self._np.ndim else None), D.int64, shape)


count_nonzero_dim_IntList = count_nonzero
