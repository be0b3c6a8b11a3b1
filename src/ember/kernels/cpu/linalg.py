"""cpu kernels for ember.linalg: numpy.linalg's batched LAPACK calls (inv, det, slogdet, solve, cholesky, qr,
svd, eigh) and pinv/rank/lstsq from one batched SVD. Singular or non-positive-definite inputs are located
(which batch element, which pivot/minor) only on the error path, for torch's LinAlgError message.

Threads: these LAPACK calls run on OpenBLAS's thread count, which is one once ember has split a gemm over its own
pool (runtime/blas.py `hold_single`); they are deliberately not wrapped in `blas.native_threads()`. Measured in
session 13 on the 2-core EPYC shared with other jobs (load 8-11), float32, OpenBLAS at 1 -> 2 threads, ms, min
(median) of 5 alternated calls: n=512 solve 101 (113) -> 740 (812), inv 85 (104) -> 97 (560), cholesky 32 (42)
-> 516 (792), qr 130 (158) -> 704 (3062), eigh 227 (229) -> 650 (1085); n=1024 solve 393 -> 733, cholesky 117 ->
282, qr 527 -> 3588, eigh 906 -> 7270. OpenBLAS's threads wait by spinning and yielding, so when the second core
is busy they lose several times what they can gain, and its threaded LAPACK gives other bits than one thread
(solve, inv, cholesky, eigh, svd from n=128-256), so held results also do not depend on the thread count. A batch
of small matrices was never threaded by OpenBLAS (each matrix is below its thresholds) nor by torch's LAPACK loop.
A quiet machine was not available to measure the gain threads would bring there (torch's MKL does thread these).
"""
import numpy as np

from ..common import empty_tensor
from ..out_rules import LSTSQ, SCALAR_TYPE, exact, linalg_castable, write_outs
from ..meta import linalg as M
from ..meta.linalg import LinAlgError
from ..meta import linalg as M_linalg
from .shape import _copy_out
from .shape import _wrap as _wrap_shape


def _wrap(arr, dtype, strides=None):
    arr = np.asarray(arr)
    out = empty_tensor(arr.shape, dtype, strides=strides)
    if arr.size:
        out._np[...] = arr
    return out


def _like(meta, arr):
    """A cpu tensor with the meta result's shape/dtype/strides holding arr."""
    return _wrap(np.broadcast_to(np.asarray(arr).astype(meta.dtype._np, copy=False), meta._size), meta.dtype,
                 meta.stride())


def _into(results, outs, rule, order=None):
    return write_outs(results, outs, rule, order)


def _mT(a):
    return np.swapaxes(a, -1, -2)


def _batch_prefix(A, i):
    return f"(Batch element {i}): " if A.dim() > 2 else ""


# ------------------------------------------------------------------ LAPACK's getrf as a numpy loop
# (cpu/linalg_lu.py's LU and LDL factorisations build on it; here, the error path finds singular pivots with it)
def _mag(x):
    """LAPACK's pivot magnitude: |x| for reals, |re| + |im| (cabs1) for complex."""
    return np.abs(x.real) + np.abs(x.imag) if x.dtype.kind == "c" else np.abs(x)


def iamax(x):
    """LAPACK's i?amax along the last axis: the first largest magnitude (cabs1 for complex); a nan is never
    chosen, except that a nan first element wins (nothing compares greater than it)."""
    mag = _mag(x)
    nan = np.isnan(mag)
    p = np.argmax(np.where(nan, -np.inf, mag), axis=-1)
    return np.where(nan[..., 0], 0, p)


