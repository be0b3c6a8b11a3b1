"""CompositeImplicitAutograd decompositions of shape and indexing ops into other ember ops (torch's
TensorShape.cpp, TensorAdvancedIndexing.cpp, Linear.cpp, Repeat.cpp): they run through the dispatcher
again, so autograd, modes and meta all see the underlying ops."""

from ..._core import dtype as D
from ..._core.strides import wrap_dim
from ..meta.shape import ilist
from ..common import check_out, warn_user
from ..out_rules import exact
from ..meta.index import bshape
from ..meta.view import _fmt as _fmt_view
from ..._ops import ops

aten = ops.aten


def _fmt(xs):
    return "[" + ", ".join(str(x) for x in xs) + "]"


def _to_out(r, out, name, rule=None):
    """Copy a composite's result into `out` (through the dispatcher) after torch's check (`rule`, one of
    kernels/out_rules.py; TensorIterator's castable rule by default)."""
    check_out(out, r._size, r.dtype, name, rule)
    return out.copy_(r)


# ------------------------------------------------------------------ take_along_dim / argwhere / where(cond)


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
    return x.index_select(d, aten.repeat_interleave(repeats, output_size=output_size))


def repeat_interleave_self_int(self, repeats, dim=None, *, output_size=None):
    """torch's composite: each slice repeated by expanding a new dim after `dim`, copied and flattened into it
    (the graph ends in ViewBackward0, as torch's)."""
    x = self.flatten() if dim is None else self
    d = wrap_dim(0 if dim is None else dim, self.dim())
    if repeats < 0:
        raise RuntimeError("Repeats must be non-negative")
    x = aten.unsqueeze.default(x, d + 1)
    shape = list(x._size)
    shape[d + 1] = repeats
    if output_size is not None and output_size != repeats * shape[d]:
        raise RuntimeError(f"repeat_interleave: Invalid output_size, expected {repeats * shape[d]} but got "
                           f"{output_size}")
    x = aten.clone.default(aten.expand.default(x, shape), memory_format="contiguous_format")
    return aten.flatten.using_ints(x, d, d + 1)


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
    # the flip comes last so that the result is fresh (not a view: rot90 is an op with its own node,
    # Rot90Backward0); flip keeps the transposed layout, the strides of torch's flip + transpose_
    if k == 1:
        return self.transpose(d0, d1).flip([d0])
    if k == 2:
        return self.flip([d0, d1])
    if k == 3:
        return self.transpose(d0, d1).flip([d1])
    return self.clone(memory_format="contiguous_format")


# ------------------------------------------------------------------ diag / diagflat
def diag(self, diagonal=0):
    if self.dim() == 1:
        return aten.diag_embed(self, diagonal)
    if self.dim() == 2:
        return aten.diagonal_copy.default(self, diagonal)        # as torch (DiagonalBackward0_copy)
    raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {self.dim()}D")


def diag_out(self, diagonal=0, *, out):
    return _to_out(diag(self, diagonal), out, "diag", exact)


def diagflat(self, offset=0):
    return aten.diag_embed(self.reshape(-1), offset)


# ------------------------------------------------------------------ outer / kron / cross / tensordot


# ------------------------------------------------------------------ broadcasting and grids
def broadcast_to(self, size):
    return self.expand(list(size))


def broadcast_tensors(tensors):
    shape = bshape(*[t._size for t in tensors])
    return [t if t._size == shape else t.expand(shape) for t in tensors]     # torch returns a fitting input as is


def meshgrid(tensors):
    warn_user("torch.meshgrid: in an upcoming release, it will be required to pass the indexing argument.")
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
    return aten.stack([g.flatten() for g in grids], 1)


def combinations(self, r=2, with_replacement=False):
    if self.dim() != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {_fmt(self._size)}")
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return self.new_empty([0])
    n = self._size[0]
    idx = meshgrid_indexing([aten.arange(n, device=self.device)] * r, indexing="ij")
    mask = aten.ones(idx[0]._size, dtype=D.bool_, device=self.device)
    for a, b in zip(idx, idx[1:]):
        mask = mask & (a <= b if with_replacement else a < b)
    grids = meshgrid_indexing([self] * r, indexing="ij")
    return aten.stack([g.masked_select(mask) for g in grids], 1)


# ------------------------------------------------------------------ einsum (ATen's Linear.cpp algorithm)


def atleast_1d(self):
    return aten.reshape.default(self, [1]) if self.dim() == 0 else self


def atleast_2d(self):
    if self.dim() == 0:
        return aten.reshape.default(self, [1, 1])        # a view, as torch's (ViewBackward0)
    return aten.unsqueeze.default(self, 0) if self.dim() == 1 else self


def atleast_3d(self):
    """(n,) -> (1, n, 1) and (m, n) -> (m, n, 1), as numpy's atleast_3d."""
    if self.dim() == 0:
        return aten.reshape.default(self, [1, 1, 1])
    if self.dim() == 1:
        return aten.unsqueeze.default(aten.unsqueeze.default(self, 0), -1)
    if self.dim() == 2:
        return aten.unsqueeze.default(self, -1)
    return self


def _stack_operands(name, tensors, shape_fn):
    ts = [shape_fn(t) for t in tensors]
    if not ts:
        raise RuntimeError(f"{name} expects a non-empty TensorList")
    return ts


def _hstack_args(tensors):
    ts = _stack_operands("hstack", tensors, atleast_1d)
    return ts, 0 if ts[0].dim() == 1 else 1


def _column_stack_args(tensors):
    def column(t):
        return aten.reshape.default(t, [t.numel(), 1]) if t.dim() <= 1 else t
    return _stack_operands("column_stack", tensors, column), 1


def concat(tensors, dim=0, *, out=None):
    """torch.concat / torch.concatenate: numpy's names for cat."""
    return aten.cat(tensors, dim) if out is None else aten.cat(tensors, dim, out=out)


def hstack(tensors):
    return aten.cat.default(*_hstack_args(tensors))


def hstack_out(tensors, *, out):
    return aten.cat.out(*_hstack_args(tensors), out=out)


def vstack(tensors):
    return aten.cat.default(_stack_operands("vstack", tensors, atleast_2d), 0)


def vstack_out(tensors, *, out):
    return aten.cat.out(_stack_operands("vstack", tensors, atleast_2d), 0, out=out)


def dstack(tensors):
    return aten.cat.default(_stack_operands("dstack", tensors, atleast_3d), 2)


def dstack_out(tensors, *, out):
    return aten.cat.out(_stack_operands("dstack", tensors, atleast_3d), 2, out=out)


def column_stack(tensors):
    return aten.cat.default(*_column_stack_args(tensors))


def column_stack_out(tensors, *, out):
    return aten.cat.out(*_column_stack_args(tensors), out=out)
