"""CompositeImplicitAutograd decompositions of shape and indexing ops into other ember ops (torch's
TensorShape.cpp, TensorAdvancedIndexing.cpp, Linear.cpp, Repeat.cpp): they run through the dispatcher
again, so autograd, modes and meta all see the underlying ops."""
import warnings

from .._core import dtype as D
from .._core.strides import wrap_dim
from .meta.shape import ilist
from .common import _tname, broadcast_shapes, check_out
from .meta.index import bshape


def _e():
    import ember
    return ember


def _fmt(xs):
    return "[" + ", ".join(str(x) for x in xs) + "]"


def _to_out(r, out, name):
    check_out(out, r._size, r.dtype, name)
    return out.copy_(r)


# ------------------------------------------------------------------ take_along_dim / argwhere / where(cond)
def take_along_dim(self, indices, dim=None):
    if indices.dtype is not D.int64:
        raise RuntimeError(f"torch.take_along_dim(): dtype of indices should be Long but got {_tname(indices.dtype)}")
    if dim is None:
        return self.reshape(-1).gather(0, indices.reshape(-1))
    if self.dim() != indices.dim():
        raise RuntimeError("torch.take_along_dim(): input and indices should have the same number of dimensions, but "
                           f"got {self.dim()} dimensions for input, and {indices.dim()} dimensions for indices")
    d = wrap_dim(dim, self.dim())
    s = list(self._size)
    if s:
        s[d] = indices._size[d]
    shape = broadcast_shapes(tuple(s), indices._size)
    idx = indices.broadcast_to(shape)
    s = list(shape)
    if s:
        s[d] = self._size[d]
    return self.broadcast_to(s).gather(d, idx)


def take_along_dim_out(self, indices, dim=None, *, out):
    return _to_out(take_along_dim(self, indices, dim), out, "take_along_dim")


def argwhere(self):
    return self.nonzero()


def where(condition):
    c = condition.unsqueeze(0) if condition.dim() == 0 else condition
    return list(c.nonzero().unbind(1))


# ------------------------------------------------------------------ repeat_interleave / tile / flips / rot90
def repeat_interleave_self_Tensor(self, repeats, dim=None, *, output_size=None):
    x = self.flatten() if dim is None else self
    d = 0 if dim is None else wrap_dim(dim, self.dim())
    n = x._size[d] if x.dim() else 1
    if repeats.dim() == 0 or (repeats.dim() == 1 and repeats._size[0] == 1):
        repeats = repeats.reshape(1).expand(n)
    elif repeats.dim() == 1:
        if repeats._size[0] != n:
            raise RuntimeError(f"repeats must have the same size as input along dim, but got repeats.size(0) = "
                               f"{repeats._size[0]} and input.size({d}) = {n}")
    else:
        raise RuntimeError("repeats must be 0-dim or 1-dim tensor")
    return x.index_select(d, _e().repeat_interleave(repeats, output_size=output_size))


def repeat_interleave_self_int(self, repeats, dim=None, *, output_size=None):
    r = _e().scalar_tensor(repeats, dtype=D.int64, device=self.device)
    return repeat_interleave_self_Tensor(self, r, dim, output_size=output_size)


def tile(self, dims):
    dims = ilist(dims)
    if len(dims) < self.dim():
        dims = [1] * (self.dim() - len(dims)) + dims
    return self.repeat(dims)


def fliplr(self):
    if self.dim() < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return self.flip([1])


def flipud(self):
    if self.dim() < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return self.flip([0])


def rot90(self, k=1, dims=(0, 1)):
    dims = ilist(dims)
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if self.dim() < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {self.dim()}")
    d0, d1 = wrap_dim(dims[0], self.dim()), wrap_dim(dims[1], self.dim())
    if d0 == d1:
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {d0} and dim1 = {d1}")
    k %= 4
    if k == 1:
        return self.flip([d1]).transpose(d0, d1)
    if k == 2:
        return self.flip([d0, d1])
    if k == 3:
        return self.flip([d0]).transpose(d0, d1)
    return self.clone(memory_format=_e().contiguous_format)


# ------------------------------------------------------------------ diag / diagflat
def diag(self, diagonal=0):
    if self.dim() == 1:
        return _e().diag_embed(self, diagonal)
    if self.dim() == 2:
        return self.diagonal(diagonal).clone(memory_format=_e().contiguous_format)
    raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {self.dim()}D")


def diag_out(self, diagonal=0, *, out):
    return _to_out(diag(self, diagonal), out, "diag")


def diagflat(self, offset=0):
    return _e().diag_embed(self.reshape(-1), offset)


# ------------------------------------------------------------------ outer / kron / cross / tensordot
def outer(self, vec2):
    for name, t in (("self", self), ("vec2", vec2)):
        if t.dim() != 1:
            raise RuntimeError(f"outer: Expected 1-D argument {name}, but got {t.dim()}-D")
    return self.reshape(-1, 1) * vec2


