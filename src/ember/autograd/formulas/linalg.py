"""Backward helpers of the linear-algebra ops (torch's FunctionsManual.cpp, linalg part): matrix products,
matrix norms, inv, slogdet, solve, cholesky, qr, svd, eigh, pinv, lstsq, vdot. Written in ember ops, so the
backwards are differentiable again."""

import numpy as np

from ..._core import dtype as _dt
from ..._core.tensor_impl import TensorImpl as Tensor
from ..._core.tls import state as _state
from ..._generated import functions as at, linalg_functions as at_linalg  # ember.*, ember._linalg.* (at::)
from ..._grad_mode import enable_grad
from ._common import _vjp_composite, maybe_multiply, _needs_history, sum_to, _mH
from ..._core.strides import same_shape
from ...kernels.cpu.runtime import gemm as _gemm

__all__ = ["cholesky_backward", "householder_product_backward", "ormqr_backward", "cholesky_solve_backward", "eig_backward", "eigh_backward", "inv_backward", "lstsq_backward",
           "mm_mat1_backward", "mm_mat2_backward", "pinv_backward",
           "qr_backward", "slogdet_backward", "solve_backward", "solve_triangular_backward", "svd_backward",
           "trilinear_backward",
           "vdot_self_backward"]


def mm_mat1_backward(grad, mat2, sizes, strides, alpha):
    """Like torch: when mat1 is column-major (a transposed weight), produce its gradient in that
    layout too, so the gradient reaching the parameter is stolen by AccumulateGrad without a copy."""
    col = len(sizes) == 2 and strides[0] == 1 and strides[1] == sizes[0] and sizes[1] != 1
    r = _mm_direct(grad, mat2, col, True)
    if r is not None:
        return maybe_multiply(r, alpha)
    if col:
        return maybe_multiply(mat2.mm(grad.t()).t(), alpha)
    return maybe_multiply(grad.mm(mat2.t()), alpha)


def mm_mat2_backward(grad, mat1, sizes, strides, alpha):
    col = len(sizes) == 2 and strides[0] == 1 and strides[1] == sizes[0] and sizes[1] != 1
    r = _mm_direct(grad, mat1, col, False)
    if r is not None:
        return maybe_multiply(r, alpha)
    if col:
        return maybe_multiply(grad.t().mm(mat1).t(), alpha)
    return maybe_multiply(mat1.t().mm(grad), alpha)


_MM_DIRECT = (_dt.float32, _dt.float64)


def _mm_direct(grad, other, col, first):
    """The gradient of an mm operand as the formulas above compute it (the same np.matmul the mm
    kernel runs, on the same operands), without dispatching its t/mm/t when there is no graph to
    record: the two matrices of a Linear's backward cost five dispatches otherwise. `first`: the
    gradient of mat1 (grad @ other^T), else of mat2 (other^T @ grad). `col`: return it column-major
    (a fresh tensor with transposed strides, as `x.mm(y).t()` lays it out). None: take the general path."""
    g, o = grad._logical_np(), other._logical_np()
    if (_state.mode_stack or g is None or o is None or g.ndim != 2 or o.ndim != 2 or grad.dtype not in _MM_DIRECT
            or other.dtype is not grad.dtype or _needs_history(grad, other) or "_fw_tangent" in grad.__dict__
            or "_fw_tangent" in other.__dict__):
        return None
    if first:
        a, b = (o, g.T) if col else (g, o.T)
    else:
        a, b = (g.T, o) if col else (o.T, g)
    r = _gemm.mm(a, b) if a.shape[0] * a.shape[1] * b.shape[1] > _gemm.OPENBLAS_SERIAL else None   # over the pool
    if r is None:
        r = np.matmul(a, b)
    return Tensor._wrap_np(r.T if col else r, grad.dtype)


def _to(g, shape):
    """Sum a broadcast grad back to an input's shape."""
    return sum_to(g, tuple(shape)) if tuple(g._size) != tuple(shape) else g


def inv_backward(grad, inverse):
    """gA = -A^{-H} G A^{-H}."""
    ih = _mH(inverse)
    return -ih.matmul(grad.matmul(ih))


def slogdet_backward(grad_logabsdet, A):
    """gA = g_logabsdet * A^{-H} (the sign is piecewise constant)."""
    if grad_logabsdet is None:
        return None
    return grad_logabsdet.unsqueeze(-1).unsqueeze(-1) * _mH(at_linalg.linalg_inv(A))