def _getrf_numpy(a):
    """In-place partial-pivoting LU of a (B, m, n) array; returns (pivots (B, k) 1-based, info (B,))."""
    nb, m, n = a.shape
    k = min(m, n)
    piv = np.zeros((nb, k), np.int32)
    info = np.zeros(nb, np.int32)
    rows = np.arange(nb)
    for j in range(k):
        p = iamax(a[:, j:, j]) + j
        piv[:, j] = p + 1
        swap = p != j
        if swap.any():
            r, pr = rows[swap], p[swap]
            tmp = a[r, j].copy()
            a[r, j] = a[r, pr]
            a[r, pr] = tmp
        d = a[:, j, j]
        zero = d == 0
        info[(info == 0) & zero] = j + 1
        if j + 1 < m:
            a[:, j + 1:, j] *= 1 / np.where(zero, 1, d)[:, None]    # LAPACK scales by the reciprocal; a zero
                                                                    # pivot has a zero column below it
            if j + 1 < n:
                a[:, j + 1:, j + 1:] -= a[:, j + 1:, j, None] * a[:, j, None, j + 1:]
    return piv, info


def lu_info(a):
    """LAPACK getrf's info per matrix of a batch: the 1-based index of the first exactly-zero pivot of partial
    pivoting LU, 0 when none (used on the error path only); the LU loop of linalg_lu, run in double."""
    n = a.shape[-1]
    a = np.array(a.reshape((-1, n, n)), dtype=np.float64 if a.dtype.kind != "c" else np.complex128)
    with np.errstate(all="ignore"):
        return _getrf_numpy(a)[1].astype(np.int64)


def _raise_first(A, info, msg):
    bad = np.flatnonzero(info)
    if bad.size:
        i = int(bad[0])
        raise LinAlgError(msg(_batch_prefix(A, i), int(info[i])))


# ------------------------------------------------------------------ inverse / determinants / solve
def linalg_inv_ex(A, *, check_errors=False):
    m_inv, m_info = M.linalg_inv_ex(A)
    a = A._np
    if a.size == 0:
        return _like(m_inv, a), _like(m_info, 0)
    try:
        inv, info = np.linalg.inv(a), np.zeros(m_info._size, np.int32)
    except np.linalg.LinAlgError:
        info = lu_info(a).reshape(m_info._size)
        if check_errors:
            _raise_first(A, info.reshape(-1), lambda p, k: f"linalg.inv: {p}The diagonal element {k} is zero, the "
                         "inversion could not be completed because the input matrix is singular.")
        with np.errstate(all="ignore"):
            inv = np.linalg.pinv(a) * np.where(info[..., None, None] > 0, np.inf, 1)
    return _like(m_inv, inv), _like(m_info, info)


def linalg_inv_ex_inverse(A, *, check_errors=False, inverse, info):
    return _into(linalg_inv_ex(A, check_errors=check_errors), (inverse, info), exact)


def linalg_det(A):
    m = M.linalg_det(A)
    return _like(m, np.linalg.det(A._np) if A._np.size else np.ones(m._size))


def linalg_det_out(A, *, out):
    return _into((linalg_det(A),), (out,), exact)[0]


def linalg_slogdet(A):
    ms, ml = M.linalg_slogdet(A)
    if A._np.size == 0:
        return _like(ms, 1), _like(ml, 0)
    s, l = np.linalg.slogdet(A._np)
    return _like(ms, s), _like(ml, l)


def linalg_slogdet_out(A, *, sign, logabsdet):
    return _into(linalg_slogdet(A), (sign, logabsdet), exact)


def linalg_solve_ex(A, B, *, left=True, check_errors=False):
    vector, batch, shape = M.solve_spec(A, B, left)
    m_res, m_info = M.linalg_solve_ex(A, B, left=left)
    a, b = A._np, (B._np[..., None] if vector else B._np)
    if not left:
        a, b = _mT(a), _mT(b)
    n = a.shape[-1]
    a = np.broadcast_to(a, batch + (n, n))
    b = np.broadcast_to(b, batch + b.shape[-2:])
    info = np.zeros(batch, np.int32)
    if a.size == 0 or b.size == 0:
        return _like(m_res, np.zeros(m_res._size)), _like(m_info, info)
    try:
        x = np.linalg.solve(a, b)
    except np.linalg.LinAlgError:
        info = lu_info(a).reshape(batch)
        if check_errors:
            _raise_first(A if A.dim() > 2 or B.dim() <= 2 else B, info.reshape(-1),
                         lambda p, k: f"torch.linalg.solve: {p}The solver failed because the input matrix is singular.")
        with np.errstate(all="ignore"):
            x = np.linalg.pinv(a) @ b * np.where(info[..., None, None] > 0, np.nan, 1)
    if not left:
        x = _mT(x)
    return _like(m_res, x[..., 0] if vector else x), _like(m_info, info)


