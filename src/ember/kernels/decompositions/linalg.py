"""CompositeImplicitAutograd linalg ops (torch's BatchLinearAlgebra.cpp / LinearAlgebra.cpp): the torch.linalg
front ends over the *_ex / _linalg_* kernels, the legacy names (inverse, det, svd, qr, cholesky, pinverse) and
matrix_power by repeated squaring."""

from ..common import _tname, c_type_name, check_out, warn_user
from ..out_rules import exact, linalg_castable, same, write_outs
from ..meta.linalg import check_matrix
from .shape import _to_out as _to_out_shape
from ..common import broadcast_shapes
from ..._core import dtype as D
from ..._core.strides import wrap_dim
from ..._ops import ops

aten = ops.aten
_LAPACK_DTYPES = (D.float32, D.float64, D.complex64, D.complex128)


def _to_out(r, out, rule):
    return write_outs((r,), (out,), rule, dispatch=True)[0]


def _to_outs(rs, outs, rule, order=None):
    return write_outs(rs, outs, rule, order, dispatch=True)


_PINV = linalg_castable("linalg.pinv")
_RANK = linalg_castable("torch.linalg.matrix_rank")
_TENSORDOT = same(lambda i, want, got: f"tensordot: Expected the output tensor to have dtype {_tname(want)}, but got an "
                                       f"output tensor with dtype {_tname(got)}")
_VECDOT = same(lambda i, want, got: f"linalg.vecdot: Expected out of dtype{_tname(want)} but found {_tname(got)}")
_MULTI_DOT = same(lambda i, want, got: f"multi_dot(): expected out tensor to have dtype {c_type_name(want)} but got "
                                       f"{c_type_name(got)}")


# ------------------------------------------------------------------ inverse / determinants / solve
def linalg_inv(A):
    return aten.linalg_inv_ex(A, check_errors=True)[0]


def linalg_inv_out(A, *, out):
    return _to_out(linalg_inv(A), out, exact)


inverse = linalg_inv
inverse_out = linalg_inv_out


def det(self):
    return aten.linalg_det(self)


def slogdet(self):
    return tuple(aten.linalg_slogdet(self))


def slogdet_out(self, *, sign, logabsdet):
    return _to_outs(slogdet(self), (sign, logabsdet), exact)


def logdet(self):
    s, l = aten.linalg_slogdet(self)
    return aten.where(s == -1, float("nan"), aten.where(s == 0, float("-inf"), l))


def linalg_solve(A, B, *, left=True):
    return aten.linalg_solve_ex(A, B, left=left, check_errors=True)[0]


def linalg_solve_out(A, B, *, left=True, out):
    return _to_out(linalg_solve(A, B, left=left), out, exact)


# ------------------------------------------------------------------ factorizations
def linalg_cholesky(self, *, upper=False):
    return aten.linalg_cholesky_ex(self, upper=upper, check_errors=True)[0]


def linalg_cholesky_out(self, *, upper=False, out):
    return _to_out(linalg_cholesky(self, upper=upper), out, exact)


def cholesky(self, upper=False):
    warn_user("torch.cholesky is deprecated in favor of torch.linalg.cholesky and will be removed in a future "
              "PyTorch release.")
    from ..cpu.linalg import cholesky_ex
    check_matrix(self, "cholesky")
    if self.device.type == "meta":
        return aten.linalg_cholesky_ex(self, upper=upper)[0]
    try:
        return aten.linalg_cholesky_ex(self, upper=upper, check_errors=True)[0]
    except RuntimeError as err:
        if "linalg.cholesky:" in str(err):
            return cholesky_ex(self, upper, True, "cholesky")[0]
        raise


def cholesky_out(self, upper=False, *, out):
    return _to_out(cholesky(self, upper), out, linalg_castable("cholesky"))


def qr(self, some=True):
    return tuple(aten.linalg_qr(self, "reduced" if some else "complete"))


def qr_Q(self, some=True, *, Q, R):
    return _to_outs(qr(self, some), (Q, R), exact)


def linalg_svd(A, full_matrices=True, *, driver=None):
    return tuple(aten._linalg_svd(A, full_matrices, True, driver=driver))


def linalg_svd_U(A, full_matrices=True, *, driver=None, U, S, Vh):
    return _to_outs(linalg_svd(A, full_matrices, driver=driver), (U, S, Vh), exact, (0, 2, 1))


def linalg_svdvals(A, *, driver=None):
    return aten._linalg_svd(A, False, False, driver=driver)[1]


def linalg_svdvals_out(A, *, driver=None, out):
    return _to_out(linalg_svdvals(A, driver=driver), out, exact)


def svd(self, some=True, compute_uv=True):
    U, S, Vh = aten._linalg_svd(self, not some, True)
    if not compute_uv:
        return U.zero_(), S, Vh.mT.zero_()
    return U, S, Vh.mH if hasattr(Vh, "mH") else Vh.transpose(-2, -1).conj()


def svd_U(self, some=True, compute_uv=True, *, U, S, V):
    return _to_outs(svd(self, some, compute_uv), (U, S, V), exact, (0, 2, 1))


