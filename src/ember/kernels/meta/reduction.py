"""Meta functions for reductions: reduced shape (keepdim), result dtype, torch's argument checks.
The cpu kernels in kernels/cpu/reduction.py call `reduce_spec` / `*_dtype` and allocate with `out_like`."""
from ..._core import dtype as D
from ..._core.device import META
from ..._core.strides import wrap_dim
from ..common import as_dtype, check_out, empty_tensor
from ..out_rules import HISTOGRAM, exact, floating_result, same
from ..._core.promotion import get_default_dtype
from ..common import _tname


def float_dtype(self):
    d = self.dtype
    return d if (d.is_floating_point or d.is_complex) else get_default_dtype()


def _t(shape, dtype):
    return empty_tensor(shape, dtype, META)


def _data_dependent(name):
    def f(self, *args, **kw):
        raise NotImplementedError(f"aten::{name}: the output shape depends on the data, which meta tensors do not have")
    f.__name__ = name
    return f


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


def nansum(self, dim=None, keepdim=False, *, dtype=None):
    if self.dtype.is_complex:
        raise RuntimeError("nansum on CPU does not support complex inputs")
    return sum(self, dim, keepdim, dtype=dtype)


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


def var_dtype(self, name="var"):
    if not (self.dtype.is_floating_point or self.dtype.is_complex):
        raise RuntimeError("std and var only support floating point and complex dtypes")
    return real_of(self.dtype)


def var_spec(self, dim, keepdim):
    return reduce_spec(self, dim, keepdim, "var")


def var_correction(self, dim=None, *, correction=None, keepdim=False):
    return _t(var_spec(self, dim, keepdim)[1], var_dtype(self))


def var_out(self, dim, unbiased=True, keepdim=False, *, out):
    return out


def var_correction_out(self, dim=None, *, correction=None, keepdim=False, out):
    return out


std_correction, std_out, std_correction_out = var_correction, var_out, var_correction_out


def var_mean_correction(self, dim=None, *, correction=None, keepdim=False):
    r = var_correction(self, dim, keepdim=keepdim)
    return r, _t(r._size, self.dtype)


std_mean_correction = var_mean_correction


def logsumexp(self, dim, keepdim=False):
    return _t(reduce_spec(self, dim, keepdim, "logsumexp")[1], float_dtype(self))


LOGSUMEXP = floating_result("logsumexp()")


def logsumexp_out(self, dim, keepdim=False, *, out):
    check_out(out, reduce_spec(self, dim, keepdim, "logsumexp")[1], float_dtype(self), "logsumexp", LOGSUMEXP)
    return out


def linalg_vector_norm(self, ord=2, dim=None, keepdim=False, *, dtype=None):
    d = norm_dtype(self, dtype)
    return _t(reduce_spec(self, dim, keepdim, "linalg.vector_norm")[1], d)


def check_norm_dtype(self):
    """norm.Scalar / norm.ScalarOpt_dim / norm.out (and frobenius_norm through them): torch's own message; the
    dtype= overloads leave the check to linalg.vector_norm."""
    if not (self.dtype.is_floating_point or self.dtype.is_complex):
        raise RuntimeError(f"norm(): input dtype should be either floating point or complex. Got {_tname(self.dtype)} "
                           "instead.")


def norm_Scalar(self, p=2):
    check_norm_dtype(self)
    return linalg_vector_norm(self, p)


def norm_ScalarOpt_dim(self, p, dim, keepdim=False):
    check_norm_dtype(self)
    return linalg_vector_norm(self, 2 if p is None else p, dim, keepdim)


def norm_ScalarOpt_dim_dtype(self, p, dim, keepdim, *, dtype):
    return linalg_vector_norm(self, 2 if p is None else p, dim, keepdim, dtype=dtype)


def norm_ScalarOpt_dtype(self, p, *, dtype):
    return linalg_vector_norm(self, 2 if p is None else p, dtype=dtype)




def count_nonzero_dim_IntList(self, dim):
    return _t(reduce_spec(self, dim, False, "count_nonzero")[1], D.int64)


def count_nonzero(self, dim=None):
    return _t(reduce_spec(self, dim, False, "count_nonzero")[1], D.int64)


