"""CompositeImplicitAutograd kernels of the reductions (torch's ReduceOps.cpp composites): the `unbiased`
overloads of var/std/var_mean/std_mean call their `.correction` overload, as torch's do, so every one of them
records the same Node (VarBackward0, StdMeanBackward0, ...)."""
from ..._ops import ops
from ..._core import dtype as D
from ..._core.strides import wrap_dim
from ..common import _tname, c_type_name

aten = ops.aten


def _c(unbiased):
    return 1 if unbiased else 0


def var(self, unbiased=True):
    return aten.var.correction(self, None, correction=_c(unbiased))


def var_dim(self, dim, unbiased=True, keepdim=False):
    return aten.var.correction(self, dim, correction=_c(unbiased), keepdim=keepdim)


def std(self, unbiased=True):
    return aten.std.correction(self, None, correction=_c(unbiased))


def std_dim(self, dim, unbiased=True, keepdim=False):
    return aten.std.correction(self, dim, correction=_c(unbiased), keepdim=keepdim)


def var_mean(self, unbiased=True):
    return aten.var_mean.correction(self, None, correction=_c(unbiased))


def var_mean_dim(self, dim, unbiased=True, keepdim=False):
    return aten.var_mean.correction(self, dim, correction=_c(unbiased), keepdim=keepdim)


def std_mean(self, unbiased=True):
    return aten.std_mean.correction(self, None, correction=_c(unbiased))


def std_mean_dim(self, dim, unbiased=True, keepdim=False):
    return aten.std_mean.correction(self, dim, correction=_c(unbiased), keepdim=keepdim)


# ------------------------------------------------------------------ frobenius_norm, nuclear_norm (issue 19)
_FRO = ("at::frobenius_norm is deprecated and it is just left for JIT compatibility. It will be removed in a future "
        "PyTorch release. Please use `linalg.vector_norm(A, 2., dim, keepdim)` instead")
_NUC = ("at::nuclear_norm is deprecated and it is just left for JIT compatibility. It will be removed in a future "
        "PyTorch release. Please use `linalg.matrix_norm(A, 'nuc', dim, keepdim)` instead")


def _fro_dims(dim):
    """frobenius_norm's `int[1] dim`: a lone int is a one-element list (torch: frobenius_norm(x, 0))."""
    return dim if isinstance(dim, (list, tuple)) else (dim,)


def _fro_check(dim):
    from .linalg import warn_once
    warn_once(_FRO)
    if len(dim) > 2:
        raise RuntimeError(f"Expected at most 2 dimensions, but got {len(dim)} dimensions instead.")


def frobenius_norm(self, dim, keepdim=False):
    """The deprecated torch.frobenius_norm: norm(self, 2, dim, keepdim)."""
    dim = _fro_dims(dim)
    _fro_check(dim)
    return aten.norm.ScalarOpt_dim(self, 2.0, dim, keepdim)


def frobenius_norm_out(self, dim, keepdim=False, *, out):
    dim = _fro_dims(dim)
    _fro_check(dim)
    r = aten.norm.ScalarOpt_dim(self, 2.0, dim, keepdim)
    if out.dtype is not r.dtype:
        raise RuntimeError(f"Expected out tensor to have dtype {c_type_name(r.dtype)}, but got "
                           f"{c_type_name(out.dtype)} instead")
    return _copy_out(r, out)


def _copy_out(r, out):
    from ..common import resize_out
    resize_out(out, r._size)
    return out.copy_(r)


def _nuc_dim(dim):
    from .linalg import warn_once
    warn_once(_NUC)
    if dim is not None and len(dim) != 2:
        raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got {' '.join(str(d) for d in dim)}")
    return [-2, -1] if dim is None else list(dim)


def nuclear_norm(self, keepdim=False):
    """The deprecated torch.nuclear_norm: linalg.matrix_norm(self, 'nuc', dim, keepdim)."""
    return aten.linalg_matrix_norm.str_ord(self, "nuc", _nuc_dim(None), keepdim)


def nuclear_norm_dim(self, dim, keepdim=False):
    return aten.linalg_matrix_norm.str_ord(self, "nuc", _nuc_dim(dim), keepdim)


def _nuc_out(self, dim, keepdim, out):
    r = aten.linalg_matrix_norm.str_ord(self, "nuc", dim, keepdim)
    if out.dtype is not r.dtype:
        raise RuntimeError(f"linalg.matrix_norm expected out tensor dtype {_tname(r.dtype)} but got: "
                           f"{_tname(out.dtype)}")
    return _copy_out(r, out)


def nuclear_norm_out(self, keepdim=False, *, out):
    return _nuc_out(self, _nuc_dim(None), keepdim, out)


def nuclear_norm_dim_out(self, dim, keepdim=False, *, out):
    return _nuc_out(self, _nuc_dim(dim), keepdim, out)


# ------------------------------------------------------------------ linalg.matrix_norm (torch's LinearAlgebra.cpp)
def _backshift(d0, d1, ndim):
    """The permutation moving dims d0, d1 to the end (in that order), and its inverse."""
    perm = [d for d in range(ndim) if d not in (d0, d1)] + [d0, d1]
    inv = [0] * ndim
    for i, p in enumerate(perm):
        inv[p] = i
    return perm, inv