def linalg_eigh(self, UPLO="L"):
    return tuple(aten._linalg_eigh(self, UPLO, True))


def linalg_eigh_eigvals(self, UPLO="L", *, eigvals, eigvecs):
    return _to_outs(linalg_eigh(self, UPLO), (eigvals, eigvecs), exact, (1, 0))


def linalg_eigvalsh(self, UPLO="L"):
    return aten._linalg_eigh(self, UPLO, False)[0]


def linalg_eigvalsh_out(self, UPLO="L", *, out):
    return _to_out(linalg_eigvalsh(self, UPLO), out, exact)


# ------------------------------------------------------------------ pinv / matrix_rank front ends
def _f(x):
    return None if x is None else (float(x.item()) if hasattr(x, "item") else float(x))


def linalg_pinv_atol_rtol_float_out(self, *, atol=None, rtol=None, hermitian=False, out):
    return _to_out(aten.linalg_pinv(self, atol=atol, rtol=rtol, hermitian=hermitian), out, _PINV)


def linalg_pinv_atol_rtol_tensor_out(self, *, atol=None, rtol=None, hermitian=False, out):
    r = aten.linalg_pinv.atol_rtol_tensor(self, atol=atol, rtol=rtol, hermitian=hermitian)
    return _to_out(r, out, _PINV)


def linalg_pinv(self, rcond, hermitian=False):
    return aten.linalg_pinv.atol_rtol_float(self, atol=0.0, rtol=_f(rcond), hermitian=hermitian)


def linalg_pinv_rcond_tensor(self, rcond, hermitian=False):
    # a Tensor rcond broadcasts over the batch (and stays on its device: no .item() on meta)
    return aten.linalg_pinv.atol_rtol_tensor(self, atol=None, rtol=rcond, hermitian=hermitian)


def linalg_pinv_out(self, rcond, hermitian=False, *, out):
    return _to_out(linalg_pinv(self, rcond, hermitian), out, _PINV)


def linalg_pinv_out_rcond_tensor(self, rcond, hermitian=False, *, out):
    return _to_out(linalg_pinv_rcond_tensor(self, rcond, hermitian), out, _PINV)


def pinverse(self, rcond=1e-15):
    return linalg_pinv(self, rcond)


def _rank(x, atol=None, rtol=None, hermitian=False):
    return aten.linalg_matrix_rank.atol_rtol_float(x, atol=atol, rtol=rtol, hermitian=hermitian)


def linalg_matrix_rank_atol_rtol_float_out(self, *, atol=None, rtol=None, hermitian=False, out):
    return _to_out(_rank(self, atol, rtol, hermitian), out, _RANK)


def linalg_matrix_rank_atol_rtol_tensor_out(input, *, atol=None, rtol=None, hermitian=False, out):
    r = aten.linalg_matrix_rank.atol_rtol_tensor(input, atol=atol, rtol=rtol, hermitian=hermitian)
    return _to_out(r, out, _RANK)


def linalg_matrix_rank(self, tol, hermitian=False):
    return _rank(self, _f(tol), 0.0, hermitian)


def linalg_matrix_rank_out(self, tol, hermitian=False, *, out):
    return _to_out(linalg_matrix_rank(self, tol, hermitian), out, _RANK)


def linalg_matrix_rank_tol_tensor(self, tol, hermitian=False):
    return aten.linalg_matrix_rank.atol_rtol_tensor(self, atol=tol, rtol=None, hermitian=hermitian)


def linalg_matrix_rank_out_tol_tensor(self, tol, hermitian=False, *, out):
    return _to_out(linalg_matrix_rank_tol_tensor(self, tol, hermitian), out, _RANK)


# ------------------------------------------------------------------ matrix_power
def linalg_matrix_power(self, n):
    if self.dim() < 2:
        raise RuntimeError("linalg.matrix_power: The input tensor A must have at least 2 dimensions.")
    if self._size[-1] != self._size[-2]:
        raise RuntimeError(f"linalg.matrix_power: A must be batches of square matrices, but they are "
                           f"{self._size[-2]} by {self._size[-1]} matrices")
    if n == 0:      # torch writes the identity into a copy of A: the result has A's history (CopyBackwards)
        eye = aten.eye(self._size[-1], dtype=self.dtype, device=self.device).expand(self._size)
        return aten.copy_.default(self.clone(memory_format="contiguous_format"), eye)
    a = aten.linalg_inv(self) if n < 0 else self
    n = abs(n)
    if n == 1:
        return a.clone(memory_format="contiguous_format")
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
    """torch checks castability first; n outside {0, 1} writes through an inverse or matmul out= kernel,
    which wants `out` of exactly the result's dtype."""
    r = linalg_matrix_power(self, n)
    linalg_castable("matrix_power")(0, r.dtype, out)
    return _to_out(r, out, linalg_castable("matrix_power") if n in (0, 1) else exact)


matrix_power_out = linalg_matrix_power_out


# ------------------------------------------------------------------ eigvals / matrix_exp / products / cond
def linalg_eigvals(self):
    return aten.linalg_eig(self)[0]