def outer_out(self, vec2, *, out):
    return _to_out(outer(self, vec2), out, "outer")


ger = outer
ger_out = outer_out


def kron(self, other):
    nd = max(self.dim(), other.dim())
    a = (1,) * (nd - self.dim()) + tuple(self._size)
    b = (1,) * (nd - other.dim()) + tuple(other._size)
    ra = [x for s in a for x in (s, 1)]
    rb = [x for s in b for x in (1, s)]
    return (self.reshape(ra) * other.reshape(rb)).reshape([x * y for x, y in zip(a, b)])


def kron_out(self, other, *, out):
    return _to_out(kron(self, other), out, "kron")


def cross(self, other, dim=None):
    if dim is None:
        warnings.warn("Using torch.cross without specifying the dim arg is deprecated.\nPlease either pass the dim "
                      "explicitly or simply use torch.linalg.cross.\nThe default value of dim will change to agree "
                      "with that of linalg.cross in a future release.", UserWarning)
        if self.dim() != other.dim():
            raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")
        sizes = broadcast_shapes(self._size, other._size)
        dim = next((i for i, s in enumerate(sizes) if s == 3), None)
        if dim is None:
            raise RuntimeError("no dimension of size 3 in input")
    return _e()._linalg.linalg_cross(self, other, dim=dim)


def cross_out(self, other, dim=None, *, out):
    return _to_out(cross(self, other, dim), out, "cross")


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
    return _to_out(tensordot(self, other, dims_self, dims_other), out, "tensordot")


# ------------------------------------------------------------------ broadcasting and grids
def broadcast_to(self, size):
    return self.expand(list(size))


def broadcast_tensors(tensors):
    shape = bshape(*[t._size for t in tensors])
    return [t.expand(shape) for t in tensors]


def meshgrid(tensors):
    warnings.warn("torch.meshgrid: in an upcoming release, it will be required to pass the indexing argument.",
                  UserWarning)
    return meshgrid_indexing(tensors, indexing="ij")


def meshgrid_indexing(tensors, *, indexing):
    tensors = list(tensors)
    if not tensors:
        raise RuntimeError("meshgrid expects a non-empty TensorList")
    for t in tensors[1:]:
        if t.dtype is not tensors[0].dtype:
            raise RuntimeError("meshgrid expects all tensors to have the same dtype")
    for t in tensors:
        if t.dim() > 1:
            raise RuntimeError(f"torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: {t}")
    if indexing not in ("xy", "ij"):
        raise RuntimeError(f'torch.meshgrid: indexing must be one of "xy" or "ij", but received: {indexing}')
    swap = indexing == "xy" and len(tensors) >= 2
    if swap:
        tensors[0], tensors[1] = tensors[1], tensors[0]
    shape = [t.numel() for t in tensors]
    grids = []
    for i, t in enumerate(tensors):
        view = [1] * len(tensors)
        view[i] = -1
        grids.append(t.reshape(view).expand(shape))
    if swap:
        grids[0], grids[1] = grids[1], grids[0]
    return grids


def cartesian_prod(tensors):
    for t in tensors:
        if t.dim() != 1:
            raise RuntimeError(f"Expect a 1D vector, but got shape {_fmt(t._size)}")
    if len(tensors) == 1:
        return tensors[0]
    grids = meshgrid_indexing(tensors, indexing="ij")
    return _e().stack([g.flatten() for g in grids], 1)


def combinations(self, r=2, with_replacement=False):
    if self.dim() != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {_fmt(self._size)}")
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return self.new_empty([0])
    e = _e()
    n = self._size[0]
    idx = meshgrid_indexing([e.arange(n, device=self.device)] * r, indexing="ij")
    mask = e.ones(idx[0]._size, dtype=e.bool, device=self.device)
    for a, b in zip(idx, idx[1:]):
        mask = mask & (a <= b if with_replacement else a < b)
    grids = meshgrid_indexing([self] * r, indexing="ij")
    return e.stack([g.masked_select(mask) for g in grids], 1)


# ------------------------------------------------------------------ einsum (ATen's Linear.cpp algorithm)
def _prod(xs):
    p = 1
    for x in xs:
        p *= x
    return p


def _sumproduct_pair(a, b, sum_dims):
    """sum over sum_dims of a * b (both aligned to the same dims, size-1 where absent) as one bmm:
    a -> (batch, left-only, summed), b -> (batch, summed, right-only)."""
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
    from .meta.shape import einsum_shape
    tensors = list(tensors)
    einsum_shape(equation, tensors)                  # torch's checks
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
    rest = [d for d in range(n_out, len(all_labels)) if result._size[d] != 1]
    if rest:
        result = result.sum(rest, keepdim=True)
    for _ in range(len(all_labels) - n_out):
        result = result.squeeze(-1)
    return result
