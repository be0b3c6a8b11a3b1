"""Meta functions for ember.linalg (ATen's BatchLinearAlgebra.cpp / LinearAlgebra.cpp): torch's input checks
and output geometry. LAPACK-backed results are batches of column-major matrices, as in torch."""
from ..._core import dtype as D
from ..._core.device import META
from ..._core.strides import contiguous_strides
from ..common import _tname, broadcast_shapes, check_out, empty_tensor, resize_out
from ..out_rules import check_outs, exact, linalg_castable, same
from .shape import _t as _t_shape
from ..._core.promotion import result_type
from ..._core.strides import wrap_dim


class LinAlgError(RuntimeError):
    """torch._C._LinAlgError: a linear-algebra routine failed on its input (singular, not positive-definite...)."""


def mstrides(shape):
    """Strides of a batch of column-major matrices (LAPACK's layout, torch's linalg outputs)."""
    shape = tuple(shape)
    if len(shape) < 2:
        return contiguous_strides(shape)
    m, n = shape[-2], shape[-1]
    st = [0] * len(shape)
    st[-2], st[-1] = 1, max(m, 1)
    acc = max(m, 1) * max(n, 1)
    for i in reversed(range(len(shape) - 2)):
        st[i] = acc
        acc *= max(shape[i], 1)
    return tuple(st)


def _t(shape, dtype, strides=None):
    return empty_tensor(shape, dtype, META, strides)


def real_dtype(dt):
    return {D.complex64: D.float32, D.complex128: D.float64}.get(dt, dt)


def check_matrix(A, name, square=True, arg="A"):
    if A.dim() < 2:
        raise RuntimeError(f"{name}: The input tensor {arg} must have at least 2 dimensions.")
    if not (A.dtype.is_floating_point or A.dtype.is_complex):
        raise RuntimeError(f"{name}: Expected a floating point or complex tensor as input. Got {_tname(A.dtype)}")
    if square and A._size[-1] != A._size[-2]:
        raise RuntimeError(f"{name}: A must be batches of square matrices, but they are {A._size[-2]} by "
                           f"{A._size[-1]} matrices")
    return A._size[:-2]


def _outs(results, outs, rule, order=None):
    check_outs([r.dtype for r in results], outs, rule)
    for j in (order if order is not None else range(len(outs))):
        resize_out(outs[j], results[j]._size)
    return tuple(outs)


# (torch's check of `residuals` names it "solution")
_LSTSQ = linalg_castable("torch.linalg.lstsq", ("solution", "solution", "rank", "singular_values"))
_scalar_type = same(lambda i, want, got: f"expected scalar type {_tname(want)} but found {_tname(got)}")


# ------------------------------------------------------------------ inverse / determinants / solve
def linalg_inv_ex(A, *, check_errors=False):
    batch = check_matrix(A, "linalg.inv")
    return _t(A._size, A.dtype, mstrides(A._size)), _t(batch, D.int32)


def linalg_inv_ex_inverse(A, *, check_errors=False, inverse, info):
    return _outs(linalg_inv_ex(A), (inverse, info), exact)


def linalg_det(A):
    return _t(check_matrix(A, "linalg.det"), A.dtype)


def linalg_det_out(A, *, out):
    return _outs((linalg_det(A),), (out,), exact)[0]


def linalg_slogdet(A):
    batch = check_matrix(A, "linalg.slogdet")
    return _t(batch, A.dtype), _t(batch, real_dtype(A.dtype))


def linalg_slogdet_out(A, *, sign, logabsdet):
    return _outs(linalg_slogdet(A), (sign, logabsdet), exact)