def linalg_eigvals_out(self, *, out):
    return _to_out(linalg_eigvals(self), out, linalg_castable("torch.linalg.eigvals", ("eigenvalues",)))


def matrix_exp(self):
    return aten.linalg_matrix_exp(self)


def _should_fold(t1, t2):
    """torch's should_fold: fold the larger operand's batch into mm/mv rows when that needs no copy (or when
    the smaller operand requires grad, which keeps its gradient from growing a batch dimension)."""
    larger = t1.dim() >= t2.dim()
    a = t1 if larger else t2.mT
    small_dim = t2.dim() if larger else t1.dim()
    if not (a.dim() >= 3 and small_dim <= 2):
        return False
    if (t2 if larger else t1).requires_grad:
        return True
    if t1.dim() == 2:
        return False
    if a.numel() == 0:
        return True
    size, stride = a._size, a.stride()
    return all(stride[i] == stride[i + 1] * size[i + 1] for i in range(a.dim() - 2))


def matmul(self, other):
    """torch's matmul composite (LinearAlgebra.cpp _matmul_impl), run when autograd records: dot, mv, mm, the
    folded mm/mv of a batch against a matrix or vector, else an expanded bmm, each ending in torch's node. The
    CPU kernel of the op (one np.matmul) answers calls that need no grad."""
    from ..meta.linalg_matmul import matmul_spec
    matmul_spec(self, other)            # torch's messages for every shape and dtype mismatch
    d1, d2 = self.dim(), other.dim()
    if d1 == 1 and d2 == 1:
        return aten.dot.default(self, other)
    if d1 == 2 and d2 == 1:
        return aten.mv.default(self, other)
    if d1 == 1 and d2 == 2:
        return aten.squeeze_.dim(aten.mm.default(aten.unsqueeze.default(self, 0), other), 0)   # torch's in-place
    if d1 == 2 and d2 == 2:
        return aten.mm.default(self, other)
    if _should_fold(self, other):
        transpose = d2 > d1
        t1 = other.mT if transpose else self
        t2 = (self.t() if d1 == 2 else self) if transpose else other
        out_shape = list(t1._size[:-1])
        rows = 1
        for n in out_shape:
            rows *= n
        folded = aten.reshape.default(t1, [rows, t1._size[-1]])
        if t2.dim() == 2:
            out = aten._unsafe_view.default(aten.mm.default(folded, t2), out_shape + [t2._size[1]])
            return out.mT.contiguous() if transpose else out
        return aten._unsafe_view.default(aten.mv.default(folded, t2), out_shape)
    n = self._size[-2] if d1 > 1 else 1
    m1 = self._size[-1]
    m2 = other._size[-2] if d2 > 1 else other._size[0]
    p = other._size[-1] if d2 > 1 else 1
    batch = list(broadcast_shapes(tuple(self._size[:max(d1 - 2, 0)]), tuple(other._size[:max(d2 - 2, 0)])))
    nb = 1
    for b in batch:
        nb *= b
    a = aten.reshape.default(aten.expand.default(self, batch + [n, m1]), [nb, n, m1])
    b = aten.expand.default(other, batch + ([m2, p] if d2 > 1 else [m2]))
    if d2 == 1:
        b = aten.unsqueeze.default(b, -1)
    b = aten.reshape.default(b, [nb, m2, p])
    out_shape = batch + ([n] if d1 > 1 else []) + ([p] if d2 > 1 else [])
    r = aten.bmm.default(a, b)
    return aten._unsafe_view.default(aten.squeeze.dim(r, -1) if d2 == 1 else r, out_shape)


def linalg_matmul(self, other):
    return self.matmul(other)


def linalg_matmul_out(self, other, *, out):
    return _to_out(self.matmul(other), out, exact)


def linalg_vecdot(x, y, *, dim=-1):
    if x.dtype is not y.dtype:
        from ..common import _tname
        raise RuntimeError(f"linalg.vecdot: Expected x and y to have the same dtype, but found x of type "
                           f"{_tname(x.dtype)} and y of type {_tname(y.dtype)} instead")
    return ((x.conj() if x.dtype.is_complex else x) * y).sum(dim)


def linalg_vecdot_out(x, y, *, dim=-1, out):
    return _to_out(linalg_vecdot(x, y, dim=dim), out, _VECDOT)


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
    if n == 3:      # torch's choice of the cheaper parenthesisation of (a x b)(b x c)(c x d)
        a, b, c, d = mats[0]._size[0], mats[1]._size[0], mats[2]._size[0], mats[2]._size[1]
        if (a * c) * (b + d) > (b * d) * (a + c):
            r = mats[0].mm(mats[1].mm(mats[2]))
        else:
            r = mats[0].mm(mats[1]).mm(mats[2])
    else:
        r = mats[0]
        for m in mats[1:]:
            r = r.mm(m)
    # like torch, the 2-D product is viewed as the output shape (a 1-D end drops its dim)
    out_shape = ([mats[0]._size[0]] if first == 2 else []) + ([mats[-1]._size[1]] if last == 2 else [])
    return r.view(out_shape)