def _solve_is_vector(A, B):
    return B.dim() == 1 or (B.dim() == A.dim() - 1 and tuple(B._size) == tuple(A._size[:-1]))


def solve_backward(grad, A, B, X, left, grad_input_mask):
    """AX = B: gB = A^{-H} G, gA = -gB X^H (left=False: XA = B, gB = G A^{-H}, gA = -X^H gB)."""
    if grad is None:
        return None, None
    vector = left and _solve_is_vector(A, B)
    g = grad.unsqueeze(-1) if vector else grad
    x = X.unsqueeze(-1) if vector else X
    gB = at_linalg.linalg_solve(_mH(A), g, left=left)
    gA = None
    if grad_input_mask[0]:
        gA = _to(-gB.matmul(_mH(x)) if left else -_mH(x).matmul(gB), A._size)
    if grad_input_mask[1]:
        gB = _to(gB.squeeze(-1) if vector else gB, B._size)
    else:
        gB = None
    return gA, gB


def cholesky_backward(grad, upper, L):
    """torch's cholesky_backward (Murray 2016): P = tril(L^H gL), Φ = (P + tril(P, -1)^H) / 2,
    gA = L^{-H} Φ L^{-1} by two triangular solves. Φ keeps P's complex diagonal, as torch's does."""
    if upper:
        L, grad = _mH(L), _mH(grad)
    p = _mH(L).matmul(grad).tril()
    p = 0.5 * (p + _mH(p.tril(-1)))
    p = at_linalg.linalg_solve_triangular(_mH(L), p, upper=True, left=True)
    return at_linalg.linalg_solve_triangular(L, p, upper=False, left=False)


def cholesky_solve_backward(grad, self, input2, result, upper, grad_input_mask):
    """X = (L L^H)^{-1} B: gB = cholesky_solve(G, L); gL = -(gB X^H + X gB^H) L (upper: -L (...))."""
    if grad is None:
        return None, None
    gB = at.cholesky_solve(grad, input2, upper)
    gL = None
    if grad_input_mask[1]:
        common = gB.matmul(_mH(result))
        common = common + _mH(common)
        gL = _to(-input2.matmul(common) if upper else -common.matmul(input2), input2._size)
    return (_to(gB, self._size) if grad_input_mask[0] else None), gL


def solve_triangular_backward(grad, A, B, result, upper, left, unitriangular, grad_input_mask):
    """X = A^{-1} B (left) or B A^{-1}: gB = A^{-H} G (G A^{-H}); gA = -gB X^H (-X^H gB), cut to A's
    triangle (the strict one for unitriangular), as torch's linalg_solve_triangular_backward."""
    if grad is None:
        return None, None
    gB = at_linalg.linalg_solve_triangular(_mH(A), grad, upper=not upper, left=left, unitriangular=unitriangular)
    gA = None
    if grad_input_mask[0]:
        gA = -gB.matmul(_mH(result)) if left else -_mH(result).matmul(gB)
        gA = _to(gA.triu(int(unitriangular)) if upper else gA.tril(-int(unitriangular)), A._size)
    return gA, (_to(gB, B._size) if grad_input_mask[1] else None)


def _copyltu(M):
    return M.tril() + M.tril(-1).mT


def _qr_tall(gQ, gR, Q, R):
    """A = QR with m >= n (reduced): gA = (gQ + Q copyltu(M)) R^{-H}, M = R gR^H - gQ^H Q."""
    M = None
    if gR is not None:
        M = R.matmul(_mH(gR))
    if gQ is not None:
        M = -_mH(gQ).matmul(Q) if M is None else M - _mH(gQ).matmul(Q)
    b = Q.matmul(_copyltu(M))
    if gQ is not None:
        b = b + gQ
    return at_linalg.linalg_solve(_mH(R), b, left=False)


def qr_backward(gQ, gR, Q, R, mode):
    if gQ is None and gR is None:
        return None
    if mode == "r":
        raise RuntimeError("The derivative of linalg.qr depends on Q, which is not computed when mode='r'. "
                           "Please use linalg.qr(A, mode='reduced') if you are going to differentiate through "
                           "linalg.qr.")
    m, n = Q._size[-2], R._size[-1]
    if mode == "complete" and m > n:
        raise RuntimeError("The QR decomposition is not differentiable when mode='complete' and nrows > ncols.")
    if m >= n:
        return _qr_tall(gQ, gR, Q, R)
    # wide: A = [X | Y], R = [U | V], X = Q U, Y = Q V
    U, V = R[..., :, :m], R[..., :, m:]
    gU = gV = None
    if gR is not None:
        gU, gV = gR[..., :, :m], gR[..., :, m:]
    Y = Q.matmul(V)
    gQx = gQ
    if gV is not None:
        gQx = Y.matmul(_mH(gV)) if gQx is None else gQx + Y.matmul(_mH(gV))
    gX = _qr_tall(gQx, gU, Q, U)
    gY = Q.matmul(gV) if gV is not None else at.zeros_like(Y)
    return at.cat([gX, gY], -1)