def linalg_solve_ex_out(A, B, *, left=True, check_errors=False, result, info):
    return _into(linalg_solve_ex(A, B, left=left, check_errors=check_errors), (result, info), exact)


# ------------------------------------------------------------------ factorizations
def _chol_minor(a):
    """The order of the first leading minor that is not positive-definite (error path)."""
    for k in range(1, a.shape[-1] + 1):
        try:
            np.linalg.cholesky(a[:k, :k])
        except np.linalg.LinAlgError:
            return k
    return 0


def cholesky_ex(A, upper, check_errors, api):
    mL, m_info = M.linalg_cholesky_ex(A)
    a = _mT(A._np) if upper else A._np
    info = np.zeros(m_info._size, np.int32)
    if a.size == 0:
        return _like(mL, a), _like(m_info, info)
    try:
        L = np.linalg.cholesky(a)
    except np.linalg.LinAlgError:
        flat = a.reshape((-1,) + a.shape[-2:])
        info = np.array([_chol_minor(x) for x in flat], np.int32).reshape(m_info._size)
        if check_errors:
            _raise_first(A, info.reshape(-1), lambda p, k: f"{api}: {p}The factorization could not be completed because "
                         f"the input is not positive-definite (the leading minor of order {k} is not positive-definite).")
        ok = np.where((info == 0)[..., None, None], a, np.eye(a.shape[-1], dtype=a.dtype))
        L = np.where((info == 0)[..., None, None], np.linalg.cholesky(ok), np.nan)
    return _like(mL, _mT(L).conj() if upper else L), _like(m_info, info)


def linalg_cholesky_ex(A, *, upper=False, check_errors=False):
    return cholesky_ex(A, upper, check_errors, "linalg.cholesky")


def linalg_cholesky_ex_L(A, *, upper=False, check_errors=False, L, info):
    return _into(linalg_cholesky_ex(A, upper=upper, check_errors=check_errors), (L, info), exact)


def linalg_qr(A, mode="reduced"):
    mq, mr = M.linalg_qr(A, mode)
    if A._np.size == 0:
        q = np.broadcast_to(np.eye(*mq._size[-2:]), mq._size) if mode == "complete" else np.zeros(mq._size)
        return _like(mq, q), _like(mr, np.zeros(mr._size))
    if mode == "r":
        return _like(mq, np.zeros(0)), _like(mr, np.linalg.qr(A._np, mode="r"))
    q, r = np.linalg.qr(A._np, mode=mode)
    return _like(mq, q), _like(mr, r)


def linalg_qr_out(A, mode="reduced", *, Q, R):
    return _into(linalg_qr(A, mode), (Q, R), exact)


def _linalg_svd(A, full_matrices=False, compute_uv=True, *, driver=None):
    mu, ms, mvh = M._linalg_svd(A, full_matrices, compute_uv, driver=driver)
    a = A._np
    if a.size == 0:
        eye = lambda m: np.broadcast_to(np.eye(*m._size[-2:]), m._size) if m._size != (0,) else np.zeros(0)  # noqa: E731
        return _like(mu, eye(mu)), _like(ms, np.zeros(ms._size)), _like(mvh, eye(mvh))
    if not compute_uv:
        return _like(mu, np.zeros(0)), _like(ms, np.linalg.svd(a, compute_uv=False)), _like(mvh, np.zeros(0))
    u, s, vh = np.linalg.svd(a, full_matrices=full_matrices)
    return _like(mu, u), _like(ms, s), _like(mvh, vh)


