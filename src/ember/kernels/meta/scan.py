"""Meta functions for statistical reductions and scans (var/std, logsumexp, norms, cumsum/cumprod,
cummax/cummin, logcumsumexp, count_nonzero): shapes, dtypes and torch's argument checks. The cpu
kernels in kernels/cpu/scans.py allocate from these."""
from ..._core import dtype as D
from ..._core.device import META
from ..._core.promotion import get_default_dtype
from ..._core.strides import wrap_dim
from ..common import as_dtype, empty_tensor, _tname
from .reduction import reduce_spec, sum_dtype


def real_of(d):
    return {D.complex64: D.float32, D.complex128: D.float64}.get(d, d)


def var_dtype(self, name="var"):
    if not (self.dtype.is_floating_point or self.dtype.is_complex):
        raise RuntimeError("std and var only support floating point and complex dtypes")
    return real_of(self.dtype)


def correction_of(unbiased=None, correction=None):
    if correction is not None:
        return correction
    return 1 if unbiased is None or unbiased else 0


def var_spec(self, dim, keepdim):
    return reduce_spec(self, dim, keepdim, "var")


def float_dtype(self):
    d = self.dtype
    return d if (d.is_floating_point or d.is_complex) else get_default_dtype()


def norm_dtype(self, dtype, name="linalg.vector_norm"):
    d = as_dtype(dtype)
    if not (self.dtype.is_floating_point or self.dtype.is_complex):
        raise RuntimeError(f"{name}: Expected a floating point or complex tensor as input. Got {_tname(self.dtype)}")
    return real_of(d or self.dtype)


def scan_dim(self, dim):
    return wrap_dim(dim, self.dim())


def matrix_norm_spec(self, dim, keepdim):
    if self.dim() < 2:
        raise RuntimeError(f"linalg.matrix_norm: The input tensor A must have at least 2 dimensions.")
    d = tuple(wrap_dim(x, self.dim()) for x in dim)
    if len(d) != 2 or d[0] == d[1]:
        raise RuntimeError(f"linalg.matrix_norm: dims must be different. Got ({dim[0]}, {dim[-1]})")
    return reduce_spec(self, list(d), keepdim, "matrix_norm")


def _t(shape, dtype):
    return empty_tensor(shape, dtype, META)


# ------------------------------------------------------------------ meta kernels
def var(self, unbiased=True):
    return _t((), var_dtype(self))


def var_dim(self, dim, unbiased=True, keepdim=False):
    return _t(var_spec(self, dim, keepdim)[1], var_dtype(self))


def var_correction(self, dim=None, *, correction=None, keepdim=False):
    return _t(var_spec(self, dim, keepdim)[1], var_dtype(self))


def var_out(self, dim, unbiased=True, keepdim=False, *, out):
    return out


var_correction_out = var_out
std, std_dim, std_correction, std_out, std_correction_out = var, var_dim, var_correction, var_out, var_out


def var_mean(self, unbiased=True):
    return var(self), _t((), self.dtype)


def var_mean_dim(self, dim, unbiased=True, keepdim=False):
    r = var_dim(self, dim, unbiased, keepdim)
    return r, _t(r._size, self.dtype)


def var_mean_correction(self, dim=None, *, correction=None, keepdim=False):
    r = var_correction(self, dim, keepdim=keepdim)
    return r, _t(r._size, self.dtype)


std_mean, std_mean_dim, std_mean_correction = var_mean, var_mean_dim, var_mean_correction


def logsumexp(self, dim, keepdim=False):
    return _t(reduce_spec(self, dim, keepdim, "logsumexp")[1], float_dtype(self))


def logsumexp_out(self, dim, keepdim=False, *, out):
    return out


def norm_args(p, dim, keepdim, dtype):
    return (2 if p is None else p), dim, keepdim, dtype


def linalg_vector_norm(self, ord=2, dim=None, keepdim=False, *, dtype=None):
    d = norm_dtype(self, dtype)
    return _t(reduce_spec(self, dim, keepdim, "linalg.vector_norm")[1], d)


def linalg_vector_norm_out(self, ord=2, dim=None, keepdim=False, *, dtype=None, out):
    return out


def norm_Scalar(self, p=2):
    return linalg_vector_norm(self, p)


def norm_ScalarOpt_dim(self, p, dim, keepdim=False):
    return linalg_vector_norm(self, 2 if p is None else p, dim, keepdim)


def norm_ScalarOpt_dim_dtype(self, p, dim, keepdim, *, dtype):
    return linalg_vector_norm(self, 2 if p is None else p, dim, keepdim, dtype=dtype)


def norm_ScalarOpt_dtype(self, p, *, dtype):
    return linalg_vector_norm(self, 2 if p is None else p, dtype=dtype)


norm_out = norm_dtype_out = linalg_vector_norm_out


def linalg_matrix_norm(self, ord, dim=(-2, -1), keepdim=False, *, dtype=None):
    d = norm_dtype(self, dtype, "linalg.matrix_norm")
    return _t(matrix_norm_spec(self, dim, keepdim)[1], d)


linalg_matrix_norm_str_ord = linalg_matrix_norm
linalg_matrix_norm_out = linalg_matrix_norm_str_ord_out = linalg_vector_norm_out


def cumsum(self, dim, *, dtype=None):
    scan_dim(self, dim)
    return _t(self._size, sum_dtype(self, dtype))


cumprod = cumsum


def cumsum_(self, dim, *, dtype=None):
    scan_dim(self, dim)
    return self


cumprod_ = cumsum_


def cumsum_out(self, dim, *, dtype=None, out):
    return out


cumprod_out = logcumsumexp_out = cumsum_out


def cummax(self, dim):
    scan_dim(self, dim)
    return _t(self._size, self.dtype), _t(self._size, D.int64)


cummin = cummax


def logcumsumexp(self, dim):
    scan_dim(self, dim)
    return _t(self._size, float_dtype(self))


def count_nonzero_dim_IntList(self, dim):
    return _t(reduce_spec(self, dim, False, "count_nonzero")[1], D.int64)


def count_nonzero(self, dim=None):
    return _t(reduce_spec(self, dim, False, "count_nonzero")[1], D.int64)