def linalg_multi_dot_out(tensors, *, out):
    return _to_out(linalg_multi_dot(tensors), out, _MULTI_DOT)


def linalg_cond(self, p=None):
    """torch's composite: ord None/±2 divides the extreme singular values and squeezes (SqueezeBackward1); the
    other orders multiply the norms of A and of its inverse (inf where A is singular), then nan_to_num_."""
    check_matrix(self, "linalg.cond", square=False)
    if self.numel() == 0:       # NumPy leaves the condition number of 0x0 matrices undefined; torch gives 0
        real = self.real if self.dtype.is_complex else self
        return aten.zeros(list(self._size[:-2]), dtype=real.dtype)
    check_matrix(self, "linalg.cond", square=p not in (None, 2, -2))
    if p in (None, 2, -2):
        s = aten.linalg_svdvals(self)
        k = s._size[-1]
        big, small = aten.narrow.default(s, -1, 0, 1), aten.narrow.default(s, -1, k - 1, 1)
        return aten.squeeze.dim(big / small if p != -2 else small / big, -1)
    inverse, info = aten.linalg_inv_ex(self)
    inverse = aten.masked_fill.Scalar(inverse, (info > 0).unsqueeze(-1).unsqueeze(-1), float("inf"))
    norm = aten.linalg_matrix_norm.str_ord if isinstance(p, str) else aten.linalg_matrix_norm.default
    r = norm(self, p) * norm(inverse, p)
    return aten.nan_to_num_.default(r, 0.0, float("inf"), float("-inf"))


def linalg_cond_out(self, p=None, *, out):
    return _to_out(linalg_cond(self, p), out, linalg_castable("linalg.cond"))


linalg_cond_p_str = linalg_cond
linalg_cond_p_str_out = linalg_cond_out


def triangular_solve(self, A, upper=True, transpose=False, unitriangular=False):
    warn_user("torch.triangular_solve is deprecated in favor of torch.linalg.solve_triangularand will be removed "
              "in a future PyTorch release.")
    a = A.mT if transpose else A
    x = aten.linalg_solve_triangular(a, self, upper=upper != transpose, unitriangular=unitriangular)
    batch = x._size[:-2]
    return x, A.expand(tuple(batch) + tuple(A._size[-2:])).mT.clone(memory_format="contiguous_format").mT


def outer(self, vec2):
    for name, t in (("self", self), ("vec2", vec2)):
        if t.dim() != 1:
            raise RuntimeError(f"outer: Expected 1-D argument {name}, but got {t.dim()}-D")
    return self.reshape(-1, 1) * vec2


def outer_out(self, vec2, *, out):
    return _to_out_shape(outer(self, vec2), out, "outer")


ger = outer


ger_out = outer_out


def kron(self, other):
    nd = max(self.dim(), other.dim())
    a = (1,) * (nd - self.dim()) + tuple(self._size)
    b = (1,) * (nd - other.dim()) + tuple(other._size)
    ra = [x for s in a for x in (s, 1)]
    rb = [x for s in b for x in (1, s)]
    prod = aten.mul.Tensor(self.reshape(ra), other.reshape(rb))
    return aten._unsafe_view.default(prod, [x * y for x, y in zip(a, b)])     # as torch's (UnsafeViewBackward0)


def kron_out(self, other, *, out):
    return _to_out_shape(kron(self, other), out, "kron")


def cross(self, other, dim=None):
    if dim is None:
        warn_user("Using torch.cross without specifying the dim arg is deprecated.\nPlease either pass the dim "
                  "explicitly or simply use torch.linalg.cross.\nThe default value of dim will change to agree "
                  "with that of linalg.cross in a future release.")
        if self.dim() != other.dim():
            raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")
        sizes = broadcast_shapes(self._size, other._size)
        dim = next((i for i, s in enumerate(sizes) if s == 3), None)
        if dim is None:
            raise RuntimeError("no dimension of size 3 in input")
    return aten.linalg_cross(self, other, dim=dim)


def cross_out(self, other, dim=None, *, out):
    return _to_out_shape(cross(self, other, dim), out, "cross", exact)


def tensordot(self, other, dims_self, dims_other):
    ds = [wrap_dim(d, self.dim()) for d in dims_self]
    do = [wrap_dim(d, other.dim()) for d in dims_other]
    if len(ds) != len(do):
        raise RuntimeError("both dimension lists should have same length")
    k = 1
    for a, b in zip(ds, do):
        if self._size[a] != other._size[b]:
            raise RuntimeError(f"contracted dimensions need to match, but first has size {self._size[a]} in dim {a} "
                               f"and second has size {other._size[b]} in dim {b}")
        k *= self._size[a]
    free_s = [i for i in range(self.dim()) if i not in ds]
    free_o = [i for i in range(other.dim()) if i not in do]
    m = n = 1
    for i in free_s:
        m *= self._size[i]
    for i in free_o:
        n *= other._size[i]
    t1 = self.permute(free_s + ds).reshape(m, k)
    t2 = other.permute(do + free_o).reshape(k, n)
    return t1.mm(t2).reshape([self._size[i] for i in free_s] + [other._size[i] for i in free_o])


