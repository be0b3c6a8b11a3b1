"""cpu kernels for mm, bmm, mv, dot, addmm, baddbmm, addbmm, addmv, addr, matmul: checks and result shape from
kernels/meta/linalg_matmul.py, then one np.matmul (or np.dot) call.

matmul is a direct CPU+Meta kernel here (torch's is CompositeImplicitAutograd over mm/bmm with
views); it becomes a decomposition once reshape/expand land."""
import numpy as np

from ..._core import dtype as _dt
from ..._core.tensor_impl import TensorImpl as Tensor
from ..meta.elementwise_common import check_inplace
from ..meta.linalg_matmul import (addbmm_spec, addmm_spec, addmv_spec, addr_spec, baddbmm_spec, bmm_spec, dot_spec, matmul_spec,
                                 mm_spec, mv_spec)
from .runtime import gemm as _gemm


_wrap_fresh = Tensor._wrap_fresh


def _result(arr, shape, dt):
    arr = np.asarray(arr, dtype=dt._np).reshape(shape)
    return Tensor._wrap_np(arr if arr.flags.c_contiguous else arr.copy(), dt)


def _acc(x):
    a = x._np
    return a.astype(np.float32) if a.dtype.kind == "f" and a.dtype.itemsize < 4 or a.dtype.kind == "V" else a


def _make(spec):
    def k(self, other):
        if spec is mm_spec:
            r = _mm_fast(self, other)
            if r is not None:
                return r
        elif spec is bmm_spec:
            r = _bmm_fast(self, other)
            if r is not None:
                return r
        shape, dt = spec(self, other)
        return _result(np.matmul(_acc(self), _acc(other)), shape, dt)
    k.__name__ = spec.__name__[:-5]
    return k


mm = _make(mm_spec)
bmm = _make(bmm_spec)
mv = _make(mv_spec)
dot = _make(dot_spec)


_FAST = (np.dtype(np.float32), np.dtype(np.float64))
_F32, _F64 = _dt.float32, _dt.float64


_SERIAL = _gemm.OPENBLAS_SERIAL


def _mm_fast(self, other):
    """The product of two float32/float64 matrices of one dtype whose shapes fit: `ndarray.dot`'s fresh
    c-contiguous result wrapped as it is (no spec, no cast, no copy); None for every other case. For 2-D
    arrays dot is numpy's matrix product by the same BLAS calls as np.matmul (gemm, syrk for x @ x.T), bit for
    bit the same result for C- or Fortran-ordered operands (tests/core/test_matmul.py; an operand with a non-unit
    inner stride may differ in the last bits, by CPU), at half the call's cost (an 8x8 product in ~2.5 us).
    Products big enough for threads run split over ember's pool (runtime/gemm.py: the same BLAS calls on
    blocks of rows, the same bits)."""
    dt = self.dtype
    if dt is other.dtype and (dt is _F32 or dt is _F64):
        sa, sb = self._size, other._size
        if len(sa) == 2 and len(sb) == 2 and sa[1] == sb[0]:
            a, b = self._np, other._np
            if a is not None and b is not None:
                if sa[0] * sa[1] * sb[1] > _SERIAL:
                    r = _gemm.mm(a, b)
                    if r is not None:
                        return _wrap_fresh(r, dt)
                return _wrap_fresh(a.dot(b), dt)
    return None


def _bmm_fast(self, other):
    """bmm of two float32/float64 (B, M, K), (B, K, N) stacks of one dtype big enough for threads, split over
    ember's pool (runtime/gemm.py: numpy's own BLAS call per matrix, the same bits); None otherwise."""
    dt = self.dtype
    if dt is other.dtype and (dt is _F32 or dt is _F64):
        sa, sb = self._size, other._size
        if (len(sa) == 3 and len(sb) == 3 and sa[0] == sb[0] and sa[2] == sb[1]
                and sa[0] * sa[1] * sa[2] * sb[2] > _SERIAL):
            a, b = self._np, other._np
            if a is not None and b is not None:
                r = _gemm.bmm(a, b)
                if r is not None:
                    return _wrap_fresh(r, dt)
    return None


def matmul(self, other):
    r = _mm_fast(self, other)
    if r is not None:
        return r
    a, b = self._np, other._np
    if (a is not None and b is not None and a.ndim > 2 and a.shape[:-2] == b.shape[:-2] and a.dtype in _FAST
            and b.dtype == a.dtype and a.shape[-1] == b.shape[-2] and self.dtype is other.dtype):
        r = None
        if a.size * b.shape[-1] > _SERIAL:          # (attention's q @ k^T over the pool, one call per matrix)
            r = _gemm.bmm(a, b)
        if r is None:
            r = np.matmul(a, b)     # a batched product without broadcasting: no spec, no cast
        if r.flags.c_contiguous:
            return _wrap_fresh(r, self.dtype)
    shape, dt = matmul_spec(self, other)
    a, b = _acc(self), _acc(other)
    if a.ndim > 2 and b.ndim == 2 and a.flags.c_contiguous:
        a2 = a.reshape(-1, a.shape[-1])              # one gemm, not one per batch
        r = _gemm.mm(a2, b) if a.size * b.shape[-1] > _SERIAL else None
        return _result(np.matmul(a2, b) if r is None else r, shape, dt)
    return _result(_gemm.matmul(a, b), shape, dt)