def svd_backward(gU, gS, gVh, A, U, S, Vh, full_matrices, compute_uv):
    """torch's svd_backward (real and complex-free subset): gauge-invariant formula with E_jk = S_k^2 - S_j^2."""
    if gU is None and gS is None and gVh is None:
        return None
    if not compute_uv:
        with enable_grad():
            U, _, Vh = at._linalg_svd(A, False, True)
        gU = gVh = None
    k = S._size[-1]
    if full_matrices:
        U, Vh = U[..., :, :k], Vh[..., :k, :]
        gU = gU[..., :, :k] if gU is not None else None
        gVh = gVh[..., :k, :] if gVh is not None else None
    m, n = A._size[-2], A._size[-1]
    if gU is None and gVh is None:
        return U.matmul(gS.unsqueeze(-1) * Vh)
    V = _mH(Vh)
    gV = _mH(gVh) if gVh is not None else None
    S2 = S * S
    E = S2.unsqueeze(-2) - S2.unsqueeze(-1)
    E = E + at.diag_embed(at.ones_like(S))          # diagonal E_jj = 1 (numerators vanish there)
    gA = None
    if gU is not None:
        UhgU = _mH(U).matmul(gU)
        gA = (UhgU - _mH(UhgU)) * S.unsqueeze(-2)
    if gV is not None:
        VhgV = _mH(V).matmul(gV)
        t = S.unsqueeze(-1) * (VhgV - _mH(VhgV))
        gA = t if gA is None else gA + t
    gA = gA / E
    if gS is not None:
        gA = gA + at.diag_embed(gS)
    if m > n and gU is not None:
        gA = U.matmul(gA)
        gUSinv = gU / S.unsqueeze(-2)
        gA = gA + gUSinv - U.matmul(_mH(U).matmul(gUSinv))
        return gA.matmul(Vh)
    if m < n and gV is not None:
        gVSinv = gV / S.unsqueeze(-2)
        gA = gA.matmul(Vh) + _mH(gVSinv) - _mH(gVSinv).matmul(V).matmul(Vh)
        return U.matmul(gA)
    return U.matmul(gA).matmul(Vh)


def eigh_backward(gL, gV, A, L, V, compute_v):
    """gA = V (diag(gL) + skew(V^H gV)/2 / E) V^H with E_ij = λ_j - λ_i (torch's linalg_eig_backward, hermitian)."""
    if gL is None and gV is None:
        return None
    if not compute_v:
        with enable_grad():
            L, V = at._linalg_eigh(A, "L", True)
        gV = None
    if gV is None:
        return V.matmul(gL.unsqueeze(-1) * _mH(V))
    VhgV = _mH(V).matmul(gV)
    VhgV = 0.5 * (VhgV - _mH(VhgV))
    E = L.unsqueeze(-2) - L.unsqueeze(-1)
    E = E + at.diag_embed(at.ones_like(L))
    mid = VhgV / E
    mid = mid - at.diag_embed(mid.diagonal(0, -2, -1))
    if gL is not None:
        mid = mid + at.diag_embed(gL)
    return V.matmul(mid).matmul(_mH(V))


def eig_backward(gL, gV, A, L, V):
    """A = V diag(L) V^{-1} (torch's linalg_eig_backward, general case): with M = V^H gV projected onto the
    gauge-free part (M - V^H V diag(Re diag M)), gA = V^{-H} (diag(gL) + M / conj(E)) V^H, E_ij = L_j - L_i
    (1 on the diagonal); the real part for a real A. The eigenvectors are fixed only up to a phase, so a loss
    that depends on it (Im diag(V^H gV) not ~ 0) is refused, as in torch."""
    if gL is None and gV is None:
        return None
    Vh = _mH(V)
    if gV is None:
        gA = at_linalg.linalg_solve(Vh, gL.unsqueeze(-1) * Vh)
    else:
        VhgV = Vh.matmul(gV)
        d = VhgV.diagonal(0, -2, -1)
        if d.dtype.is_complex and not at.allclose(d.imag, at.zeros_like(d.imag), 1e-2, 1e-2):
            raise RuntimeError("linalg_eig_backward: The eigenvectors in the complex case are specified up to "
                               "multiplication by e^{i phi}. The specified loss function depends on this quantity, "
                               "so it is ill-defined.")
        M = VhgV - Vh.matmul(V * d.real.unsqueeze(-2))
        if gL is not None:
            M = M + at.diag_embed(gL)
        Lc = L.conj()
        E = Lc.unsqueeze(-2) - Lc.unsqueeze(-1)
        E = E + at.diag_embed(at.ones_like(L))      # E's diagonal is 0: make it 1
        gA = at_linalg.linalg_solve(Vh, (M / E).matmul(Vh))
    return gA if A.dtype.is_complex else gA.real