def tensordot_out(self, other, dims_self, dims_other, *, out):
    return _to_out_shape(tensordot(self, other, dims_self, dims_other), out, "tensordot", _TENSORDOT)


def _prod(xs):
    p = 1
    for x in xs:
        p *= x
    return p


def _sumproduct_pair(a, b, sum_dims):
    """sum over sum_dims of a * b (both aligned to the same dims, size-1 where absent) as one bmm:
    a -> (batch, left-only, summed), b -> (batch, summed, right-only). With nothing to sum it is a product, as in
    torch (which then promotes mixed dtypes where a bmm refuses them)."""
    if not sum_dims:
        return aten.mul.Tensor(a, b)
    nd = a.dim()
    pre_a = [d for d in sum_dims if a._size[d] != 1 and b._size[d] == 1]
    pre_b = [d for d in sum_dims if b._size[d] != 1 and a._size[d] == 1]
    if pre_a:
        a = a.sum(pre_a, keepdim=True)
    if pre_b:
        b = b.sum(pre_b, keepdim=True)
    sums = [d for d in sum_dims if a._size[d] != 1 and b._size[d] != 1]
    rest = [d for d in range(nd) if d not in sums]
    lro = [d for d in rest if a._size[d] != 1 and b._size[d] != 1]
    lo = [d for d in rest if a._size[d] != 1 and b._size[d] == 1]
    ro = [d for d in rest if a._size[d] == 1 and b._size[d] != 1]
    ones = [d for d in rest if a._size[d] == 1 and b._size[d] == 1]
    bs, los, ros, ss = ([a._size[d] for d in lro], [a._size[d] for d in lo], [b._size[d] for d in ro],
                        [a._size[d] for d in sums])
    a2 = a.permute(lro + lo + sums + ro + ones).reshape(_prod(bs), _prod(los), _prod(ss))
    b2 = b.permute(lro + sums + ro + lo + ones).reshape(_prod(bs), _prod(ss), _prod(ros))
    r = a2.bmm(b2).reshape(bs + los + ros + [1] * (len(sums) + len(ones)))
    order = lro + lo + ro + sums + ones
    inv = [0] * nd
    for i, d in enumerate(order):
        inv[d] = i
    return r.permute(inv)


def _einsum_labels(equation, tensors):
    """(labels per operand, output labels) with the ellipsis expanded into right-aligned placeholder labels."""
    from collections import Counter
    lhs, arrow, rhs = equation.replace(" ", "").partition("->")
    terms = lhs.split(",")
    ell_n = max((t.dim() - len(term.replace("...", "")) for term, t in zip(terms, tensors) if "..." in term), default=0)
    ell = [chr(0x100 + i) for i in range(ell_n)]

    def expand(term, k):
        if "..." not in term:
            return list(term)
        pre, post = term.split("...")
        return list(pre) + ell[ell_n - k:] + list(post)
    ops = [expand(term, t.dim() - len(term.replace("...", ""))) for term, t in zip(terms, tensors)]
    if arrow:
        pre, dots, post = rhs.partition("...")
        out = list(pre) + (ell if dots else []) + list(post)
    else:
        counts = Counter(c for term in terms for c in term.replace("...", ""))
        out = ell + sorted(c for c, n in counts.items() if n == 1)
    return ops, out


def einsum(equation, tensors, *, path=None):
    """Operands are aligned to one label order (output labels first), repeated labels become diagonals,
    and the operands are contracted left to right with bmm, summing each label once no later operand has it."""
    from ..meta.shape import einsum_shape
    tensors = list(tensors)
    einsum_shape(equation, tensors, check_dtypes=False)      # torch's checks
    op_labels, out_labels = _einsum_labels(equation, tensors)
    all_labels = out_labels + [c for c in dict.fromkeys(c for ls in op_labels for c in ls) if c not in out_labels]
    pos = {c: i for i, c in enumerate(all_labels)}
    ops = []
    for t, labels in zip(tensors, op_labels):
        labels = list(labels)
        dup = next((c for c in labels if labels.count(c) > 1), None)
        while dup is not None:
            i = labels.index(dup)
            j = labels.index(dup, i + 1)
            t = t.diagonal(0, i, j)
            labels = [c for k, c in enumerate(labels) if k not in (i, j)] + [dup]
            dup = next((c for c in labels if labels.count(c) > 1), None)
        order = sorted(range(len(labels)), key=lambda k: pos[labels[k]])
        t = t.permute(order)
        shape = [1] * len(all_labels)
        for k, s in zip(order, t._size):
            shape[pos[labels[k]]] = s
        ops.append(t.reshape(shape))
    n_out = len(out_labels)
    result = ops[0]
    for k in range(1, len(ops)):
        later = ops[k + 1:]
        sum_dims = [d for d in range(n_out, len(all_labels)) if all(o._size[d] == 1 for o in later)]
        result = _sumproduct_pair(result, ops[k], sum_dims)
    if len(all_labels) == n_out:
        return result
    if len(ops) == 1:               # torch sums a lone operand's contracted labels away (SumBackward1)
        return result.sum(list(range(n_out, len(all_labels))))
    rest = [d for d in range(n_out, len(all_labels)) if result._size[d] != 1]
    if rest:
        result = result.sum(rest, keepdim=True)
    return result.reshape(list(result._size[:n_out]))       # torch's final view drops the contracted labels


