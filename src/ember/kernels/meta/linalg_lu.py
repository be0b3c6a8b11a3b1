"""Meta functions for the LU / LDL family, geqrf and vdot (ATen's BatchLinearAlgebra.cpp checks and output
geometry). Factor outputs (LU, LD, geqrf's a) are batches of column-major matrices like LAPACK's; the
unpacked P, L, U of linalg.lu / lu_unpack and the solves' right-hand sides follow torch's strides."""
from ..._core import dtype as D
from ..._core.strides import contiguous_strides
from ..common import _tname, broadcast_shapes
from ..out_rules import linalg_castable
from .linalg import _outs as _outs_castable, _t, check_matrix, mstrides
from .linalg_matmul import dot_spec

_C_NAMES = {D.float32: "float", D.float64: "double", D.int32: "int", D.int64: "long int", D.float16: "c10::Half",
            D.complex64: "c10::complex<float>", D.complex128: "c10::complex<double>", D.bool_: "bool"}


def check_outs_exact(results, outs):
    """torch's linalg out= rule: every out tensor has exactly its result's dtype (checked before any write)."""
    for r, o in zip(results, outs):
        if o.dtype is not r.dtype:
            raise RuntimeError(f"Expected out tensor to have dtype {_C_NAMES.get(r.dtype, r.dtype.name)}, but got "
                               f"{_C_NAMES.get(o.dtype, o.dtype.name)} instead")


def _outs(results, outs, name):
    check_outs_exact(results, outs)
    return _outs_castable(results, outs, linalg_castable(name))


def check_vdot_out(result, out):
    if out.dtype is not result.dtype:
        raise RuntimeError(f"result dtype {_tname(out.dtype)} does not match input dtype {_tname(result.dtype)}")


def _floating(A, name):
    """LAPACK's four types only (torch: half/bfloat16/integers are not implemented)."""
    if A.dtype not in (D.float32, D.float64, D.complex64, D.complex128):
        raise NotImplementedError(f"\"{name}\" not implemented for '{_tname(A.dtype)}'")


# ------------------------------------------------------------------ LU
def lu_factor_check(A, pivot, name="torch.lu_factor"):
    if A.dim() < 2:
        raise RuntimeError(f"{name}: Expected tensor with 2 or more dimensions. Got size: {list(A._size)} instead")
    if not pivot:
        raise RuntimeError("linalg.lu_factor: LU without pivoting is not implemented on the CPU")
    _floating(A, "lu_cpu")
    m, n = A._size[-2:]
    return A._size[:-2], m, n, min(m, n)


def linalg_lu_factor_ex(A, *, pivot=True, check_errors=False):
    batch, m, n, k = lu_factor_check(A, pivot)
    return _t(A._size, A.dtype, mstrides(A._size)), _t(batch + (k,), D.int32), _t(batch, D.int32)


def linalg_lu_factor_ex_out(A, *, pivot=True, check_errors=False, LU, pivots, info):
    return _outs(linalg_lu_factor_ex(A, pivot=pivot), (LU, pivots, info), "linalg_lu_factor_ex")


def plu_shapes(batch, m, n, unpack_data=True, unpack_pivots=True):
    k = min(m, n)
    P = batch + (m, m) if unpack_pivots else (0,)
    L, U = (batch + (m, k), batch + (k, n)) if unpack_data else ((0,), (0,))
    return P, L, U


def _plu(shapes, dtype):
    return tuple(_t(s, dtype) for s in shapes)


def linalg_lu(A, *, pivot=True):
    batch, m, n, k = lu_factor_check(A, pivot, "linalg.lu")
    P, L, U = plu_shapes(batch, m, n)
    return _plu((P if pivot else (0,), L, U), A.dtype)


def linalg_lu_out(A, *, pivot=True, P, L, U):
    return _outs(linalg_lu(A, pivot=pivot), (P, L, U), "linalg_lu")


def lu_unpack_check(LU_data, LU_pivots, unpack_pivots=True):
    name = "torch.lu_unpack"
    if LU_data.dim() < 2:
        raise RuntimeError(f"{name}: Expected tensor with 2 or more dimensions. Got size: {list(LU_data._size)} "
                           "instead")
    if unpack_pivots and LU_pivots.dtype is not D.int32:
        raise RuntimeError(f"{name}: LU_pivots is expected to be a contiguous tensor of torch.int32 dtype.\n"
                           "Note: this function is intended to be used with the output produced by "
                           "torch.linalg.lu_factor")
    m, n = LU_data._size[-2:]
    k = min(m, n)
    want = LU_data._size[:-2] + (k,)
    if unpack_pivots and tuple(LU_pivots._size) != want:   # torch reads out of bounds here; ember refuses
        raise RuntimeError(f"{name}: Expected LU_pivots.shape to be LU_data.shape[:-2] + [min(m, n)] = "
                           f"{list(want)}, but got {list(LU_pivots._size)}")
    return LU_data._size[:-2], m, n


def lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True):
    batch, m, n = lu_unpack_check(LU_data, LU_pivots, unpack_pivots)
    return _plu(plu_shapes(batch, m, n, unpack_data, unpack_pivots), LU_data.dtype)


def lu_unpack_out(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True, *, P, L, U):
    return _outs(lu_unpack(LU_data, LU_pivots, unpack_data, unpack_pivots), (P, L, U), "lu_unpack")


