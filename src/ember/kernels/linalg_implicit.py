"""CompositeImplicitAutograd linalg ops (torch's BatchLinearAlgebra.cpp / LinearAlgebra.cpp): the torch.linalg
front ends over the *_ex / _linalg_* kernels, the legacy names (inverse, det, svd, qr, cholesky, pinverse) and
matrix_power by repeated squaring."""
import warnings

from .common import check_out
from .meta.linalg import check_matrix


def _e():
    import ember
    return ember


def _to_out(r, out, name):
    check_out(out, r._size, r.dtype, name)
    return out.copy_(r)


def _to_outs(rs, outs, name):
    for r, o in zip(rs, outs):
        _to_out(r, o, name)
    return tuple(outs)


# ------------------------------------------------------------------ inverse / determinants / solve
def linalg_inv(A):
    return _e()._linalg.linalg_inv_ex(A, check_errors=True)[0]


def linalg_inv_out(A, *, out):
    return _to_out(linalg_inv(A), out, "linalg_inv")


inverse = linalg_inv
inverse_out = linalg_inv_out


def det(self):
    return _e()._linalg.linalg_det(self)


def slogdet(self):
    return tuple(_e()._linalg.linalg_slogdet(self))


def slogdet_out(self, *, sign, logabsdet):
    return _to_outs(slogdet(self), (sign, logabsdet), "slogdet")


def logdet(self):
    s, l = _e()._linalg.linalg_slogdet(self)
    e = _e()
    return e.where(s == -1, float("nan"), e.where(s == 0, float("-inf"), l))


def linalg_solve(A, B, *, left=True):
    return _e()._linalg.linalg_solve_ex(A, B, left=left, check_errors=True)[0]


def linalg_solve_out(A, B, *, left=True, out):
    return _to_out(linalg_solve(A, B, left=left), out, "linalg_solve")


# ------------------------------------------------------------------ factorizations
def linalg_cholesky(self, *, upper=False):
    return _e()._linalg.linalg_cholesky_ex(self, upper=upper, check_errors=True)[0]


def linalg_cholesky_out(self, *, upper=False, out):
    return _to_out(linalg_cholesky(self, upper=upper), out, "linalg_cholesky")


def cholesky(self, upper=False):
    warnings.warn("torch.cholesky is deprecated in favor of torch.linalg.cholesky and will be removed in a future "
                  "PyTorch release.", UserWarning)
    from .cpu.linalg import cholesky_ex
    check_matrix(self, "cholesky")
    if self.device.type == "meta":
        return _e()._linalg.linalg_cholesky_ex(self, upper=upper)[0]
    try:
        return _e()._linalg.linalg_cholesky_ex(self, upper=upper, check_errors=True)[0]
    except RuntimeError as err:
        if "linalg.cholesky:" in str(err):
            return cholesky_ex(self, upper, True, "cholesky")[0]
        raise


def cholesky_out(self, upper=False, *, out):
    return _to_out(cholesky(self, upper), out, "cholesky")


def qr(self, some=True):
    return tuple(_e()._linalg.linalg_qr(self, "reduced" if some else "complete"))


def qr_Q(self, some=True, *, Q, R):
    return _to_outs(qr(self, some), (Q, R), "qr")


def linalg_svd(A, full_matrices=True, *, driver=None):
    return tuple(_e()._linalg_svd(A, full_matrices, True, driver=driver))


def linalg_svd_U(A, full_matrices=True, *, driver=None, U, S, Vh):
    return _to_outs(linalg_svd(A, full_matrices, driver=driver), (U, S, Vh), "linalg_svd")


def linalg_svdvals(A, *, driver=None):
    return _e()._linalg_svd(A, False, False, driver=driver)[1]


def linalg_svdvals_out(A, *, driver=None, out):
    return _to_out(linalg_svdvals(A, driver=driver), out, "linalg_svdvals")


def svd(self, some=True, compute_uv=True):
    U, S, Vh = _e()._linalg_svd(self, not some, True)
    if not compute_uv:
        return U.zero_(), S, Vh.mT.zero_()
    return U, S, Vh.mH if hasattr(Vh, "mH") else Vh.transpose(-2, -1).conj()


def svd_U(self, some=True, compute_uv=True, *, U, S, V):
    return _to_outs(svd(self, some, compute_uv), (U, S, V), "svd")


