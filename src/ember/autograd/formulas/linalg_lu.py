"""Backward helpers of the LU family (torch's FunctionsManual.cpp: linalg_lu_backward, lu_factor_ex_backward,
lu_unpack_backward, linalg_lu_solve's formulas)."""

from ..._generated import functions as at, linalg_functions as at_linalg  # ember.*, ember._linalg.* (at::)
from ._common import _mH

__all__ = ["linalg_lu_backward", "linalg_lu_solve_backward", "lu_factor_ex_backward", "lu_unpack_backward"]


def _sum_to(g, shape):
    """Sum a broadcast grad back to `shape`, in ember ops (differentiable)."""
    shape = tuple(shape)
    if tuple(g.shape) == shape:
        return g
    lead = g.dim() - len(shape)
    if lead:
        g = g.sum(tuple(range(lead)))
    dims = tuple(i for i, s in enumerate(shape) if s == 1 and g.shape[i] != 1)
    return g.sum(dims, keepdim=True) if dims else g


def _solve_left_h(T, X):
    """T^{-H} X."""
    return at_linalg.linalg_solve(_mH(T), X)


def _solve_right_h(X, T):
    """X T^{-H}."""
    return at_linalg.linalg_solve(_mH(T), X, left=False)


def _unpack(LU):
    """(L, U) of a packed LU in ember ops: L unit lower (m x k), U upper (k x n)."""
    m, n = LU.shape[-2], LU.shape[-1]
    k = min(m, n)
    L = LU[..., :, :k].tril(-1) + at.eye(m, k, dtype=LU.dtype)
    return L, LU[..., :k, :].triu()


def _perm(LU, pivots):
    return at.lu_unpack(LU.detach(), pivots, unpack_data=False)[0]


def _acc(a, b):
    return b if a is None else (a if b is None else a + b)


def linalg_lu_backward(gL, gU, P, L, U, pivot=True):
    """gA = P L^{-H} phi U^{-H}, phi = tril_{-1}(L^H gL) + triu(gU U^H) for square A; the wide (m < n) and tall
    (m > n) cases split U = [U1 | U2] or L = [L1; L2] and fold the extra block's grad into phi."""
    if gL is None and gU is None:
        return None
    m, n = L.shape[-2], U.shape[-1]
    if m == n:
        phi = _acc(_mH(L).matmul(gL).tril(-1) if gL is not None else None,
                   gU.matmul(_mH(U)).triu() if gU is not None else None)
        return P.matmul(_solve_right_h(_solve_left_h(L, phi), U))
    if m < n:                                   # U = [U1 | U2], U1 square
        U1, U2 = U[..., :, :m], U[..., :, m:]
        gU1 = gU[..., :, :m] if gU is not None else None
        gU2 = gU[..., :, m:] if gU is not None else None
        low = _mH(L).matmul(gL) if gL is not None else None
        if gU2 is not None:
            low = _acc(low, -gU2.matmul(_mH(U2)))
        phi = _acc(low.tril(-1) if low is not None else None, gU1.matmul(_mH(U1)).triu() if gU1 is not None else None)
        g1 = _solve_right_h(_solve_left_h(L, phi), U1)
        g2 = _solve_left_h(L, gU2) if gU2 is not None else at.zeros_like(U2)
        return P.matmul(at.cat([g1, g2], -1))
    L1, L2 = L[..., :n, :], L[..., n:, :]       # tall: L = [L1; L2], L1 square
    gL1 = gL[..., :n, :] if gL is not None else None
    gL2 = gL[..., n:, :] if gL is not None else None
    up = gU.matmul(_mH(U)) if gU is not None else None
    if gL2 is not None:
        up = _acc(up, -_mH(L2).matmul(gL2))
    phi = _acc(up.triu() if up is not None else None, _mH(L1).matmul(gL1).tril(-1) if gL1 is not None else None)
    g1 = _solve_right_h(_solve_left_h(L1, phi), U)
    g2 = _solve_right_h(gL2, U) if gL2 is not None else at.zeros_like(L2)
    return P.matmul(at.cat([g1, g2], -2))


def lu_factor_ex_backward(grad, LU, pivots, pivot=True):
    """LU packs L's strict lower part and U's upper part: split the grad the same way."""
    if grad is None:
        return None
    m, n = LU.shape[-2], LU.shape[-1]
    k = min(m, n)
    L, U = _unpack(LU)
    return linalg_lu_backward(grad[..., :, :k].tril(-1), grad[..., :k, :].triu(), _perm(LU, pivots), L, U, pivot)


def lu_unpack_backward(gL, gU, sizes):
    """L = tril_{-1}(LU)[:, :k] + I, U = triu(LU)[:k]: scatter the grads back into LU's shape."""
    if gL is None and gU is None:
        return None
    m, n = sizes[-2], sizes[-1]
    k = min(m, n)
    batch = tuple(sizes[:-2])
    out = None
    if gL is not None:
        g = gL.tril(-1)
        if n > k:
            g = at.cat([g, at.zeros(batch + (m, n - k), dtype=g.dtype)], -1)
        out = g
    if gU is not None:
        g = gU.triu()
        if m > k:
            g = at.cat([g, at.zeros(batch + (m - k, n), dtype=g.dtype)], -2)
        out = _acc(out, g)
    return out


def linalg_lu_solve_backward(grad, LU, pivots, X, B, left, adjoint, grad_input_mask):
    """op(A) X = B (left) or X op(A) = B: gB = lu_solve(G, adjoint flipped); gA from gB and X; then gLU from
    A = P L U: tril_{-1}(P^T gA U^H) + triu(L^H P^T gA)."""
    if grad is None:
        return None, None
    gB = at_linalg.linalg_lu_solve(LU, pivots, grad, left=left, adjoint=not adjoint)
    gLU = None
    if grad_input_mask[0]:
        if left:
            gA = -X.matmul(_mH(gB)) if adjoint else -gB.matmul(_mH(X))
        else:
            gA = -_mH(gB).matmul(X) if adjoint else -_mH(X).matmul(gB)
        L, U = _unpack(LU)
        PtgA = _perm(LU, pivots).mT.matmul(gA)
        gLU = _sum_to(PtgA.matmul(_mH(U)).tril(-1) + _mH(L).matmul(PtgA).triu(), LU.shape)
    return gLU, (_sum_to(gB, B.shape) if grad_input_mask[1] else None)
