"""torch.linalg's LU / LDL / tensor-inverse functions over the aten ops of
native/linalg_lu.yaml."""
import ember as _e

__all__ = ["lu_factor", "lu_factor_ex", "lu", "lu_solve", "ldl_factor", "ldl_factor_ex", "ldl_solve", "tensorinv",
           "tensorsolve"]


def lu_factor(A, *, pivot=True, out=None):
    return _e._linalg.linalg_lu_factor(A, pivot=pivot, out=out)


def lu_factor_ex(A, *, pivot=True, check_errors=False, out=None):
    return _e._linalg.linalg_lu_factor_ex(A, pivot=pivot, check_errors=check_errors, out=out)


def lu(A, *, pivot=True, out=None):
    return _e._linalg.linalg_lu(A, pivot=pivot, out=out)


def lu_solve(LU, pivots, B, *, left=True, adjoint=False, out=None):
    return _e._linalg.linalg_lu_solve(LU, pivots, B, left=left, adjoint=adjoint, out=out)


def ldl_factor(A, *, hermitian=False, out=None):
    return _e._linalg.linalg_ldl_factor(A, hermitian=hermitian, out=out)


def ldl_factor_ex(A, *, hermitian=False, check_errors=False, out=None):
    return _e._linalg.linalg_ldl_factor_ex(A, hermitian=hermitian, check_errors=check_errors, out=out)


def ldl_solve(LD, pivots, B, *, hermitian=False, out=None):
    return _e._linalg.linalg_ldl_solve(LD, pivots, B, hermitian=hermitian, out=out)


def tensorinv(A, ind=2, *, out=None):
    return _e._linalg.linalg_tensorinv(A, ind, out=out)


def tensorsolve(A, B, dims=None, *, out=None):
    return _e._linalg.linalg_tensorsolve(A, B, dims, out=out)