def linalg_eigh(self, UPLO="L"):
    return tuple(_e()._linalg_eigh(self, UPLO, True))


def linalg_eigh_eigvals(self, UPLO="L", *, eigvals, eigvecs):
    return _to_outs(linalg_eigh(self, UPLO), (eigvals, eigvecs), "linalg_eigh")


def linalg_eigvalsh(self, UPLO="L"):
    return _e()._linalg_eigh(self, UPLO, False)[0]


def linalg_eigvalsh_out(self, UPLO="L", *, out):
    return _to_out(linalg_eigvalsh(self, UPLO), out, "linalg_eigvalsh")


# ------------------------------------------------------------------ pinv / matrix_rank front ends
def _f(x):
    return None if x is None else (float(x.item()) if hasattr(x, "item") else float(x))


def linalg_pinv_atol_rtol_float_out(self, *, atol=None, rtol=None, hermitian=False, out):
    return _to_out(_e()._linalg.linalg_pinv(self, atol=atol, rtol=rtol, hermitian=hermitian), out, "linalg_pinv")


def linalg_pinv_atol_rtol_tensor_out(self, *, atol=None, rtol=None, hermitian=False, out):
    r = _e().ops.aten.linalg_pinv.atol_rtol_tensor(self, atol=atol, rtol=rtol, hermitian=hermitian)
    return _to_out(r, out, "linalg_pinv")


def linalg_pinv(self, rcond, hermitian=False):
    return _e().ops.aten.linalg_pinv.atol_rtol_float(self, atol=0.0, rtol=_f(rcond), hermitian=hermitian)


linalg_pinv_rcond_tensor = linalg_pinv


def linalg_pinv_out(self, rcond, hermitian=False, *, out):
    return _to_out(linalg_pinv(self, rcond, hermitian), out, "linalg_pinv")


linalg_pinv_out_rcond_tensor = linalg_pinv_out


def pinverse(self, rcond=1e-15):
    return linalg_pinv(self, rcond)


def _rank(x, atol=None, rtol=None, hermitian=False):
    return _e().ops.aten.linalg_matrix_rank.atol_rtol_float(x, atol=atol, rtol=rtol, hermitian=hermitian)


def linalg_matrix_rank_atol_rtol_float_out(self, *, atol=None, rtol=None, hermitian=False, out):
    return _to_out(_rank(self, atol, rtol, hermitian), out, "linalg_matrix_rank")


def linalg_matrix_rank_atol_rtol_tensor_out(input, *, atol=None, rtol=None, hermitian=False, out):
    r = _e().ops.aten.linalg_matrix_rank.atol_rtol_tensor(input, atol=atol, rtol=rtol, hermitian=hermitian)
    return _to_out(r, out, "linalg_matrix_rank")


def linalg_matrix_rank(self, tol, hermitian=False):
    return _rank(self, _f(tol), 0.0, hermitian)


def linalg_matrix_rank_out(self, tol, hermitian=False, *, out):
    return _to_out(linalg_matrix_rank(self, tol, hermitian), out, "linalg_matrix_rank")


linalg_matrix_rank_tol_tensor = linalg_matrix_rank
linalg_matrix_rank_out_tol_tensor = linalg_matrix_rank_out


# ------------------------------------------------------------------ matrix_power
def linalg_matrix_power(self, n):
    if self.dim() < 2:
        raise RuntimeError("linalg.matrix_power: The input tensor A must have at least 2 dimensions.")
    if self._size[-1] != self._size[-2]:
        raise RuntimeError(f"linalg.matrix_power: A must be batches of square matrices, but they are "
                           f"{self._size[-2]} by {self._size[-1]} matrices")
    e = _e()
    if n == 0:
        return e.eye(self._size[-1], dtype=self.dtype, device=self.device).expand(self._size).clone(
            memory_format=e.contiguous_format)
    a = e._linalg.linalg_inv(self) if n < 0 else self
    n = abs(n)
    if n == 1:
        return a.clone(memory_format=e.contiguous_format)
    result = None
    z = a
    while n:
        if n & 1:
            result = z if result is None else result.matmul(z)
        n >>= 1
        if n:
            z = z.matmul(z)
    return result


linalg_matrix_power.__doc__ = "torch's matrix_power: binary exponentiation with matmul; negative n inverts first."
matrix_power = linalg_matrix_power


