"""cpu kernels for the LU family, geqrf and vdot (LDL: cpu/linalg_ldl.py, which shares the helpers here).

LU is LAPACK's getrf (partial pivoting, first largest |.| wins, |re| + |im| for complex like izamax) as a numpy
loop over the columns, vectorised over the batch (`_getrf_numpy`, in cpu/linalg.py: inv/solve's error path uses
it too). When scipy is installed and a matrix is large, its LAPACK
wrappers (imported lazily) do the factorisation instead; `use_scipy(False)` forces the numpy path (tests compare
both). Pivots are LAPACK's: int32, 1-based row interchanges applied in order."""
import numpy as np

from .. import out_rules
from ..out_rules import write_outs
from ..meta import linalg_lu as M
from .linalg import _getrf_numpy, _like, _mT

_SCIPY = {"enabled": True, "mod": None}
SCIPY_MIN_N = 32          # below this the numpy loop is as fast as the per-matrix LAPACK calls


def use_scipy(flag):
    """Enable/disable the optional scipy LAPACK path; returns the previous setting."""
    prev = _SCIPY["enabled"]
    _SCIPY["enabled"] = bool(flag)
    return prev


def _lapack(n, min_n=None):
    """scipy.linalg.lapack when enabled, installed and n >= min_n (default SCIPY_MIN_N), else None."""
    if not _SCIPY["enabled"] or n < (SCIPY_MIN_N if min_n is None else min_n):
        return None
    if _SCIPY["mod"] is None:
        try:
            from scipy.linalg import lapack
        except ImportError:
            lapack = False
        _SCIPY["mod"] = lapack
    return _SCIPY["mod"] or None


def _into(results, outs, name, exact=True):
    """Copy results into out= tensors; linalg outs must have exactly the result dtype (torch), every out checked
    before any is written."""
    return write_outs(results, outs, out_rules.exact if exact else out_rules.castable)


def _batched(a):
    """(flat copy (B, m, n) in a's dtype, batch shape)."""
    m, n = a.shape[-2:]
    nb = int(np.prod(a.shape[:-2], dtype=np.int64))
    return np.array(a.reshape((nb, m, n)), copy=True), a.shape[:-2]


# ------------------------------------------------------------------ LU (getrf)
def _getrf(a):
    nb, m, n = a.shape
    lapack = _lapack(min(m, n))
    if lapack is None:
        return _getrf_numpy(a)
    getrf, = lapack.get_lapack_funcs(("getrf",), (a,))
    piv = np.zeros((nb, min(m, n)), np.int32)
    info = np.zeros(nb, np.int32)
    for i in range(nb):
        lu, p, inf = getrf(a[i])
        a[i], piv[i], info[i] = lu, p + 1, max(inf, 0)
    return piv, info


def lu_factor(A):
    """(LU, pivots, info) numpy arrays of A's batch."""
    a, batch = _batched(A._np)
    m, n = a.shape[-2:]
    if a.size == 0:
        k = min(m, n)
        return a.reshape(A._size), np.broadcast_to(np.arange(1, k + 1, dtype=np.int32), batch + (k,)), \
            np.zeros(batch, np.int32)
    with np.errstate(all="ignore"):             # nan/inf inputs propagate silently, as in LAPACK
        piv, info = _getrf(a)
    return a.reshape(A._size), piv.reshape(batch + piv.shape[-1:]), info.reshape(batch)


def _batch_prefix(batched, i):
    return f"(Batch element {i}): " if batched else ""


def check_lu_info(info, batched, api):
    """torch's error for a zero pivot of U (info > 0) when check_errors is set."""
    flat = np.asarray(info).reshape(-1)
    bad = np.flatnonzero(flat)
    if bad.size:
        i, k = int(bad[0]), int(flat[bad[0]])
        raise RuntimeError(f"{api}: {_batch_prefix(batched, i)}U[{k},{k}] is zero and using it on lu_solve would "
                           "result in a division by zero. If you still want to perform the factorization, consider "
                           "calling linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)")


