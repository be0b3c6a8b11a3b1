"""ember.linalg: torch.linalg's functions over the aten linalg_* ops."""
from .._core.unimplemented import missing_attribute as _missing_attribute
import ember as _e

from ..kernels.meta.linalg import LinAlgError  # noqa: F401  (torch._C._LinAlgError, a RuntimeError)
from ..kernels.meta.reduction import norm_out_rule as _norm_out_rule
from ..kernels.out_rules import write_outs as _write_outs

__all__ = ["vector_norm", "matrix_norm", "norm", "cross", "inv", "inv_ex", "det", "slogdet", "solve", "solve_ex",
           "cholesky", "cholesky_ex", "qr", "svd", "svdvals", "eigh", "eigvalsh", "lstsq", "pinv", "matrix_rank",
           "matrix_power", "LinAlgError", "eig", "eigvals", "matrix_exp", "matmul", "vecdot", "diagonal", "multi_dot",
           "cond", "solve_triangular", "vander"]


def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None, out=None):
    if isinstance(dim, int):
        dim = [dim]
    return _e._linalg.linalg_vector_norm(x, ord, dim, keepdim, dtype=dtype, out=out)


def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None, out=None):
    return _e._linalg.linalg_matrix_norm(A, ord, list(dim), keepdim, dtype=dtype, out=out)


def norm(A, ord=None, dim=None, keepdim=False, *, dtype=None, out=None):
    """(torch's linalg_norm_out computes the norm, then wants `out` of exactly its dtype)"""
    if out is not None:
        r = norm(A, ord, dim, keepdim, dtype=dtype)
        with _e.no_grad():
            return _write_outs((r,), (out,), _norm_out_rule("linalg.norm"), dispatch=True)[0]
    if isinstance(dim, int):
        dim = [dim]
    if ord is None:
        if dim is not None and len(dim) == 2:
            return matrix_norm(A, "fro", dim, keepdim, dtype=dtype)
        return vector_norm(A if dim is not None else A.reshape(-1), 2, dim, keepdim, dtype=dtype)
    if dim is None and A.dim() == 2 or dim is not None and len(dim) == 2:
        return matrix_norm(A, ord, dim if dim is not None else (-2, -1), keepdim, dtype=dtype)
    return vector_norm(A, ord, dim, keepdim, dtype=dtype)


def cross(input, other, *, dim=-1, out=None):
    return _e._linalg.linalg_cross(input, other, dim=dim, out=out)


def inv(A, *, out=None):
    return _e._linalg.linalg_inv(A, out=out)


def inv_ex(A, *, check_errors=False, out=None):
    return _e._linalg.linalg_inv_ex(A, check_errors=check_errors, out=out)


def det(A, *, out=None):
    return _e._linalg.linalg_det(A, out=out)


def slogdet(A, *, out=None):
    return _e._linalg.linalg_slogdet(A, out=out)


def solve(A, B, *, left=True, out=None):
    return _e._linalg.linalg_solve(A, B, left=left, out=out)


def solve_ex(A, B, *, left=True, check_errors=False, out=None):
    return _e._linalg.linalg_solve_ex(A, B, left=left, check_errors=check_errors, out=out)


def cholesky(A, *, upper=False, out=None):
    return _e._linalg.linalg_cholesky(A, upper=upper, out=out)


def cholesky_ex(A, *, upper=False, check_errors=False, out=None):
    return _e._linalg.linalg_cholesky_ex(A, upper=upper, check_errors=check_errors, out=out)


def qr(A, mode="reduced", *, out=None):
    return _e._linalg.linalg_qr(A, mode, out=out)


def svd(A, full_matrices=True, *, driver=None, out=None):
    return _e._linalg.linalg_svd(A, full_matrices, driver=driver, out=out)


def svdvals(A, *, driver=None, out=None):
    return _e._linalg.linalg_svdvals(A, driver=driver, out=out)


def eigh(A, UPLO="L", *, out=None):
    return _e._linalg.linalg_eigh(A, UPLO, out=out)