def solve_spec(A, B, left=True):
    """(vector_case, batch shape, result shape) of linalg.solve."""
    check_matrix(A, "linalg.solve")
    if B.dtype is not A.dtype:
        raise RuntimeError(f"linalg.solve: Expected A and B to have the same dtype, but found A of type "
                           f"{_tname(A.dtype)} and B of type {_tname(B.dtype)} instead")
    vector = B.dim() == 1 or (left and B.dim() == A.dim() - 1 and B._size == A._size[:-1])
    Bm = B._size + (1,) if vector else B._size
    if len(Bm) < 2:
        raise RuntimeError("linalg.solve: The input tensor B must have at least 1 dimensions.")
    n = A._size[-1]
    if (left and Bm[-2] != n) or (not left and Bm[-1] != n):
        a, b = (f"{n}x{n}", f"{Bm[-2]}x{Bm[-1]}")
        raise RuntimeError(f"linalg.solve: Incompatible shapes of A and B for the equation "
                           f"{'AX = B' if left else 'XA = B'} ({a} and {b})")
    batch = broadcast_shapes(A._size[:-2], Bm[:-2])
    shape = batch + Bm[-2:]
    return vector, batch, (shape[:-1] if vector else shape)


def linalg_solve_ex(A, B, *, left=True, check_errors=False):
    vector, batch, shape = solve_spec(A, B, left)
    return _t(shape, A.dtype, None if vector else mstrides(shape)), _t(batch, D.int32)


def linalg_solve_ex_out(A, B, *, left=True, check_errors=False, result, info):
    return _outs(linalg_solve_ex(A, B, left=left), (result, info), exact)


# ------------------------------------------------------------------ factorizations
def linalg_cholesky_ex(A, *, upper=False, check_errors=False):
    batch = check_matrix(A, "linalg.cholesky")
    return _t(A._size, A.dtype, mstrides(A._size)), _t(batch, D.int32)


def linalg_cholesky_ex_L(A, *, upper=False, check_errors=False, L, info):
    return _outs(linalg_cholesky_ex(A), (L, info), exact)


def qr_shapes(A, mode):
    check_matrix(A, "linalg.qr", square=False)
    if mode not in ("reduced", "complete", "r"):
        raise RuntimeError(f"qr received unrecognized mode '{mode}' but expected one of 'reduced' (default), 'r', "
                           "or 'complete'")
    m, n = A._size[-2:]
    k = min(m, n)
    b = A._size[:-2]
    if mode == "r":
        return (0,), b + (k, n)
    if mode == "complete":
        return b + (m, m), b + (m, n)
    return b + (m, k), b + (k, n)


def linalg_qr(A, mode="reduced"):
    q, r = qr_shapes(A, mode)
    return _t(q, A.dtype, mstrides(q)), _t(r, A.dtype, mstrides(r))


def linalg_qr_out(A, mode="reduced", *, Q, R):
    return _outs(linalg_qr(A, mode), (Q, R), exact)


def svd_shapes(A, full_matrices, compute_uv, driver):
    check_matrix(A, "linalg.svd", square=False)
    if driver is not None:
        raise RuntimeError("torch.linalg.svd: keyword argument `driver=` is only supported on CUDA inputs with "
                           "cuSOLVER backend.")
    m, n = A._size[-2:]
    k = min(m, n)
    b = A._size[:-2]
    if not compute_uv:
        return (0,), b + (k,), (0,)
    return (b + (m, m if full_matrices else k)), b + (k,), (b + ((n if full_matrices else k), n))


def _linalg_svd(A, full_matrices=False, compute_uv=True, *, driver=None):
    u, s, vh = svd_shapes(A, full_matrices, compute_uv, driver)
    return _t(u, A.dtype, mstrides(u)), _t(s, real_dtype(A.dtype)), _t(vh, A.dtype, mstrides(vh))


def _linalg_svd_U(A, full_matrices=False, compute_uv=True, *, driver=None, U, S, Vh):
    return _outs(_linalg_svd(A, full_matrices, compute_uv, driver=driver), (U, S, Vh), exact, order=(0, 2, 1))


def eigh_check(A, UPLO):
    batch = check_matrix(A, "linalg.eigh")
    if UPLO not in ("L", "U"):
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")
    return batch


def _linalg_eigh(A, UPLO="L", compute_v=True):
    batch = eigh_check(A, UPLO)
    v = A._size if compute_v else (0,)
    return _t(batch + A._size[-1:], real_dtype(A.dtype)), _t(v, A.dtype, mstrides(v))