def linalg_lu_factor_ex(A, *, pivot=True, check_errors=False):
    m_lu, m_piv, m_info = M.linalg_lu_factor_ex(A, pivot=pivot)
    lu, piv, info = lu_factor(A)
    if check_errors:
        check_lu_info(info, A.dim() > 2, "torch.linalg.lu_factor_ex")
    return _like(m_lu, lu), _like(m_piv, piv), _like(m_info, info)


def linalg_lu_factor_ex_out(A, *, pivot=True, check_errors=False, LU, pivots, info):
    return _into(linalg_lu_factor_ex(A, pivot=pivot, check_errors=check_errors), (LU, pivots, info),
                 "linalg_lu_factor_ex")


def permutation(piv, m):
    """Row order perm (batch, m) with P^T A = A[perm] from LAPACK's sequential 1-based interchanges."""
    batch, k = piv.shape[:-1], piv.shape[-1]
    flat = piv.reshape((int(np.prod(batch, dtype=np.int64)), k)).astype(np.int64) - 1
    perm = np.broadcast_to(np.arange(m), (flat.shape[0], m)).copy()
    rows = np.arange(flat.shape[0])
    for j in range(k):
        p = flat[:, j]
        tmp = perm[rows, j].copy()
        perm[rows, j] = perm[rows, p]
        perm[rows, p] = tmp
    return perm.reshape(batch + (m,))


def perm_matrix(perm, dtype):
    """P with A = P (P^T A): P[perm[i], i] = 1."""
    m = perm.shape[-1]
    P = np.zeros(perm.shape + (m,), dtype)
    np.put_along_axis(P, perm[..., :, None], 1, axis=-1)    # row i of P^T has its 1 at column perm[i]
    return _mT(P)


def unpack_lu(lu):
    m, n = lu.shape[-2:]
    k = min(m, n)
    L = np.tril(lu[..., :, :k], -1) + np.eye(m, k, dtype=lu.dtype)
    U = np.triu(lu[..., :k, :])
    return L, U


def linalg_lu(A, *, pivot=True):
    mP, mL, mU = M.linalg_lu(A, pivot=pivot)
    lu, piv, _ = lu_factor(A)
    L, U = unpack_lu(lu)
    P = perm_matrix(permutation(piv, lu.shape[-2]), lu.dtype)
    return _like(mP, P), _like(mL, L), _like(mU, U)


def linalg_lu_out(A, *, pivot=True, P, L, U):
    return _into(linalg_lu(A, pivot=pivot), (P, L, U), "linalg_lu")


def _check_pivots(piv, m):
    if piv.size and (piv.min() < 1 or piv.max() > m):
        raise RuntimeError("pivots passed to lu_unpack must be between 1 and LU.size(-2) inclusive."
                           "Did you properly pass the result of lu_factor?")


def lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True):
    mP, mL, mU = M.lu_unpack(LU_data, LU_pivots, unpack_data, unpack_pivots)
    lu = LU_data._np
    P = L = U = np.zeros(0, lu.dtype)
    if unpack_pivots:
        piv = LU_pivots._np
        _check_pivots(piv, lu.shape[-2])
        P = perm_matrix(permutation(piv, lu.shape[-2]), lu.dtype)
    if unpack_data:
        L, U = unpack_lu(lu)
    return _like(mP, P), _like(mL, L), _like(mU, U)


def lu_unpack_out(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True, *, P, L, U):
    return _into(lu_unpack(LU_data, LU_pivots, unpack_data, unpack_pivots), (P, L, U), "lu_unpack")


# ------------------------------------------------------------------ triangular substitution (trsm)
def _forward(T, b, unit, conj=False):
    """Solve op(T) x = b, op(T) lower triangular; T is lower (conj=False) or T^H of an upper one is passed
    as its lower transpose already. Row by row, vectorised over batch and right-hand sides; a zero on the
    diagonal gives inf/nan like LAPACK's trsm (no error)."""
    x = b.copy()
    n = T.shape[-1]
    for i in range(n):
        if i:
            x[..., i, :] -= (T[..., i:i + 1, :i] @ x[..., :i, :])[..., 0, :]
        if not unit:
            x[..., i, :] /= T[..., i, i, None]
    return x