def dim_reduce_shape(self, dim, keepdim, name):
    return reduce_spec(self, dim, keepdim, name, True)[1]


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


bincount = _data_dependent("bincount")


def histc_out(self, bins=100, min=0, max=0, *, out):
    r = histc(self, bins, min, max)
    check_out(out, r._size, r.dtype, "histc", HISTOGRAM)
    return out


def real_of(d):
    return {D.complex64: D.float32, D.complex128: D.float64}.get(d, d)


def norm_dtype(self, dtype, name="linalg.vector_norm"):
    d = as_dtype(dtype)
    if not (self.dtype.is_floating_point or self.dtype.is_complex):
        raise RuntimeError(f"{name}: Expected a floating point or complex tensor as input. Got {_tname(self.dtype)}")
    return real_of(d or self.dtype)


def matrix_norm_spec(self, dim, keepdim):
    if self.dim() < 2:
        raise RuntimeError(f"linalg.matrix_norm: The input tensor A must have at least 2 dimensions.")
    d = tuple(wrap_dim(x, self.dim()) for x in dim)
    if len(d) != 2 or d[0] == d[1]:
        raise RuntimeError(f"linalg.matrix_norm: dims must be different. Got ({dim[0]}, {dim[-1]})")
    return reduce_spec(self, list(d), keepdim, "matrix_norm")


def norm_out_rule(name):
    """linalg.norm / linalg.matrix_norm out=: computed, then `out` must have exactly the norm's dtype."""
    return same(lambda i, want, got: f"{name} expected out tensor dtype {_tname(want)} but got: {_tname(got)}")


def linalg_vector_norm_out(self, ord=2, dim=None, keepdim=False, *, dtype=None, out):
    d = norm_dtype(self, dtype)
    check_out(out, reduce_spec(self, dim, keepdim, "linalg.vector_norm")[1], d, "linalg_vector_norm", exact)
    return out


def linalg_matrix_norm_out(self, ord, dim=(-2, -1), keepdim=False, *, dtype=None, out):
    d = norm_dtype(self, dtype, "linalg.matrix_norm")
    check_out(out, matrix_norm_spec(self, dim, keepdim)[1], d, "linalg_matrix_norm", norm_out_rule("linalg.matrix_norm"))
    return out


def linalg_matrix_norm(self, ord, dim=(-2, -1), keepdim=False, *, dtype=None):
    d = norm_dtype(self, dtype, "linalg.matrix_norm")
    return _t(matrix_norm_spec(self, dim, keepdim)[1], d)


linalg_matrix_norm_str_ord = linalg_matrix_norm


linalg_matrix_norm_str_ord_out = linalg_matrix_norm_out


norm_out = norm_dtype_out = linalg_vector_norm_out


def aminmax_spec(self, dim, keepdim):
    """(axes, out_shape) of aminmax, with its own messages for an empty input and complex dtypes."""
    if self.dtype.is_complex:
        raise NotImplementedError(f"\"aminmax_cpu\" not implemented for '{_tname(self.dtype)}'")
    if dim is None:
        if self.numel() == 0:
            raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as the operation has no "
                               "identity.")
        axes = tuple(range(self.dim()))
        return axes, ((1,) * self.dim() if keepdim else ())
    w = wrap_dim(dim, self.dim())
    if self.dim() and self._size[w] == 0:
        raise IndexError(f"aminmax: Expected reduction dim {w} to have non-zero size.")
    return reduce_spec(self, [dim], keepdim, "aminmax", False)


def aminmax(self, *, dim=None, keepdim=False):
    shape = aminmax_spec(self, dim, keepdim)[1]
    return out_like(self, shape, self.dtype), out_like(self, shape, self.dtype)


def renorm_check(self, p, dim, maxnorm):
    """torch's renorm meta checks; returns the dims the norm reduces (all but `dim`)."""
    if isinstance(p, complex):
        raise RuntimeError("renorm: p must be real-valued")
    if not float(p) > 0.0:
        raise RuntimeError("renorm: non-positive-norm not supported")
    if isinstance(maxnorm, complex):
        raise RuntimeError("renorm: maxnorm must be real-valued")
    if not float(maxnorm) >= 0.0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {float(maxnorm):g}")
    if self.dim() <= 1:
        raise RuntimeError(f"renorm: input needs at least 2 dimensions, got {self.dim()} dimensions")
    d = wrap_dim(dim, self.dim())
    if not (self.dtype.is_floating_point or self.dtype.is_complex):
        raise RuntimeError(f"linalg.vector_norm: Expected a floating point or complex tensor as input. Got "
                           f"{_tname(self.dtype)}")
    return tuple(i for i in range(self.dim()) if i != d)