def linear(input, weight, bias=None):
    if input.dim() == 2 and bias is not None:
        return aten.addmm.default(bias, input, aten.t.default(weight))
    if input.dim() != 2 and bias is not None and weight.dim() == 2 and input.is_contiguous():
        # torch's _flatten_nd_linear: (..., k) as (rows, k) through addmm, viewed back (ViewBackward0)
        rows = 1
        for n in input._size[:-1]:
            rows *= n               # not view(-1, k): k may be 0
        out = aten.addmm.default(bias, aten.view.default(input, [rows, input._size[-1]]), aten.t.default(weight))
        return aten.view.default(out, list(input._size[:-1]) + [weight._size[0]])
    if input.dim() >= 3 and bias is None and weight.dim() == 2:
        # torch's matmul folds the batch dims into one mm and ends in _unsafe_view
        rows = 1
        for n in input._size[:-1]:
            rows *= n
        out = aten.mm.default(aten.reshape.default(input, [rows, input._size[-1]]), aten.t.default(weight))
        return aten._unsafe_view.default(out, list(input._size[:-1]) + [weight._size[0]])
    out = aten.matmul.default(input, aten.t.default(weight))
    return out if bias is None else aten.add.Tensor(out, bias)


def trilinear_composite(i1, i2, i3, expand1, expand2, expand3, sumdim):
    """sum over `sumdim` of i1 * i2 * i3, each operand unsqueezed at its `expand` dims into one index space:
    one einsum (pairwise contractions), so it is differentiable in ember ops."""
    nd = i1.dim() + len(expand1)
    letters = "abcdefghijklmnopqrstuvwxyz"[:nd]
    specs = ["".join(letters[d] for d in range(nd) if d not in set(e)) for e in (expand1, expand2, expand3)]
    everywhere = set(expand1) & set(expand2) & set(expand3)
    kept = [d for d in range(nd) if d not in set(sumdim) and d not in everywhere]
    r = aten.einsum.default(",".join(specs) + "->" + "".join(letters[d] for d in kept), [i1, i2, i3])
    for d in range(nd):             # a dim none of the operands has stays as size 1, as torch's does
        if d in everywhere and d not in set(sumdim):
            r = aten.unsqueeze.default(r, d - sum(1 for s in sumdim if s < d))
    return r


def _trilinear(i1, i2, i3, expand1, expand2, expand3, sumdim, unroll_dim=1):
    """torch's _trilinear (the kernel bilinear reduces to); its node is TrilinearBackward0."""
    return trilinear_composite(i1, i2, i3, list(expand1), list(expand2), list(expand3), list(sumdim)).contiguous()


def bilinear(input1, input2, weight, bias=None):
    """torch's composite: both inputs flattened to matrices, _trilinear against the weight, the result viewed
    back to the batch shape (ViewBackward0), plus bias."""
    if input1.dim() != input2.dim():
        raise RuntimeError(f"bilinear(): input dimensions do not match: got {input1.dim()} and {input2.dim()}")
    for i in range(input1.dim() - 1):
        if input1._size[i] != input2._size[i]:
            raise RuntimeError(f"bilinear(): input batch dimensions do not match: got {input1._size[i]} and "
                               f"{input2._size[i]}")
    if input1._size[-1] != weight._size[1]:
        raise RuntimeError(f"bilinear(): input1 size does not match weight size: got {input1._size[-1]} but "
                           f"expected {weight._size[1]}")
    if input2._size[-1] != weight._size[2]:
        raise RuntimeError(f"bilinear(): input2 size does not match weight size: got {input2._size[-1]} but "
                           f"expected {weight._size[2]}")
    if bias is not None and bias._size[0] != weight._size[0]:
        raise RuntimeError(f"bilinear(): bias size does not match weight size: got {bias._size[0]} but expected "
                           f"{weight._size[0]}")
    out_shape = list(input1._size[:-1]) + [weight._size[0]]
    a = aten.reshape.default(input1, [-1, input1._size[-1]])
    b = aten.reshape.default(input2, [-1, input2._size[-1]])
    out = aten.reshape.default(aten._trilinear.default(a, weight, b, [1, 3], [0], [1, 2], [2, 3]), out_shape)
    return out if bias is None else aten.add.Tensor(out, bias)


def _not_floating(kernel, dtype):
    """ATen's dispatch error for a LAPACK kernel called with a dtype it has no instance for."""
    from ..common import _tn
    return NotImplementedError(f'"{kernel}" not implemented for \'{_tn(dtype)}\'')


def _column_major(r):
    """LAPACK's layout, which torch's results keep: batches of column-major matrices."""
    return r.mT.contiguous().mT