def linalg_matrix_power_out(self, n, *, out):
    return _to_out(linalg_matrix_power(self, n), out, "matrix_power")


matrix_power_out = linalg_matrix_power_out


# ------------------------------------------------------------------ eigvals / matrix_exp / products / cond
def linalg_eigvals(self):
    return _e()._linalg.linalg_eig(self)[0]


def linalg_eigvals_out(self, *, out):
    return _to_out(linalg_eigvals(self), out, "linalg_eigvals")


def matrix_exp(self):
    return _e()._linalg.linalg_matrix_exp(self)


def linalg_matmul(self, other):
    return self.matmul(other)


def linalg_matmul_out(self, other, *, out):
    return _to_out(self.matmul(other), out, "linalg_matmul")


def linalg_vecdot(x, y, *, dim=-1):
    if x.dtype is not y.dtype:
        from .common import _tname
        raise RuntimeError(f"linalg.vecdot: Expected x and y to have the same dtype, but found x of type "
                           f"{_tname(x.dtype)} and y of type {_tname(y.dtype)} instead")
    return ((x.conj() if x.dtype.is_complex else x) * y).sum(dim)


def linalg_vecdot_out(x, y, *, dim=-1, out):
    return _to_out(linalg_vecdot(x, y, dim=dim), out, "linalg_vecdot")


def linalg_diagonal(A, *, offset=0, dim1=-2, dim2=-1):
    return A.diagonal(offset, dim1, dim2)


def linalg_multi_dot(tensors):
    ts = list(tensors)
    n = len(ts)
    if n < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {n}")
    first, last = ts[0].dim(), ts[-1].dim()
    if first not in (1, 2):
        raise RuntimeError(f"multi_dot(): the first tensor must be 1D or 2D but got {first}D")
    if last not in (1, 2):
        raise RuntimeError(f"multi_dot(): the last tensor must be 1D or 2D but got {last}D")
    for i, t in enumerate(ts[1:-1], 1):
        if t.dim() != 2:
            raise RuntimeError(f"multi_dot(): tensor {i} must be 2D but got {t.dim()}D")
    mats = [ts[0].unsqueeze(0) if first == 1 else ts[0]] + ts[1:-1] + [ts[-1].unsqueeze(-1) if last == 1 else ts[-1]]
    for i in range(n - 1):
        if mats[i]._size[-1] != mats[i + 1]._size[0]:
            a, b = list(mats[i]._size), list(mats[i + 1]._size)
            raise RuntimeError(f"multi_dot(): tensors {i} and {i + 1} with shapes {a} and {b} cannot be multiplied")
    r = mats[0]
    for m in mats[1:]:
        r = r.mm(m)
    if first == 1:
        r = r.squeeze(0)
    if last == 1:
        r = r.squeeze(-1)
    return r


def linalg_multi_dot_out(tensors, *, out):
    return _to_out(linalg_multi_dot(tensors), out, "linalg_multi_dot")


def linalg_cond(self, p=None):
    e = _e()
    check_matrix(self, "linalg.cond", square=p not in (None, 2, -2))
    if p in (None, 2, -2):
        s = e._linalg.linalg_svdvals(self)
        big, small = s.select(-1, 0), s.select(-1, -1)
        return big / small if p != -2 else small / big
    return e._linalg.linalg_matrix_norm(self, p) * e._linalg.linalg_matrix_norm(e._linalg.linalg_inv(self), p)


def linalg_cond_out(self, p=None, *, out):
    return _to_out(linalg_cond(self, p), out, "linalg_cond")


linalg_cond_p_str = linalg_cond
linalg_cond_p_str_out = linalg_cond_out


def triangular_solve(self, A, upper=True, transpose=False, unitriangular=False):
    warnings.warn("torch.triangular_solve is deprecated in favor of torch.linalg.solve_triangularand will be removed "
                  "in a future PyTorch release.", UserWarning)
    e = _e()
    a = A.mT if transpose else A
    x = e._linalg.linalg_solve_triangular(a, self, upper=upper != transpose, unitriangular=unitriangular)
    batch = x._size[:-2]
    return x, A.expand(tuple(batch) + tuple(A._size[-2:])).mT.clone(memory_format=e.contiguous_format).mT