def _linalg_svd_U(A, full_matrices=False, compute_uv=True, *, driver=None, U, S, Vh):
    return _into(_linalg_svd(A, full_matrices, compute_uv, driver=driver), (U, S, Vh), exact, order=(0, 2, 1))


def _linalg_eigh(A, UPLO="L", compute_v=True):
    mw, mv = M._linalg_eigh(A, UPLO, compute_v)
    if A._np.size == 0:
        return _like(mw, np.zeros(mw._size)), _like(mv, np.zeros(mv._size))
    if not compute_v:
        return _like(mw, np.linalg.eigvalsh(A._np, UPLO=UPLO)), _like(mv, np.zeros(0))
    w, v = np.linalg.eigh(A._np, UPLO=UPLO)
    return _like(mw, w), _like(mv, v)


def _linalg_eigh_eigenvalues(A, UPLO="L", compute_v=True, *, eigenvalues, eigenvectors):
    return _into(_linalg_eigh(A, UPLO, compute_v), (eigenvalues, eigenvectors), exact, order=(1, 0))


# ------------------------------------------------------------------ least squares / pinv / rank
def _arr(x):
    """A float, None, or per-batch tensor tolerance as a numpy value."""
    return x._np if hasattr(x, "_np") else x


def _svd_tol(s, m, n, atol, rtol, dtype):
    """torch's pinv/matrix_rank threshold max(atol, rtol * largest singular value); atol/rtol may be per-batch
    arrays. Without rtol, rtol is 0 where atol > 0, else eps * max(m, n)."""
    default = np.finfo(dtype).eps * max(m, n)
    atol, rtol = _arr(atol), _arr(rtol)
    if rtol is None:
        rtol = default if atol is None else np.where(np.asarray(atol) > 0, 0.0, default)
    smax = s.max(-1, keepdims=True) if s.shape[-1] else np.zeros(s.shape[:-1] + (1,))
    a = 0.0 if atol is None else np.asarray(atol, np.float64)[..., None]
    return np.maximum(a, np.asarray(rtol, np.float64)[..., None] * smax)


def _pinv(a, atol, rtol, hermitian):
    m, n = a.shape[-2:]
    if hermitian:
        w, v = np.linalg.eigh(a)
        s = np.abs(w)
        tol = _svd_tol(s, m, n, atol, rtol, a.dtype)
        winv = np.where(s > tol, 1 / np.where(w == 0, 1, w), 0)
        return (v * winv[..., None, :]) @ _mT(v).conj()
    u, s, vh = np.linalg.svd(a, full_matrices=False)
    tol = _svd_tol(s, m, n, atol, rtol, a.dtype)
    sinv = np.where(s > tol, 1 / np.where(s == 0, 1, s), 0)
    return (_mT(vh).conj() * sinv[..., None, :]) @ _mT(u).conj()


def linalg_pinv_atol_rtol_float(self, *, atol=None, rtol=None, hermitian=False):
    m = M.linalg_pinv_atol_rtol_float(self, atol=atol, rtol=rtol, hermitian=hermitian)
    a = self._np
    return _like(m, np.zeros(m._size) if a.size == 0 else _pinv(a, atol, rtol, hermitian))


linalg_pinv_atol_rtol_tensor = linalg_pinv_atol_rtol_float


def linalg_matrix_rank_atol_rtol_float(self, *, atol=None, rtol=None, hermitian=False):
    m = M.linalg_matrix_rank_atol_rtol_float(self, atol=atol, rtol=rtol, hermitian=hermitian)
    a = self._np
    if a.size == 0:
        return _like(m, 0)
    s = np.abs(np.linalg.eigvalsh(a)) if hermitian else np.linalg.svd(a, compute_uv=False)
    tol = _svd_tol(s, a.shape[-2], a.shape[-1], atol, rtol, a.dtype)
    return _like(m, (s > tol).sum(-1))