def _addmm_split(self, mat1, mat2):
    """bias + mat1 @ mat2 (beta = alpha = 1) of one float dtype split over ember's pool, the bias added by each
    block as it is computed (runtime/gemm.py; the same bits as the product then np.add), or None."""
    dt = self.dtype
    if dt is mat1.dtype and dt is mat2.dtype and (dt is _F32 or dt is _F64):
        sa, sb = mat1._size, mat2._size
        if len(sa) == 2 and len(sb) == 2 and sa[1] == sb[0] and sa[0] * sa[1] * sb[1] > _SERIAL:
            a, b, c = mat1._np, mat2._np, self._np
            if a is not None and b is not None and c is not None:
                r = _gemm.mm(a, b, c)
                if r is not None:
                    return _wrap_fresh(r, dt)
    return None


def addmm(self, mat1, mat2, *, beta=1, alpha=1):
    if beta.__class__ is int and beta == 1 and alpha.__class__ is int and alpha == 1:
        r = _addmm_split(self, mat1, mat2)
        if r is not None:
            return r
        r = _mm_fast(mat1, mat2)       # a Linear's forward: bias + x @ w^T, all of one float dtype
        if r is not None:
            c = self._np
            if (c is not None and self.dtype is r.dtype and c.dtype == r._np.dtype
                    and (c.shape == r._np.shape or c.shape == r._np.shape[1:])):
                np.add(r._np, c, out=r._np)
                return r
    shape, dt = addmm_spec(self, mat1, mat2)
    r = _gemm.matmul(_acc(mat1), _acc(mat2))       # (split over the pool when big: the same bits)
    if alpha != 1:
        r = r * alpha
    if beta != 0:   # beta == 0 ignores self entirely (nan/inf in self do not propagate), like torch
        b = beta * _acc(self) if beta != 1 else _acc(self)
        if r.shape == shape and np.can_cast(b.dtype, r.dtype, "same_kind") and np.result_type(r, b) == r.dtype:
            np.add(r, b, out=r)         # r is fresh: add the (broadcast) bias in place, no second array
        else:
            r = r + b
    return _result(np.broadcast_to(r, shape), shape, dt)


def _scaled_sum(self, prod, beta, alpha, shape, dt):
    """beta * self + alpha * prod broadcast to `shape`; beta == 0 ignores self (its nan/inf too), like torch."""
    r = prod * alpha if alpha != 1 else prod
    if beta != 0:
        b = _acc(self)
        r = r + (b * beta if beta != 1 else b)
    return _result(np.broadcast_to(r, shape), shape, dt)


def baddbmm(self, batch1, batch2, *, beta=1, alpha=1):
    shape, dt = baddbmm_spec(self, batch1, batch2)
    return _scaled_sum(self, _gemm.matmul(_acc(batch1), _acc(batch2)), beta, alpha, shape, dt)


def addbmm(self, batch1, batch2, *, beta=1, alpha=1):
    shape, dt = addbmm_spec(self, batch1, batch2)
    prod = _gemm.matmul(_acc(batch1), _acc(batch2)).sum(axis=0) if batch1._size[0] else np.zeros(shape, _acc(self).dtype)
    return _scaled_sum(self, prod, beta, alpha, shape, dt)


def addmv(self, mat, vec, *, beta=1, alpha=1):
    shape, dt = addmv_spec(self, mat, vec)
    return _scaled_sum(self, np.matmul(_acc(mat), _acc(vec)), beta, alpha, shape, dt)


def addr(self, vec1, vec2, *, beta=1, alpha=1):
    shape, dt = addr_spec(self, vec1, vec2, beta, alpha)
    a, b = vec1._np.astype(dt._np), vec2._np.astype(dt._np)
    if dt._np == np.bool_:                 # torch's boolean addr: (beta and self) or (alpha and vec1 outer vec2)
        r = np.logical_and(np.outer(a, b), bool(alpha))
        if beta:
            r = np.logical_or(r, self._np)
        return _result(np.broadcast_to(r, shape), shape, dt)
    c = self._np.astype(dt._np) if beta != 0 else None
    r = np.outer(a, b) * alpha if alpha != 1 else np.outer(a, b)
    if c is not None:
        r = r + (c * beta if beta != 1 else c)
    return _result(np.broadcast_to(r, shape), shape, dt)


def _inplace(name, functional):
    def f(self, *args, **kw):
        r = functional(self, *args, **kw)
        check_inplace(self, r._size, r.dtype, name)
        np.copyto(self._np, r._np, casting="unsafe")
        return self
    f.__name__ = name + "_"
    return f


baddbmm_ = _inplace("baddbmm", baddbmm)
addmv_ = _inplace("addmv", addmv)
addbmm_ = _inplace("addbmm", addbmm)
addr_ = _inplace("addr", addr)