def lu_solve_spec(LU, pivots, B, left=True):
    """Checks of linalg.lu_solve; returns the result's shape (batch broadcast of LU and B)."""
    name = "linalg.lu_solve"
    check_matrix(LU, "torch.linalg.lu_solve", arg="A")
    if B.dim() < 2:
        raise RuntimeError(f"{name}: The input tensor B must have at least 2 dimensions.")
    n = LU._size[-1]
    if (left and B._size[-2] != n) or (not left and B._size[-1] != n):
        raise RuntimeError(f"{name}: Incompatible shapes of A and B for the equation {'AX = B' if left else 'XA = B'}"
                           f" ({n}x{n} and {B._size[-2]}x{B._size[-1]})")
    if B.dtype is not LU.dtype:
        raise RuntimeError(f"{name}: Expected LU and B to have the same dtype, but found LU of type "
                           f"{_tname(LU.dtype)} and B of type {_tname(B.dtype)} instead")
    if pivots.dtype is not D.int32:
        raise RuntimeError(f"{name}: pivots should be a Tensor of scalar type torch.int32")
    if pivots.dim() == 0:
        raise IndexError("Dimension specified as -1 but tensor has no dimensions")
    if pivots._size[-1] != n:
        raise RuntimeError(f"{name}: Number of pivots per batch should be same as the dimension of the matrix")
    if tuple(pivots._size) != LU._size[:-1]:
        raise RuntimeError(f"{name}: Expected LU.shape[:-1] and pivots.shape to be the same, but got pivots with "
                           f"shape {list(pivots._size)} instead")
    return broadcast_shapes(LU._size[:-2], B._size[:-2]) + B._size[-2:]


def _solve_strides(shape, left):
    """torch: X is column-major for left solves, row-major for right ones (the transposed problem)."""
    return mstrides(shape) if left else contiguous_strides(shape)


def linalg_lu_solve(LU, pivots, B, *, left=True, adjoint=False):
    shape = lu_solve_spec(LU, pivots, B, left)
    return _t(shape, LU.dtype, _solve_strides(shape, left))


def linalg_lu_solve_out(LU, pivots, B, *, left=True, adjoint=False, out):
    return _outs((linalg_lu_solve(LU, pivots, B, left=left),), (out,), "linalg_lu_solve")[0]


# ------------------------------------------------------------------ LDL
def linalg_ldl_factor_ex(self, *, hermitian=False, check_errors=False):
    batch = check_matrix(self, "torch.linalg.ldl_factor_ex")
    _floating(self, "ldl_factor_kernel_cpu")
    n = self._size[-1]
    return _t(self._size, self.dtype, mstrides(self._size)), _t(batch + (n,), D.int32), _t(batch, D.int32)


def linalg_ldl_factor_ex_out(self, *, hermitian=False, check_errors=False, LD, pivots, info):
    return _outs(linalg_ldl_factor_ex(self, hermitian=hermitian), (LD, pivots, info), "linalg_ldl_factor_ex")


def ldl_solve_spec(LD, pivots, B):
    name = "torch.linalg.ldl_solve"
    check_matrix(LD, name, arg="LD")
    if B.dim() < 2:
        d = B.dim()
        raise IndexError(f"Dimension out of range (expected to be in range of [{-max(d, 1)}, {max(d, 1) - 1}], "
                         "but got -2)")
    if pivots.dtype is not D.int32 and pivots.dtype is not D.int64:
        raise RuntimeError(f"{name}: Expected pivots to be integers. Got {_tname(pivots.dtype)}")
    if tuple(pivots._size) != LD._size[:-1]:
        raise RuntimeError(f"{name}: Expected LD.shape[:-1] and pivots.shape to be the same, but got pivots with "
                           f"shape {list(pivots._size)} instead")
    if B.dtype is not LD.dtype:
        raise RuntimeError(f"Expected b and A to have the same dtype, but found b of type {_tname(B.dtype)} and A "
                           f"of type {_tname(LD.dtype)} instead.")
    n = LD._size[-1]
    if B._size[-2] != n:
        raise RuntimeError(f"Incompatible matrix sizes for {name}: each A matrix is {n} by {n} but each b matrix is "
                           f"{B._size[-2]} by {B._size[-1]}")
    return broadcast_shapes(LD._size[:-2], B._size[:-2]) + B._size[-2:]


def linalg_ldl_solve(LD, pivots, B, *, hermitian=False):
    shape = ldl_solve_spec(LD, pivots, B)
    return _t(shape, LD.dtype, mstrides(shape))


def linalg_ldl_solve_out(LD, pivots, B, *, hermitian=False, out):
    return _outs((linalg_ldl_solve(LD, pivots, B),), (out,), "linalg_ldl_solve")[0]


# ------------------------------------------------------------------ geqrf / vdot
def geqrf(self):
    if self.dim() < 2:
        raise RuntimeError("torch.geqrf: input must have at least 2 dimensions.")
    _floating(self, "geqrf_cpu")
    m, n = self._size[-2:]
    return _t(self._size, self.dtype, mstrides(self._size)), _t(self._size[:-2] + (min(m, n),), self.dtype)


def check_geqrf_out(self, a, tau):
    from ..._core.promotion import can_cast
    for name, o in (("a", a), ("tau", tau)):
        if not can_cast(self.dtype, o.dtype):
            raise RuntimeError(f"torch.geqrf: Expected {name} to be safely castable from {_tname(self.dtype)} dtype, "
                               f"but got {name} with dtype {_tname(o.dtype)}")


def geqrf_a(self, *, a, tau):
    check_geqrf_out(self, a, tau)
    return _outs_castable(geqrf(self), (a, tau), linalg_castable("torch.geqrf", ("a", "tau")))


def vdot(self, other):
    shape, dt = dot_spec(self, other)
    return _t(shape, dt)


def vdot_out(self, other, *, out):
    check_vdot_out(vdot(self, other), out)
    return _outs_castable((vdot(self, other),), (out,), linalg_castable("vdot"))[0]
