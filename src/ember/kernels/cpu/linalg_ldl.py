"""cpu kernels for linalg.ldl_factor(_ex) and linalg.ldl_solve: LAPACK's Bunch-Kaufman xSYTF2 / xHETF2 and
xSYTRS / xHETRS with uplo='L', one matrix at a time (pivot choices differ per matrix), each step vectorised over
the trailing block, in LAPACK's order of operations so LD and pivots match torch's (which calls sytrf). Large
matrices use scipy's sytrf/hetrf when scipy is installed (lazily imported). Pivots: int32, 1-based; a 2x2 block
has the same negative pivot on both of its rows. torch zeroes LD's strict upper triangle; so does ember."""
import numpy as np

from ..meta import linalg_lu as M
from .linalg import _like
from .linalg import _mag, iamax
from .linalg_lu import _batch_prefix, _batched, _into, _lapack

_ALPHA = (1 + np.sqrt(17.0)) / 8


def _sytf2(a, herm):
    """LAPACK's unblocked Bunch-Kaufman factorisation (xSYTF2 / xHETF2, uplo='L') of one matrix, in place.
    Only the lower triangle is read and written. Returns (1-based pivots, info)."""
    n = a.shape[0]
    piv = np.zeros(n, np.int32)
    info = 0
    cj = np.conj if herm else (lambda x: x)
    diag = (lambda x: abs(x.real)) if herm else (lambda x: _mag(np.asarray(x)))
    if herm:
        a[np.diag_indices(n)] = a.diagonal().real
    k = 0
    while k < n:
        kstep = 1
        absakk = float(diag(a[k, k]))
        if k < n - 1:
            imax = k + 1 + int(iamax(a[k + 1:, k]))
            colmax = float(_mag(a[imax, k]))
        else:
            imax, colmax = k, 0.0
        # torch's LAPACK (MKL) has no isnan(absakk) test here, and its MAX ignores a nan operand (fmax)
        if np.fmax(absakk, colmax) == 0:
            info = info or k + 1
            kp = k
            if herm:
                a[k, k] = a[k, k].real
        else:
            if absakk >= _ALPHA * colmax:
                kp = k
            else:
                jmax = k + int(iamax(a[imax, k:imax]))
                rowmax = float(_mag(a[imax, jmax]))
                if imax < n - 1:
                    jmax = imax + 1 + int(iamax(a[imax + 1:, imax]))
                    rowmax = float(np.fmax(rowmax, _mag(a[jmax, imax])))
                if absakk >= _ALPHA * colmax * (colmax / rowmax):
                    kp = k
                elif float(diag(a[imax, imax])) >= _ALPHA * rowmax:
                    kp = imax
                else:
                    kp, kstep = imax, 2
            kk = k + kstep - 1
            if kp != kk:                      # interchange rows and columns kk and kp of the trailing block
                if kp < n - 1:
                    t = a[kp + 1:, kk].copy()
                    a[kp + 1:, kk] = a[kp + 1:, kp]
                    a[kp + 1:, kp] = t
                t = cj(a[kk + 1:kp, kk]).copy()
                a[kk + 1:kp, kk] = cj(a[kp, kk + 1:kp])
                a[kp, kk + 1:kp] = t
                if herm:
                    a[kp, kk] = np.conj(a[kp, kk])
                a[kk, kk], a[kp, kp] = a[kp, kp], a[kk, kk]
                if kstep == 2:
                    a[k + 1, k], a[kp, k] = a[kp, k], a[k + 1, k]
            elif herm:
                a[k, k] = a[k, k].real
                if kstep == 2:
                    a[k + 1, k + 1] = a[k + 1, k + 1].real
            if kstep == 1:
                if k < n - 1:
                    d11 = 1 / (a[k, k].real if herm else a[k, k])
                    v = a[k + 1:, k]
                    a[k + 1:, k + 1:] += np.outer(v, -d11 * cj(v))         # xSYR's x_i (alpha x_j)
                    a[k + 1:, k] *= d11
            elif k < n - 2:
                d21 = a[k + 1, k]
                if herm:
                    dabs = abs(d21)
                    d11 = a[k + 1, k + 1].real / dabs
                    d22 = a[k, k].real / dabs
                    tt = 1 / (d11 * d22 - 1)
                    d21 = d21 / dabs
                    dd = tt / dabs
                    wk = dd * (d11 * a[k + 2:, k] - d21 * a[k + 2:, k + 1])
                    wkp1 = dd * (d22 * a[k + 2:, k + 1] - np.conj(d21) * a[k + 2:, k])
                else:
                    d11 = a[k + 1, k + 1] / d21
                    d22 = a[k, k] / d21
                    tt = 1 / (d11 * d22 - 1)
                    d21 = tt / d21
                    wk = d21 * (d11 * a[k + 2:, k] - a[k + 2:, k + 1])
                    wkp1 = d21 * (d22 * a[k + 2:, k + 1] - a[k + 2:, k])
                a[k + 2:, k + 2:] -= np.outer(a[k + 2:, k], cj(wk))
                a[k + 2:, k + 2:] -= np.outer(a[k + 2:, k + 1], cj(wkp1))
                a[k + 2:, k] = wk
                a[k + 2:, k + 1] = wkp1
                if herm:
                    idx = np.arange(k + 2, n)
                    a[idx, idx] = a[idx, idx].real
        if kstep == 1:
            piv[k] = kp + 1
        else:
            piv[k] = piv[k + 1] = -(kp + 1)
        k += kstep
    return piv, info