def linalg_lstsq(self, b, rcond=None, *, driver=None):
    ms, mres, mrank, msv = M.linalg_lstsq(self, b, rcond, driver=driver)
    vector, driver, _, res_shape, rank_shape, sv_shape = M.lstsq_shapes(self, b, driver)
    a, bb = self._np, (b._np[..., None] if vector else b._np)
    m, n = a.shape[-2:]
    batch = ms._size[:-1] if vector else ms._size[:-2]
    a = np.broadcast_to(a, batch + (m, n))
    bb = np.broadcast_to(bb, batch + bb.shape[-2:])
    eps = np.finfo(a.dtype).eps
    rtol = eps * max(m, n) if rcond is None or rcond < 0 else rcond
    if a.size == 0:
        x = np.zeros(batch + (n, bb.shape[-1]), a.dtype)
        s = np.zeros(batch + (min(m, n),))
    else:
        s = np.linalg.svd(a, compute_uv=False)
        x = _pinv(a, None, rtol, False) @ bb
    rank = (s > _svd_tol(s, m, n, None, rtol, a.dtype)).sum(-1) if s.shape[-1] else np.zeros(batch, np.int64)
    res = np.zeros(0)
    if res_shape != (0,):
        full = bool(np.all(rank == n))
        if full:
            r = (np.abs(a @ x - bb) ** 2).sum(-2)
            res = r[..., 0] if vector else r
        else:
            res_shape = (0,)
    sol = x[..., 0] if vector else x
    mres_t = mres if res_shape != (0,) else M._t((0,), mres.dtype)
    return (_like(ms, sol), _like(mres_t, res), _like(mrank, rank if rank_shape != (0,) else np.zeros(0)),
            _like(msv, s if sv_shape != (0,) else np.zeros(0)))


def linalg_lstsq_out(self, b, rcond=None, *, driver=None, solution, residuals, rank, singular_values):
    return _into(linalg_lstsq(self, b, rcond, driver=driver), (solution, residuals, rank, singular_values),
                 LSTSQ)


# ------------------------------------------------------------------ eig / matrix_exp / cholesky solves
def linalg_eig(self):
    mw, mv = M.linalg_eig(self)
    if self._np.size == 0:
        return _like(mw, np.zeros(mw._size)), _like(mv, np.zeros(mv._size))
    w, v = np.linalg.eig(self._np)
    return _like(mw, w), _like(mv, v)


def linalg_eig_out(self, *, eigenvalues, eigenvectors):
    return _into(linalg_eig(self), (eigenvalues, eigenvectors), linalg_castable("torch.linalg.eig", ("eigenvalues", "eigenvectors")))


_PADE13 = (64764752532480000., 32382376266240000., 7771770303897600., 1187353796428800., 129060195264000.,
           10559470521600., 670442572800., 33522128640., 1323241920., 40840800., 960960., 16380., 182., 1.)


def _expm(a):
    """Batched matrix exponential: scaling and squaring with the degree-13 Pade approximant (Higham 2005)."""
    n = a.shape[-1]
    norm = np.abs(a).sum(-2).max(-1)
    s = np.maximum(0, np.ceil(np.log2(np.maximum(norm, 1e-300) / 5.371920351148152))).astype(np.int64)
    a = a / (2.0 ** s)[..., None, None]
    b = _PADE13
    eye = np.broadcast_to(np.eye(n, dtype=a.dtype), a.shape)
    a2 = a @ a
    a4 = a2 @ a2
    a6 = a4 @ a2
    u = a @ (a6 @ (b[13] * a6 + b[11] * a4 + b[9] * a2) + b[7] * a6 + b[5] * a4 + b[3] * a2 + b[1] * eye)
    v = a6 @ (b[12] * a6 + b[10] * a4 + b[8] * a2) + b[6] * a6 + b[4] * a4 + b[2] * a2 + b[0] * eye
    r = np.linalg.solve(v - u, v + u)
    for k in range(int(s.max()) if s.size else 0):
        r = np.where((k < s)[..., None, None], r @ r, r)
    return r