def _linalg_eigh_eigenvalues(A, UPLO="L", compute_v=True, *, eigenvalues, eigenvectors):
    return _outs(_linalg_eigh(A, UPLO, compute_v), (eigenvalues, eigenvectors), exact, order=(1, 0))


# ------------------------------------------------------------------ least squares / pinv / rank
LSTSQ_DRIVERS = ("gels", "gelsy", "gelsd", "gelss")


def lstsq_spec(A, B, driver):
    check_matrix(A, "torch.linalg.lstsq", square=False)
    vector = B.dim() == A.dim() - 1
    Bm = B._size + (1,) if vector else B._size
    if len(Bm) < 2:
        raise RuntimeError("torch.linalg.lstsq: input.dim() must be greater or equal to other.dim() and "
                           "(input.dim() - other.dim()) <= 1")
    if A.dtype is not B.dtype:
        raise RuntimeError(f"torch.linalg.lstsq: Expected input and other to have the same dtype, but got "
                           f"input's dtype {_tname(A.dtype)} and other's dtype {_tname(B.dtype)}")
    if A._size[-2] != Bm[-2]:
        raise RuntimeError("torch.linalg.lstsq: input.size(-2) should match other.size(-2)")
    driver = driver or "gelsy"
    if driver not in LSTSQ_DRIVERS:
        raise RuntimeError("torch.linalg.lstsq: parameter `driver` should be one of (gels, gelsy, gelsd, gelss)")
    m, n = A._size[-2:]
    batch = broadcast_shapes(A._size[:-2], Bm[:-2])
    sol = batch + (n, Bm[-1])
    return vector, batch, sol, driver


def lstsq_shapes(A, B, driver):
    vector, batch, sol, driver = lstsq_spec(A, B, driver)
    m, n = A._size[-2:]
    sol_strides = mstrides(batch + (max(m, n), sol[-1]))
    res = (0,)
    if driver != "gelsy" and m > n:
        res = batch + (() if vector else (sol[-1],))
    rank = (0,) if driver == "gels" else batch
    sv = batch + (min(m, n),) if driver in ("gelsd", "gelss") else (0,)
    if vector:
        sol, sol_strides = sol[:-1], sol_strides[:-1]
    return vector, driver, (sol, sol_strides), res, rank, sv


def linalg_lstsq(self, b, rcond=None, *, driver=None):
    _, _, (sol, sst), res, rank, sv = lstsq_shapes(self, b, driver)
    dt = real_dtype(self.dtype)
    return _t(sol, self.dtype, sst), _t(res, dt), _t(rank, D.int64), _t(sv, dt)


def linalg_lstsq_out(self, b, rcond=None, *, driver=None, solution, residuals, rank, singular_values):
    return _outs(linalg_lstsq(self, b, rcond, driver=driver), (solution, residuals, rank, singular_values),
                 _LSTSQ)


def linalg_pinv_atol_rtol_float(self, *, atol=None, rtol=None, hermitian=False):
    check_matrix(self, "linalg.pinv", square=False, arg="A")
    shape = self._size[:-2] + (self._size[-1], self._size[-2])
    return _t(shape, self.dtype)


def linalg_matrix_rank_atol_rtol_float(self, *, atol=None, rtol=None, hermitian=False):
    batch = check_matrix(self, "torch.linalg.matrix_rank", square=hermitian, arg="input")
    return _t(batch, D.int64)


# ------------------------------------------------------------------ eig / matrix_exp / cholesky solves
def complex_dtype(dt):
    return {D.float32: D.complex64, D.float64: D.complex128}.get(dt, dt)


def linalg_eig(self):
    batch = check_matrix(self, "linalg.eig")
    cd = complex_dtype(self.dtype)
    return _t(batch + self._size[-1:], cd), _t(self._size, cd, mstrides(self._size))


def linalg_eig_out(self, *, eigenvalues, eigenvectors):
    return _outs(linalg_eig(self), (eigenvalues, eigenvectors), linalg_castable("torch.linalg.eig", ("eigenvalues", "eigenvectors")))


def linalg_matrix_exp(self):
    check_matrix(self, "linalg.matrix_exp")
    return _t(self._size, self.dtype)