def pinv_backward(grad, pinvA, A):
    m, n = A._size[-2], A._size[-1]
    pinvAh = _mH(pinvA)
    gradh = _mH(grad)
    if m <= n:
        K = gradh.matmul(pinvA)
        KpinvAh = K.matmul(pinvAh)
        return (-_mH(pinvA.matmul(K)) + KpinvAh - A.matmul(pinvA).matmul(KpinvAh)
                + pinvAh.matmul(pinvA).matmul(gradh - K.matmul(A)))
    K = pinvA.matmul(gradh)
    pinvAhK = pinvAh.matmul(K)
    return (-_mH(K.matmul(pinvA)) + (gradh - A.matmul(K)).matmul(pinvA).matmul(pinvAh) + pinvAhK
            - pinvAhK.matmul(pinvA).matmul(A))


def lstsq_backward(gX, gRes, A, B, X, grad_input_mask):
    """X = pinv(A) B: gA = pinv_backward(gX B^H), gB = pinv(A)^H gX; residuals r = Σ|AX - B|^2 (X optimal):
    gA += 2 (AX - B) X^H gr, gB -= 2 (AX - B) gr."""
    if gX is None and (gRes is None or gRes.numel() == 0):
        return None, None
    vector = B.dim() == 1 or (B.dim() == A.dim() - 1)
    b = B.unsqueeze(-1) if vector else B
    x = X.unsqueeze(-1) if vector else X
    gA = gB = None
    if gX is not None:
        g = gX.unsqueeze(-1) if vector else gX
        pinvA = at_linalg.linalg_pinv(A)
        if grad_input_mask[0]:
            gA = pinv_backward(g.matmul(_mH(b)), pinvA, A)
        if grad_input_mask[1]:
            gB = _mH(pinvA).matmul(g)
    if gRes is not None and gRes.numel():
        r = A.matmul(x) - b
        gr = gRes.unsqueeze(-1) if vector else gRes.unsqueeze(-2)
        if grad_input_mask[0]:
            t = (2 * r * gr).matmul(_mH(x))
            gA = t if gA is None else gA + t
        if grad_input_mask[1]:
            t = -2 * r * gr
            gB = t if gB is None else gB + t
    if gA is not None:
        gA = _to(gA, A._size)
    if gB is not None:
        gB = _to(gB.squeeze(-1) if vector else gB, B._size)
    return gA, gB


def vdot_self_backward(grad, other):
    return grad.conj() * other if grad.is_complex() else grad * other


def householder_product_backward(grad, input, tau):
    """The vector-Jacobian product of the reflector-by-reflector composite (torch's householder_product_backward
    differentiates the same product of rank-1 updates), so it is differentiable again."""
    from ...kernels.decompositions.linalg import householder_product_composite
    return tuple(_vjp_composite(lambda a, t: (householder_product_composite(a, t),), (input, tau), [grad]))


def ormqr_backward(grad, self, input2, input3, left, transpose):
    """torch's ormqr_backward: the gradients of op(Q) C (or C op(Q)) through the householder product of Q."""
    from ...kernels.decompositions.linalg import ormqr_composite
    return tuple(_vjp_composite(lambda a, t, c: (ormqr_composite(a, t, c, left, transpose),),
                                (self, input2, input3), [grad]))


def trilinear_backward(grad, i1, i2, i3, expand1, expand2, expand3, sumdim):
    """torch's _trilinear_backward: the three partial products, as the VJP of the einsum composite."""
    from ...kernels.decompositions.linalg import trilinear_composite
    return tuple(_vjp_composite(lambda a, b, c: (trilinear_composite(a, b, c, expand1, expand2, expand3, sumdim),),
                                (i1, i2, i3), [grad]))