def linalg_matrix_exp(self):
    m = M.linalg_matrix_exp(self)
    a = self._np
    if a.size == 0:
        return _like(m, a)
    return _like(m, _expm(a.astype(np.float64 if a.dtype.kind == "f" else np.complex128)))


def _chol_factor(L, upper):
    """A = L L^H from the lower factor (or U^H U from the upper one)."""
    return (_mT(L).conj() @ L) if upper else (L @ _mT(L).conj())


def cholesky_solve(self, input2, upper=False):
    m = M.cholesky_solve(self, input2, upper)
    if m.numel() == 0:
        return _like(m, np.zeros(m._size))
    a = _chol_factor(input2._np, upper)
    batch = m._size[:-2]
    x = np.linalg.solve(np.broadcast_to(a, batch + a.shape[-2:]), np.broadcast_to(self._np, m._size))
    return _like(m, x)


def cholesky_solve_out(self, input2, upper=False, *, out):
    return _into((cholesky_solve(self, input2, upper),), (out,), linalg_castable("cholesky_solve"))[0]


def cholesky_inverse(self, upper=False):
    m = M.cholesky_inverse(self, upper)
    if m.numel() == 0:
        return _like(m, np.zeros(m._size))
    return _like(m, np.linalg.inv(_chol_factor(self._np, upper)))


def cholesky_inverse_out(self, upper=False, *, out):
    return _into((cholesky_inverse(self, upper),), (out,), linalg_castable("cholesky_inverse"))[0]


linalg_matrix_rank_atol_rtol_tensor = linalg_matrix_rank_atol_rtol_float


# ------------------------------------------------------------------ triangular solves
def linalg_solve_triangular(self, B, *, upper, left=True, unitriangular=False):
    m = M.linalg_solve_triangular(self, B, upper=upper, left=left)
    if m.numel() == 0:
        return _like(m, np.zeros(m._size))
    a = np.triu(self._np) if upper else np.tril(self._np)
    if unitriangular:
        a = a.copy()
        np.einsum("...ii->...i", a)[...] = 1
    b = B._np
    if not left:
        a, b = _mT(a), _mT(b)
    a = np.broadcast_to(a.astype(m.dtype._np), m._size[:-2] + a.shape[-2:])
    b = np.broadcast_to(b.astype(m.dtype._np), m._size[:-2] + b.shape[-2:])
    with np.errstate(all="ignore"):
        try:
            x = np.linalg.solve(a, b)
        except np.linalg.LinAlgError:            # a zero on the diagonal: torch returns inf/nan, no error
            x = np.full(b.shape, np.nan)
    return _like(m, _mT(x) if not left else x)


def linalg_solve_triangular_out(self, B, *, upper, left=True, unitriangular=False, out):
    r = linalg_solve_triangular(self, B, upper=upper, left=left, unitriangular=unitriangular)
    return _into((r,), (out,), SCALAR_TYPE)[0]


def trace(self):
    dt = M_linalg.trace_dtype(self)
    return _wrap_shape(np.trace(self._np, dtype=dt._np), dt)


def linalg_cross(self, other, *, dim=-1):
    d, shape, dt = M_linalg.cross_spec(self, other, dim)
    a = np.broadcast_to(self._np.astype(dt._np, copy=False), shape)
    b = np.broadcast_to(other._np.astype(dt._np, copy=False), shape)
    return _wrap_shape(np.cross(a, b, axis=d) if a.size else np.zeros(shape, dt._np), dt)


def linalg_cross_out(self, other, *, dim=-1, out):
    return _copy_out(linalg_cross(self, other, dim=dim), out, "linalg_cross", exact)