def _sytrf(a, herm):
    n = a.shape[-1]
    lapack = _lapack(n, min_n=0)       # always: the numpy loop goes one matrix at a time
    if lapack is None:
        return _sytf2(a, herm)
    name = "hetrf" if herm and a.dtype.kind == "c" else "sytrf"
    f, = lapack.get_lapack_funcs((name,), (a,))
    ld, piv, info = f(a, lower=1, lwork=max(1, 64 * n))   # a blocked workspace, like torch's query (the
                                                          # default one runs level-2 BLAS column by column)
    a[...] = ld
    return piv, max(info, 0)


def ldl_factor(A, hermitian):
    a, batch = _batched(A._np)
    n = a.shape[-1]
    piv = np.zeros((a.shape[0], n), np.int32)
    info = np.zeros(a.shape[0], np.int32)
    with np.errstate(all="ignore"):             # nan/inf inputs propagate silently, as in LAPACK
        for i in range(a.shape[0]):
            piv[i], info[i] = _sytrf(a[i], hermitian)
    return np.tril(a).reshape(A._size), piv.reshape(batch + (n,)), info.reshape(batch)


def check_ldl_info(info, batched, api):
    flat = np.asarray(info).reshape(-1)
    bad = np.flatnonzero(flat)
    if bad.size:
        i, k = int(bad[0]), int(flat[bad[0]])
        raise RuntimeError(f"{api}: {_batch_prefix(batched, i)}The factorization could not be completed because "
                           f"the block diagonal matrix D is exactly singular (D[{k},{k}] is zero).")


def linalg_ldl_factor_ex(self, *, hermitian=False, check_errors=False):
    m_ld, m_piv, m_info = M.linalg_ldl_factor_ex(self, hermitian=hermitian)
    if self.numel() == 0:
        return _like(m_ld, self._np), _like(m_piv, np.zeros(m_piv._size)), _like(m_info, np.zeros(m_info._size))
    ld, piv, info = ldl_factor(self, hermitian and self.dtype.is_complex)
    if check_errors:
        check_ldl_info(info, self.dim() > 2, "torch.linalg.ldl_factor_ex")
    return _like(m_ld, ld), _like(m_piv, piv), _like(m_info, info)


def linalg_ldl_factor_ex_out(self, *, hermitian=False, check_errors=False, LD, pivots, info):
    return _into(linalg_ldl_factor_ex(self, hermitian=hermitian, check_errors=check_errors), (LD, pivots, info),
                 "linalg_ldl_factor_ex")


def _swap(b, idx, r1, r2):
    """Swap rows r1 and r2 (scalars or per-batch arrays) of the batch entries idx."""
    t = b[idx, r1].copy()
    b[idx, r1] = b[idx, r2]
    b[idx, r2] = t