def _hh_check(input, tau):
    from ..common import _tn
    pre = "torch.linalg.householder_product: "
    if input.dim() < 2:
        raise RuntimeError(pre + "input must have at least 2 dimensions.")
    m, n = input.shape[-2], input.shape[-1]
    if m < n:
        raise RuntimeError(pre + "input.shape[-2] must be greater than or equal to input.shape[-1]")
    if n < tau.shape[-1] if tau.dim() else False:
        raise RuntimeError(pre + "input.shape[-1] must be greater than or equal to tau.shape[-1]")
    if tau.dim() != input.dim() - 1:
        raise RuntimeError(pre + f"Expected tau to have one dimension less than input, but got tau.ndim equal to "
                           f"{tau.dim()} and input.ndim is equal to {input.dim()}")
    if tuple(tau.shape[:-1]) != tuple(input.shape[:-2]):
        raise RuntimeError(pre + "Expected batch dimensions of tau to be equal to input.shape[:-2], but got "
                           f"[{', '.join(str(s) for s in tau.shape[:-1])}]")
    if tau.dtype is not input.dtype:
        raise RuntimeError(pre + f"tau dtype {_tn(tau.dtype)} does not match input dtype {_tn(input.dtype)}")
    if input.dtype not in _LAPACK_DTYPES:
        raise _not_floating("orgqr_cpu", input.dtype)


def householder_product_composite(input, tau):
    """The first n columns of H_0 H_1 ... H_{k-1}, H_i = I - tau_i v_i v_i^H, v_i = column i of `input` below
    the diagonal with an implicit 1 on it (LAPACK's orgqr). One rank-1 update per reflector, in ember ops, so
    it is differentiable: the kernel of linalg_householder_product and, through autograd, its backward."""
    m, n, k = input.shape[-2], input.shape[-1], tau.shape[-1]
    rows = aten.arange(m, device=input.device).unsqueeze(-1)                     # (m, 1)
    Q = aten.eye(m, n, dtype=input.dtype, device=input.device).expand(*input.shape[:-2], m, n)
    for i in range(k - 1, -1, -1):
        col = input[..., :, i:i + 1]                                   # (*, m, 1)
        v = aten.where(rows > i, col, (rows == i).to(input.dtype))
        Q = Q - tau[..., i:i + 1].unsqueeze(-1) * (v @ (v.mH @ Q))
    return Q


def linalg_householder_product(input, tau):
    _hh_check(input, tau)
    return _column_major(householder_product_composite(input, tau))


def orgqr(self, input2):
    """torch.orgqr: an alias of linalg.householder_product (its node is LinalgHouseholderProductBackward0)."""
    return aten.linalg_householder_product.default(self, input2)


def orgqr_out(self, input2, *, out):
    return aten.linalg_householder_product.out(self, input2, out=out)


def _ormqr_check(input, tau, other, left):
    from ..common import _tn
    pre = "torch.ormqr: "
    if input.dim() < 2:
        raise RuntimeError(pre + "input must have at least 2 dimensions.")
    if other.dim() < 2:
        raise RuntimeError(pre + "other must have at least 2 dimensions.")
    side = -2 if left else -1
    if other.shape[side] != input.shape[-2]:
        raise RuntimeError(pre + f"other.shape[{side}] must be equal to input.shape[-2]")
    if min(other.shape[side], input.shape[-1]) != (tau.shape[-1] if tau.dim() else 1):
        raise RuntimeError(pre + f"tau.shape[-1] must be equal to min(other.shape[{side}], input.shape[-1])")
    if input.dim() - tau.dim() != 1:
        raise RuntimeError(pre + f"Expected tau to have one dimension less than input, but got tau.ndim equal to "
                           f"{tau.dim()} and input.ndim is equal to {input.dim()}")
    if input.dim() != other.dim():
        raise RuntimeError(pre + f"Expected other to have the same number of dimensions as input, but got other.ndim "
                           f"equal to {other.dim()} and input.ndim is equal to {input.dim()}")
    if input.dim() > 2:
        batch = tuple(input.shape[:-2])
        for name, got in (("tau", tuple(tau.shape[:-1])), ("other", tuple(other.shape[:-2]))):
            if got != batch:
                raise RuntimeError(pre + f"Expected batch dimensions of {name} to be equal to input.shape[:-2], but "
                                   f"got [{', '.join(str(s) for s in got)}]")
    for name, t in (("tau", tau), ("other", other)):
        if t.dtype is not input.dtype:
            raise RuntimeError(pre + f"Expected input and {name} to have the same dtype, but input has dtype"
                               f"{_tn(input.dtype)} and {name} has dtype {_tn(t.dtype)}")


def ormqr_composite(input, tau, other, left=True, transpose=False):
    """op(Q) @ other (left) or other @ op(Q), Q the mn x mn product of the reflectors (input, tau) and op the
    conjugate transpose when `transpose`: Q is formed by the differentiable householder product over the
    reflector columns padded with identity reflectors (tau 0)."""
    mn, r = input.shape[-2], tau.shape[-1]
    batch = list(input.shape[:-2])
    A = aten.narrow.default(input, -1, 0, r)
    if r < mn:
        A = aten.cat.default([A, aten.zeros(batch + [mn, mn - r], dtype=input.dtype, device=input.device)], -1)
        tau = aten.cat.default([tau, aten.zeros(batch + [mn - r], dtype=tau.dtype, device=tau.device)], -1)
    Q = householder_product_composite(A, tau)
    if transpose:
        Q = Q.mH
    return Q @ other if left else other @ Q