def _backward(T, b, unit):
    x = b.copy()
    n = T.shape[-1]
    for i in reversed(range(n)):
        if i < n - 1:
            x[..., i, :] -= (T[..., i:i + 1, i + 1:] @ x[..., i + 1:, :])[..., 0, :]
        if not unit:
            x[..., i, :] /= T[..., i, i, None]
    return x


def _lu_solve_left(lu, perm, b, adjoint):
    """A X = B (or A^H X = B) with A = P L U given as packed LU and the row order perm."""
    L = np.tril(lu, -1)
    U = np.triu(lu)
    with np.errstate(all="ignore"):
        if not adjoint:
            pb = np.take_along_axis(b, perm[..., :, None], axis=-2)             # P^T B
            return _backward(U, _forward(L, pb, True), False)
        y = _backward(_mT(L).conj(), _forward(_mT(U).conj(), b, False), True)   # (L^H)^{-1} (U^H)^{-1} B
        x = np.empty_like(y)
        np.put_along_axis(x, perm[..., :, None], y, axis=-2)                   # P Y
        return x


def _getrs(lu, piv, b, adjoint, lapack):
    """scipy's LAPACK getrs, one matrix of the (flattened) batch at a time."""
    n, k = b.shape[-2:]
    lu, piv = lu.reshape((-1, n, n)), piv.reshape((-1, n)) - 1
    bf = b.reshape((-1, n, k))
    getrs, = lapack.get_lapack_funcs(("getrs",), (lu[:1], bf[:1]))
    x = np.empty_like(bf)
    for i in range(bf.shape[0]):
        x[i] = getrs(lu[i], piv[i], bf[i], trans=2 if adjoint else 0)[0]
    return x.reshape(b.shape)


def linalg_lu_solve(LU, pivots, B, *, left=True, adjoint=False):
    m = M.linalg_lu_solve(LU, pivots, B, left=left, adjoint=adjoint)
    if m.numel() == 0:
        return _like(m, np.zeros(m._size))
    batch = m._size[:-2]
    n = LU._size[-1]
    if pivots._np.size and (pivots._np.min() < 1 or pivots._np.max() > n):
        raise RuntimeError(f"linalg.lu_solve: pivots must be between 1 and LU.size(-1) = {n} inclusive (the "
                           "pivots returned by linalg.lu_factor)")
    lu = np.broadcast_to(LU._np, batch + (n, n))
    piv = np.broadcast_to(pivots._np, batch + (n,))
    b = np.broadcast_to(B._np, m._size).astype(m.dtype._np)
    if not left:        # X A = B  <=>  A^H X^H = B^H;  X A^H = B  <=>  A X^H = B^H
        b, adjoint = _mT(b).conj(), not adjoint
    lapack = _lapack(n)
    if lapack is not None:
        x = _getrs(lu, piv, b, adjoint, lapack)
    else:
        x = _lu_solve_left(lu, permutation(piv, n), b, adjoint)
    return _like(m, x if left else _mT(x).conj())


def linalg_lu_solve_out(LU, pivots, B, *, left=True, adjoint=False, out):
    return _into((linalg_lu_solve(LU, pivots, B, left=left, adjoint=adjoint),), (out,), "linalg_lu_solve")[0]


# ------------------------------------------------------------------ geqrf / vdot
def geqrf(self):
    ma, mtau = M.geqrf(self)
    a = self._np
    if a.size == 0:
        return _like(ma, a), _like(mtau, np.zeros(mtau._size))
    h, tau = np.linalg.qr(a, mode="raw")        # LAPACK geqrf; h is the transposed (Fortran-order) result
    return _like(ma, _mT(h)), _like(mtau, tau)


def geqrf_a(self, *, a, tau):
    M.check_geqrf_out(self, a, tau)
    return _into(geqrf(self), (a, tau), "geqrf", exact=False)


def vdot(self, other):
    m = M.vdot(self, other)
    a, b = self._np, other._np
    if a.dtype.kind == "f" and a.dtype.itemsize < 4 or a.dtype.kind == "V":
        a, b = a.astype(np.float32), b.astype(np.float32)
    return _like(m, np.vdot(a, b))


def vdot_out(self, other, *, out):
    r = vdot(self, other)
    M.check_vdot_out(r, out)
    return _into((r,), (out,), "vdot", exact=False)[0]