def _sytrs(a, piv, b, herm):
    """LAPACK's xSYTRS / xHETRS (uplo='L') over a batch: solve A X = B with A = L D L^T (L D L^H) from sytrf's
    output. Each step runs on every matrix at once: those with a 1x1 block at row k, those whose 2x2 block
    starts there, and none of those whose 2x2 block started one row before (LAPACK's order of operations)."""
    nb, n = piv.shape
    cj = np.conj if herm else (lambda x: x)
    b = b.copy()
    skip = np.zeros(nb, bool)
    for k in range(n):                                    # L D Y = B
        p = piv[:, k]
        one, two = np.flatnonzero((p > 0) & ~skip), np.flatnonzero((p < 0) & ~skip)
        if one.size:
            _swap(b, one, k, p[one] - 1)
            if k < n - 1:
                b[one, k + 1:] -= a[one, k + 1:, k, None] * b[one, k, None, :]
            d = a[one, k, k]
            b[one, k] *= (1 / (d.real if herm else d))[:, None]
        if two.size:
            _swap(b, two, k + 1, -p[two] - 1)
            if k < n - 2:
                b[two, k + 2:] -= a[two, k + 2:, k, None] * b[two, k, None, :]
                b[two, k + 2:] -= a[two, k + 2:, k + 1, None] * b[two, k + 1, None, :]
            akm1k = a[two, k + 1, k][:, None]
            akm1 = a[two, k, k][:, None] / cj(akm1k)
            ak = a[two, k + 1, k + 1][:, None] / akm1k
            denom = akm1 * ak - 1
            bkm1 = b[two, k] / cj(akm1k)
            bk = b[two, k + 1] / akm1k
            b[two, k] = (ak * bkm1 - bk) / denom
            b[two, k + 1] = (akm1 * bk - bkm1) / denom
        skip = np.zeros(nb, bool)
        skip[two] = True
    skip = np.zeros(nb, bool)
    for k in reversed(range(n)):                          # L^T X = Y (L^H)
        p = piv[:, k]
        one, two = np.flatnonzero((p > 0) & ~skip), np.flatnonzero((p < 0) & ~skip)
        if one.size:
            if k < n - 1:
                b[one, k] -= (cj(a[one, None, k + 1:, k]) @ b[one, k + 1:])[:, 0]
            _swap(b, one, k, p[one] - 1)
        if two.size:                                      # rows k - 1 and k form the block
            if k < n - 1:
                b[two, k] -= (cj(a[two, None, k + 1:, k]) @ b[two, k + 1:])[:, 0]
                b[two, k - 1] -= (cj(a[two, None, k + 1:, k - 1]) @ b[two, k + 1:])[:, 0]
            _swap(b, two, k, -p[two] - 1)
        skip = np.zeros(nb, bool)
        skip[two] = True
    return b


def check_ldl_pivots(piv):
    """pivots (batch, n) must be what sytrf writes: |p| in [1, n], and a negative pivot opens a 2x2 block whose
    second row repeats it (LAPACK would read past the matrix otherwise)."""
    nb, n = piv.shape
    ok = (np.abs(piv) >= 1).all() and (np.abs(piv) <= n).all()
    skip = np.zeros(nb, bool)
    for k in range(n if ok else 0):
        opens = (piv[:, k] < 0) & ~skip
        if k == n - 1:
            ok = not opens.any()
        else:
            ok = bool((piv[opens, k + 1] == piv[opens, k]).all())
        if not ok:
            break
        skip = opens
    if not ok:
        raise RuntimeError("torch.linalg.ldl_solve: pivots are not a valid output of linalg.ldl_factor (each entry "
                           "in [-n, -1] or [1, n], negative ones in equal pairs marking 2x2 blocks)")


def _sytrs_lapack(ld, piv, b, herm, lapack):
    name = "hetrs" if herm else "sytrs"
    f, = lapack.get_lapack_funcs((name,), (ld[:1], b[:1]))
    x = np.empty_like(b)
    for i in range(b.shape[0]):
        x[i] = f(ld[i], piv[i], b[i], lower=1)[0]
    return x


def linalg_ldl_solve(LD, pivots, B, *, hermitian=False):
    m = M.linalg_ldl_solve(LD, pivots, B, hermitian=hermitian)
    if m.numel() == 0:
        return _like(m, np.zeros(m._size))
    batch, n = m._size[:-2], LD._size[-1]
    check_ldl_pivots(pivots._np.reshape((-1, n)))
    ld = np.broadcast_to(LD._np, batch + (n, n)).reshape((-1, n, n))
    piv = np.broadcast_to(pivots._np, batch + (n,)).reshape((-1, n))
    b = np.broadcast_to(B._np, m._size).reshape((-1,) + m._size[-2:]).astype(m.dtype._np)
    herm = hermitian and LD.dtype.is_complex
    lapack = _lapack(n)
    with np.errstate(all="ignore"):
        if lapack is not None:
            x = _sytrs_lapack(ld, piv.astype(np.int32), b, herm, lapack)
        else:
            x = _sytrs(ld, piv.astype(np.int64), b, herm)
    return _like(m, x.reshape(m._size))


def linalg_ldl_solve_out(LD, pivots, B, *, hermitian=False, out):
    return _into((linalg_ldl_solve(LD, pivots, B, hermitian=hermitian),), (out,), "linalg_ldl_solve")[0]