def _matrix_norm_dims(A, ord, dim, keepdim, dtype):
    from ..meta.reduction import linalg_matrix_norm as check
    check(A, ord, dim, keepdim, dtype=dtype)
    return [wrap_dim(d, A.dim()) for d in dim]


def _svdvals_last(A, d0, d1, dtype):
    perm, inv = _backshift(d0, d1, A.dim())
    A_ = aten._to_copy.default(A, dtype=dtype) if dtype is not None and dtype is not A.dtype else A
    return aten.linalg_svdvals.default(aten.permute.default(A_, perm)), inv


def linalg_matrix_norm(A, ord, dim=(-2, -1), keepdim=False, *, dtype=None):
    """torch's composite: ord ±2 takes the extreme singular value, ±1 / ±inf the extreme abs column / row sum
    (linalg_vector_norm then amax/amin), so the graph ends in torch's nodes. The CPU kernel of the op answers
    calls that need no grad in one numpy pass."""
    o = float(ord)
    if abs(o) not in (1.0, 2.0, float("inf")):
        raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
    d0, d1 = _matrix_norm_dims(A, ord, dim, keepdim, dtype)
    ext = aten.amax.default if o > 0 else aten.amin.default
    if abs(o) == 2.0:
        s, inv = _svdvals_last(A, d0, d1, dtype)
        r = ext(s, [-1], keepdim)
        return aten.permute.default(aten.unsqueeze.default(r, -1), inv) if keepdim else r
    if abs(o) == float("inf"):
        d0, d1 = d1, d0
    if not keepdim and d0 < d1:
        d1 -= 1
    return ext(aten.linalg_vector_norm.default(A, 1.0, [d0], keepdim, dtype=dtype), [d1], keepdim)


def linalg_matrix_norm_str_ord(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None):
    if ord not in ("fro", "nuc"):
        raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
    d0, d1 = _matrix_norm_dims(A, ord, dim, keepdim, dtype)
    if ord == "fro":
        return aten.linalg_vector_norm.default(A, 2, [d0, d1], keepdim, dtype=dtype)
    s, inv = _svdvals_last(A, d0, d1, dtype)
    r = aten.sum.dim_IntList(s, [-1], keepdim)
    return aten.permute.default(aten.unsqueeze.default(r, -1), inv) if keepdim else r


# ---------------------------------------------------------------- trapezoid (torch's Integration.cpp)
def _no_bool(name, y, x=None):
    if x is not None and (y.dtype == D.bool_ or x.dtype == D.bool_):
        raise RuntimeError(f"{name}: received a bool input for `x` or `y`, but bool is not supported")
    if y.dtype == D.bool_:
        raise RuntimeError(f"{name}: received a bool input for `y`, but bool is not supported")


def _real_dx(name, dx):
    if isinstance(dx, (bool, complex)) or getattr(dx, "dtype", None) in (D.bool_, D.complex64, D.complex128):
        raise RuntimeError(f"{name}: Currently, we only support dx as a real number.")
    return float(dx)


def sample_spacing(name, y, x, dim):
    """x's differences along `dim`, shaped to broadcast against y's (numpy's rule: broadcast after differencing)."""
    if x.dim() == 1:
        if x._size[0] != y._size[dim]:
            raise RuntimeError(f"{name}: There must be one `x` value for each sample point")
        shape = [1] * y.dim()
        shape[dim] = x._size[0]
        x = aten.view.default(x, shape)
    elif x.dim() < y.dim():
        x = aten.view.default(x, [1] * (y.dim() - x.dim()) + list(x._size))
    return aten.sub.Tensor(aten.slice.Tensor(x, dim, 1), aten.slice.Tensor(x, dim, 0, -1))


def _zeros_except(y, dim):
    return aten.zeros.default([s for i, s in enumerate(y._size) if i != dim], dtype=y.dtype, device=y.device)


def trapezoid_x(y, x, *, dim=-1):
    dim = wrap_dim(dim, y.dim())
    if y._size[dim] == 0:
        return _zeros_except(y, dim)
    _no_bool("trapezoid", y, x)
    dx = sample_spacing("trapezoid", y, x, dim)
    pair = aten.add.Tensor(aten.slice.Tensor(y, dim, 1), aten.slice.Tensor(y, dim, 0, -1))
    return aten.div.Scalar(aten.sum.dim_IntList(aten.mul.Tensor(pair, dx), [dim]), 2.0)


def trapezoid_dx(y, *, dx=1, dim=-1):
    dim = wrap_dim(dim, y.dim())
    if y._size[dim] == 0:
        return _zeros_except(y, dim)
    _no_bool("trapezoid", y)
    dx = _real_dx("trapezoid", dx)
    ends = aten.mul.Scalar(aten.add.Tensor(aten.select.int(y, dim, 0), aten.select.int(y, dim, -1)), 0.5)
    return aten.mul.Scalar(aten.sub.Tensor(aten.sum.dim_IntList(y, [dim]), ends), dx)
