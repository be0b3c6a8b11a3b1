"""CompositeImplicitAutograd members of the LU family (torch's BatchLinearAlgebra.cpp / LinearAlgebra.cpp /
TensorCompare.cpp): linalg.lu_factor and ldl_factor (the _ex kernels plus the error check), the legacy
_lu_with_info and lu_solve, isclose / allclose, and linalg.tensorinv / tensorsolve as reshapes around
inv / solve. Written in ember ops, so autograd comes from the ops they call."""
import math
from ..common import warn_user


from ..out_rules import exact, linalg_castable, write_outs
from ..._ops import ops

aten = ops.aten


def _to_outs(rs, outs, name, rule=exact):
    """Copy results into out= tensors after torch's check (`rule`: linalg outs have exactly the result dtype,
    unless the op checks castability), every out checked before any is written."""
    return write_outs(rs, outs, rule, dispatch=True)


def _has_data(t):
    return t.device.type != "meta"


# ------------------------------------------------------------------ LU / LDL front ends
def linalg_lu_factor(A, *, pivot=True):
    from ..cpu.linalg_lu import check_lu_info
    LU, piv, info = aten.linalg_lu_factor_ex(A, pivot=pivot)
    if _has_data(info):
        check_lu_info(info._np, A.dim() > 2, "torch.linalg.lu_factor")
    return LU, piv


def linalg_lu_factor_out(A, *, pivot=True, LU, pivots):
    return _to_outs(linalg_lu_factor(A, pivot=pivot), (LU, pivots), "linalg_lu_factor")


def _lu_with_info(self, pivot=True, check_errors=True):
    # torch ignores check_errors here (a singular input returns its info, torch.lu(get_infos=False) drops it)
    warn_user("torch.lu is deprecated in favor of torch.linalg.lu_factor / torch.linalg.lu_factor_ex and will "
              "be removed in a future PyTorch release.")
    return tuple(aten.linalg_lu_factor_ex(self, pivot=pivot))


def lu_solve(self, LU_data, LU_pivots):
    warn_user("torch.lu_solve is deprecated in favor of torch.linalg.lu_solve and will be removed in a future "
              "PyTorch release.\nNote that torch.linalg.lu_solve has its arguments reversed.")
    return aten.linalg_lu_solve(LU_data, LU_pivots, self)


def lu_solve_out(self, LU_data, LU_pivots, *, out):
    return _to_outs((lu_solve(self, LU_data, LU_pivots),), (out,), "lu_solve")[0]


def linalg_ldl_factor(self, *, hermitian=False):
    from ..cpu.linalg_ldl import check_ldl_info
    LD, piv, info = aten.linalg_ldl_factor_ex(self, hermitian=hermitian)
    if _has_data(info):
        check_ldl_info(info._np, self.dim() > 2, "torch.linalg.ldl_factor")
    return LD, piv


def linalg_ldl_factor_out(self, *, hermitian=False, LD, pivots):
    return _to_outs(linalg_ldl_factor(self, hermitian=hermitian), (LD, pivots), "linalg_ldl_factor")


# ------------------------------------------------------------------ closeness


# ------------------------------------------------------------------ tensorinv / tensorsolve
def linalg_tensorinv(self, ind=2):
    from ..meta.linalg import LinAlgError
    if ind <= 0:
        raise RuntimeError(f"Expected a strictly positive integer for 'ind', but got {ind}")
    if ind > self.dim():
        raise RuntimeError(f"linalg.tensorinv: 'ind' ({ind}) must not exceed the number of dimensions of self "
                           f"({self.dim()})")
    head, tail = tuple(self.shape[:ind]), tuple(self.shape[ind:])
    p, q = math.prod(head), math.prod(tail)
    if p != q:
        raise RuntimeError(f"Expected self to satisfy the requirement prod(self.shape[ind:]) == "
                           f"prod(self.shape[:ind]), but got {q} != {p}")
    inv, info = aten.linalg_inv_ex(self.reshape(p, q))
    if _has_data(info) and int(info.item()):
        raise LinAlgError(f"inv: The diagonal element {int(info.item())} is zero, the inversion could not be "
                          "completed because the input matrix is singular.")
    return inv.reshape(tail + head)


def linalg_tensorinv_out(self, ind=2, *, out):
    return _to_outs((linalg_tensorinv(self, ind),), (out,), "linalg_tensorinv", linalg_castable("tensorinv"))[0]


def linalg_tensorsolve(self, other, dims=None):
    a = self
    nd = self.dim()
    if dims is not None:
        dims = list(dims)
        a = aten.movedim(self, dims, list(range(nd - len(dims), nd)))
    result_shape = tuple(a.shape[other.dim():])
    rp, op = math.prod(result_shape), math.prod(other.shape)
    if rp != op:
        raise RuntimeError(f"Expected self to satisfy the requirement prod(self.shape[other.ndim:]) == "
                           f"prod(self.shape[:other.ndim]), but got {rp} != {op}")
    x = aten.linalg_solve(a.reshape(rp, rp), other.flatten())
    return x.reshape(result_shape)


def linalg_tensorsolve_out(self, other, dims=None, *, out):
    return _to_outs((linalg_tensorsolve(self, other, dims),), (out,), "linalg_tensorsolve", linalg_castable("tensorsolve"))[0]
