"""torch.linalg's LU / LDL / tensor-inverse functions (and the legacy torch.lu) over the aten ops of
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


def legacy_lu(A, pivot=True, get_infos=False, out=None):
    """torch.lu: (LU, pivots) or, with get_infos, (LU, pivots, infos); never raises on singular inputs."""
    LU, piv, info = _e._lu_with_info(A, pivot=pivot, check_errors=not get_infos)
    res = (LU, piv, info) if get_infos else (LU, piv)
    if out is None:
        return res
    if len(out) != len(res):
        raise TypeError(f"expected tuple of {len(res)} elements but got {len(out)}")
    for o, r in zip(out, res):
        o.resize_(r.shape).copy_(r)
    return tuple(out)