def ormqr(self, input2, input3, left=True, transpose=False):
    _ormqr_check(self, input2, input3, left)
    if self.dtype not in _LAPACK_DTYPES:
        raise _not_floating("ormqr_cpu", self.dtype)
    return _column_major(ormqr_composite(self, input2, input3, left, transpose))


def ormqr_out(self, input2, input3, left=True, transpose=False, *, out):
    from ..common import _tn
    _ormqr_check(self, input2, input3, left)
    if out.dtype is not self.dtype:
        raise RuntimeError(f"torch.ormqr: Expected input and result to have the same dtype, but input has dtype"
                           f"{_tn(self.dtype)} and result has dtype {_tn(out.dtype)}")
    return _to_out(ormqr(self, input2, input3, left, transpose), out, exact)


# ------------------------------------------------------------------ inner, chain_matmul (issue 19)
def inner(self, other):
    """Sum over the last dims of both (tensordot over -1, -1); a 0-d operand just multiplies."""
    if self.dim() == 0 or other.dim() == 0:
        return aten.mul.Tensor(self, other)
    if self._size[-1] != other._size[-1]:
        raise RuntimeError(f"inner() the last dimension must match on both input tensors but got shapes "
                           f"{list(self._size)} and {list(other._size)}")
    return aten.tensordot.default(self, other, [-1], [-1])


def inner_out(self, other, *, out):
    if self.dim() == 0 or other.dim() == 0:
        return aten.mul.out(self, other, out=out)
    r = inner(self, other)
    if out.dtype is not r.dtype:
        raise RuntimeError(f"tensordot: Expected the output tensor to have dtype {_tname(r.dtype)}, but got an output "
                           f"tensor with dtype {_tname(out.dtype)}")
    return _to_out_shape(r, out, "inner")


_CHAIN_MATMUL = ("torch.chain_matmul is deprecated and will be removed in a future PyTorch release. Use "
                 "torch.linalg.multi_dot instead, which accepts a list of two or more tensors rather than multiple "
                 "parameters.")


_WARNED = set()


def warn_once(message):
    """TORCH_WARN_ONCE: a warning given once per process."""
    if message not in _WARNED:
        _WARNED.add(message)
        warn_user(message)


def _chain_checks(matrices):
    warn_once(_CHAIN_MATMUL)
    for t in matrices:
        if t.dim() != 2:
            raise RuntimeError(f"Tensor dimension is {t.dim()}, expected 2 instead.")
    if not matrices:
        raise RuntimeError("chain_matmul(): Expected one or more matrices")


def chain_matmul(matrices):
    matrices = list(matrices)
    _chain_checks(matrices)
    if len(matrices) == 1:
        return aten.clone.default(matrices[0])
    return aten.linalg_multi_dot.default(matrices)


def chain_matmul_out(matrices, *, out):
    matrices = list(matrices)
    _chain_checks(matrices)
    if len(matrices) == 1:
        check_out(out, matrices[0]._size, matrices[0].dtype, "chain_matmul")
        return out.copy_(matrices[0])
    return aten.linalg_multi_dot.out(matrices, out=out)


# ---------------------------------------------------------------- Vandermonde matrices
def _powers(x, n):
    """[x^0, x^1, ..., x^(n-1)] along a new last dim: a column of ones, then the running product of x (cumprod
    promotes integers to int64, as torch's does)."""
    shape = list(x._size)
    rest = aten.cumprod.default(aten.expand.default(aten.unsqueeze.default(x, -1), shape + [n - 1]), -1)
    return aten.cat.default([aten.new_ones.default(rest, shape + [1]), rest], -1)


def vander(x, N=None, increasing=False):
    if x.dim() != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    n = x._size[0] if N is None else N
    if n < 0:
        raise RuntimeError("N must be non-negative.")
    dt = D.promote_types(x.dtype, D.int64)
    if n <= 1:
        r = aten.ones.default([x._size[0], n], dtype=dt, device=x.device)
    else:
        r = _powers(aten._to_copy.default(x, dtype=dt) if x.dtype != dt else x, n)
    return r if increasing else aten.flip.default(r, [1])


def linalg_vander(x, *, N=None):
    t = x.dtype
    if not (t in (D.float32, D.float64, D.complex64, D.complex128) or (not t.is_floating_point and not t.is_complex
                                                                     and t != D.bool_)):
        raise RuntimeError(f"linalg.vander supports floating point, complex, and integer tensors, but got {_tname(t)}")
    x = aten.unsqueeze.default(x, -1) if x.dim() == 0 else x
    n = x._size[-1] if N is None else N
    if n <= 1:
        raise RuntimeError("N must be greater than 1.")
    return _powers(x, n)