def cholesky_solve_shape(self, input2):
    if self.dim() < 2:
        raise RuntimeError(f"b should have at least 2 dimensions, but has {self.dim()} dimensions instead")
    if input2.dim() < 2:
        raise RuntimeError(f"u should have at least 2 dimensions, but has {input2.dim()} dimensions instead")
    if self.dtype is not input2.dtype:
        raise RuntimeError(f"Expected b and A to have the same dtype, but found b of type {_tname(self.dtype)} and "
                           f"A of type {_tname(input2.dtype)} instead.")
    check_matrix(input2, "cholesky_solve", arg="u")
    if input2._size[-1] != self._size[-2]:
        raise RuntimeError(f"Incompatible matrix sizes for cholesky_solve: each A matrix is {input2._size[-1]} by "
                           f"{input2._size[-1]} but each b matrix is {self._size[-2]} by {self._size[-1]}")
    batch = broadcast_shapes(self._size[:-2], input2._size[:-2])
    return batch + self._size[-2:]


def cholesky_solve(self, input2, upper=False):
    shape = cholesky_solve_shape(self, input2)
    return _t(shape, self.dtype, mstrides(shape))


def cholesky_solve_out(self, input2, upper=False, *, out):
    return _outs((cholesky_solve(self, input2, upper),), (out,), linalg_castable("cholesky_solve"))[0]


def cholesky_inverse(self, upper=False):
    check_matrix(self, linalg_castable("cholesky_inverse"))
    return _t(self._size, self.dtype, mstrides(self._size))


def cholesky_inverse_out(self, upper=False, *, out):
    return _outs((cholesky_inverse(self, upper),), (out,), linalg_castable("cholesky_inverse"))[0]


linalg_pinv_atol_rtol_tensor = linalg_pinv_atol_rtol_float
linalg_matrix_rank_atol_rtol_tensor = linalg_matrix_rank_atol_rtol_float


# ------------------------------------------------------------------ triangular solves
def solve_triangular_spec(self, B, left=True):
    name = "linalg.solve_triangular"
    check_matrix(self, name)
    if B.dim() < 2:
        raise RuntimeError(f"{name}: The input tensor B must have at least 2 dimensions.")
    n = self._size[-1]
    if (left and B._size[-2] != n) or (not left and B._size[-1] != n):
        raise RuntimeError(f"{name}: Incompatible shapes of A and B for the equation {'AX = B' if left else 'XA = B'} "
                           f"({n}x{n} and {B._size[-2]}x{B._size[-1]})")
    from ..._core.promotion import result_type
    dt = result_type(self, B)
    shape = broadcast_shapes(self._size[:-2], B._size[:-2]) + B._size[-2:]
    return shape, dt


def linalg_solve_triangular(self, B, *, upper, left=True, unitriangular=False):
    shape, dt = solve_triangular_spec(self, B, left)
    return _t(shape, dt, mstrides(shape))


def linalg_solve_triangular_out(self, B, *, upper, left=True, unitriangular=False, out):
    return _outs((linalg_solve_triangular(self, B, upper=upper, left=left),), (out,), _scalar_type)[0]


def trace_dtype(self):
    if self.dim() != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {self.dim()}")
    return D.int64 if not (self.dtype.is_floating_point or self.dtype.is_complex) else self.dtype


def trace(self):
    return _t_shape((), trace_dtype(self))


def cross_spec(self, other, dim=-1):
    if self.dim() != other.dim():
        raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")
    d = wrap_dim(dim, self.dim())
    a, b = self._size[d] if self.dim() else 1, other._size[d] if other.dim() else 1
    if a != 3 or b != 3:
        raise RuntimeError(f"linalg.cross: inputs dimension {dim} must have length 3. Got {a} and {b}")
    return d, broadcast_shapes(self._size, other._size), result_type(self, other)


def linalg_cross(self, other, *, dim=-1):
    _, shape, dt = cross_spec(self, other, dim)
    return _t_shape(shape, dt)


def linalg_cross_out(self, other, *, dim=-1, out):
    _, shape, dt = cross_spec(self, other, dim)
    check_out(out, shape, dt, "linalg_cross", exact)
    return out