def renorm(self, p, dim, maxnorm):
    renorm_check(self, p, dim, maxnorm)
    return empty_tensor(self._size, self.dtype, self.device)


def renorm_(self, p, dim, maxnorm):
    renorm_check(self, p, dim, maxnorm)
    return self


def histogram_check(self, bins, range=None, weight=None):
    """torch.histogram's argument checks; returns the number of bins."""
    if not self.dtype.is_floating_point:
        raise NotImplementedError(f"\"histogramdd\" not implemented for '{_tname(self.dtype)}'")
    if isinstance(bins, int):
        if bins <= 0:
            raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins} for dimension 0")
        if range is not None and range[0] > range[1]:
            raise RuntimeError(f"torch.histogramdd: min should not exceed max, but got min {range[0]:g} max "
                               f"{range[1]:g} for dimension 0")
        n = bins
    else:
        if bins.dim() != 1:
            raise RuntimeError(f"torch.histogramdd: bins tensor should have one dimension, but got {bins.dim()} "
                               "dimensions in the bins tensor for dimension 0")
        if bins.dtype is not self.dtype:
            raise RuntimeError(f"torch.histogramdd: input tensor and bins tensors should have the same dtype, but "
                               f"got input {self.dtype.name.capitalize()} and bins {bins.dtype.name.capitalize()}")
        n = bins._size[0] - 1
    if weight is not None and tuple(weight._size) != tuple(self._size):
        raise RuntimeError("torch.histogramdd: if weight tensor is provided it should have the same shape as the "
                           f"input tensor excluding its innermost dimension, but got input with shape "
                           f"{list(self._size)} and weight with shape {list(weight._size)}")
    return n


def histogram_bins_tensor(self, bins, *, weight=None, density=False):
    n = histogram_check(self, bins, None, weight)
    return _t((n,), self.dtype), _t((n + 1,), self.dtype)


def histogram_bin_ct(self, bins=100, *, range=None, weight=None, density=False):
    n = histogram_check(self, bins, range, weight)
    return _t((n,), self.dtype), _t((n + 1,), self.dtype)


# ------------------------------------------------------------------ hash_tensor
_HASHABLE = ("bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64")


def hash_tensor_spec(self, dim, keepdim, mode):
    """(axes, shape) of torch.hash_tensor: a reduction (every dim when `dim` is empty) whose result is uint64;
    torch's xor_sum loop covers the bool, integer (up to int64) and real floating dtypes, mode 0 only."""
    try:
        axes, shape = reduce_spec(self, dim, keepdim, "hash_tensor", nonempty=True)
    except (RuntimeError, IndexError) as e:           # torch's text here is "hash_tensor: ...", not "...(): ..."
        raise type(e)(str(e).replace("hash_tensor(): ", "hash_tensor: ")) from None
    if mode != 0:
        raise RuntimeError(f"Unknown hash_tensor mode: {mode}")
    d = self.dtype
    if d.name not in _HASHABLE:
        name = {"uint16": "UInt16", "uint32": "UInt32", "uint64": "UInt64"}.get(d.name) or _tname(d)
        raise NotImplementedError(f"\"xor_sum_cpu\" not implemented for '{name}'")
    return axes, shape


def hash_tensor_out_rule(i, dtype, out):
    if out.dtype is not D.uint64:
        raise RuntimeError(f"Expected result to be of dtype uint64, but got {_tname(out.dtype)}")


def hash_tensor(self, dim=(), *, keepdim=False, mode=0):
    return out_like(self, hash_tensor_spec(self, dim, keepdim, mode)[1], D.uint64)


def hash_tensor_out(self, dim=(), *, keepdim=False, mode=0, out):
    shape = hash_tensor_spec(self, dim, keepdim, mode)[1]
    check_out(out, shape, D.uint64, "hash_tensor", hash_tensor_out_rule)
    return out