def eigvalsh(A, UPLO="L", *, out=None):
    return _e._linalg.linalg_eigvalsh(A, UPLO, out=out)


def lstsq(A, B, rcond=None, *, driver=None, out=None):
    return _e._linalg.linalg_lstsq(A, B, rcond, driver=driver, out=out)


def _num(x):
    return float(x.item()) if isinstance(x, _e.Tensor) else (None if x is None else float(x))


def _tolerance_overload(packet, A, tol, hermitian, atol, rtol, out):
    """pinv / matrix_rank's overloads (torch's): a positional tolerance (rcond / tol), Tensor or float,
    else atol/rtol, Tensor (either one) or float; out= picks the matching out overload."""
    if tol is not None:
        tensor = isinstance(tol, _e.Tensor)
        ov = (packet.rcond_tensor if hasattr(packet, "rcond_tensor") else packet.tol_tensor) if tensor else packet.default
        ovo = (packet.out_rcond_tensor if hasattr(packet, "out_rcond_tensor") else packet.out_tol_tensor) \
            if tensor else packet.out
        args, kw = (A, tol if tensor else _num(tol), hermitian), {}
    elif isinstance(atol, _e.Tensor) or isinstance(rtol, _e.Tensor):
        ov, ovo = packet.atol_rtol_tensor, packet.atol_rtol_tensor_out
        args, kw = (A,), dict(atol=atol, rtol=rtol, hermitian=hermitian)
    else:
        ov, ovo = packet.atol_rtol_float, packet.atol_rtol_float_out
        args, kw = (A,), dict(atol=_num(atol), rtol=_num(rtol), hermitian=hermitian)
    return ov(*args, **kw) if out is None else ovo(*args, **kw, out=out)


def pinv(A, rcond=None, hermitian=False, *, atol=None, rtol=None, out=None):
    return _tolerance_overload(_e.ops.aten.linalg_pinv, A, rcond, hermitian, atol, rtol, out)


def matrix_rank(A, tol=None, hermitian=False, *, atol=None, rtol=None, out=None):
    return _tolerance_overload(_e.ops.aten.linalg_matrix_rank, A, tol, hermitian, atol, rtol, out)


def matrix_power(A, n, *, out=None):
    return _e._linalg.linalg_matrix_power(A, n, out=out)


def eig(A, *, out=None):
    return _e._linalg.linalg_eig(A, out=out)


def eigvals(A, *, out=None):
    return _e._linalg.linalg_eigvals(A, out=out)


def matrix_exp(A):
    return _e._linalg.linalg_matrix_exp(A)


def matmul(input, other, *, out=None):
    return _e._linalg.linalg_matmul(input, other, out=out)


def vecdot(x, y, *, dim=-1, out=None):
    return _e._linalg.linalg_vecdot(x, y, dim=dim, out=out)


def vander(x, *, N=None):
    return _e._linalg.linalg_vander(x, N=N)


def diagonal(A, *, offset=0, dim1=-2, dim2=-1):
    return _e._linalg.linalg_diagonal(A, offset=offset, dim1=dim1, dim2=dim2)


def multi_dot(tensors, *, out=None):
    return _e._linalg.linalg_multi_dot(list(tensors), out=out)


def cond(A, p=None, *, out=None):
    return _e._linalg.linalg_cond(A, p, out=out)


def solve_triangular(A, B, *, upper, left=True, unitriangular=False, out=None):
    return _e._linalg.linalg_solve_triangular(A, B, upper=upper, left=left, unitriangular=unitriangular, out=out)


def householder_product(A, tau, *, out=None):
    return _e._linalg.linalg_householder_product(A, tau, out=out)


__all__ += ["householder_product"]


from ._lu import *  # noqa: E402,F401,F403  (lu_factor, lu, lu_solve, ldl_*, tensorinv, tensorsolve)
from ._lu import __all__ as _lu_all  # noqa: E402

__all__ += _lu_all


def __getattr__(name):   # torch names ember lacks say so (see ember/_core/unimplemented.py)
    return _missing_attribute(__name__, name)
