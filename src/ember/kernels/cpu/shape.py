"""cpu kernels for repeat/roll/flip, triangles and diagonals, cross, block_diag, narrow_copy and
searchsorted/bucketize: one numpy call each (np.tile, np.roll, np.flip, np.tril, np.cross,
np.searchsorted). Shapes and checks come from meta/shape_ops.py."""
import numpy as np

from ..._core import dtype as D
from ..._core.tensor_impl import TensorImpl as Tensor
from ..common import check_out, empty_tensor
from ..meta import shape as M
from ..meta.view import diagonal as _diagonal_view, narrow as _narrow_view


def _wrap(arr, dtype, strides=None):
    arr = np.asarray(arr)
    if arr.dtype != dtype._np:
        arr = arr.astype(dtype._np)
    if strides is None:
        return Tensor._wrap_np(np.ascontiguousarray(arr) if arr.ndim else arr.copy(), dtype)
    out = empty_tensor(arr.shape, dtype, strides=strides)
    if arr.size:
        out._np[...] = arr
    return out


def _copy_out(r, out, name):
    check_out(out, r._size, r.dtype, name)
    np.copyto(out._np, r._np, casting="unsafe")
    return out


# ------------------------------------------------------------------ repeat / repeat_interleave / roll / flip
def repeat(self, repeats):
    padded, reps, shape = M.repeat_shape(self, repeats)
    return _wrap(np.tile(self._np.reshape(padded), reps).reshape(shape), self.dtype)


def repeat_interleave_Tensor(repeats, *, output_size=None):
    M.repeat_interleave_check(repeats)
    r = repeats._np
    if (r < 0).any():
        raise RuntimeError("repeats can not be negative")
    res = np.repeat(np.arange(r.shape[0], dtype=r.dtype), r)
    if output_size is not None and res.shape[0] != output_size:
        raise RuntimeError("allocated size does not match required size")
    return _wrap(res, repeats.dtype)


def roll(self, shifts, dims=()):
    shifts, ds = M.roll_dims(self, shifts, dims)
    a = self._np
    if ds is None:
        return _wrap(np.roll(a.reshape(-1), shifts[0]).reshape(a.shape), self.dtype)
    return _wrap(np.roll(a, shifts, axis=ds), self.dtype)


def flip(self, dims):
    ds = M.flip_dims(self, dims)
    r = M.flip(self, dims)
    return _wrap(np.flip(self._np, axis=ds) if ds and self.dim() else self._np, self.dtype, r.stride())


# ------------------------------------------------------------------ tril / triu / diag_embed / trace
def tril(self, diagonal=0):
    M.tri_check(self, "tril")
    return _wrap(np.tril(self._np, diagonal), self.dtype)


def triu(self, diagonal=0):
    M.tri_check(self, "triu")
    return _wrap(np.triu(self._np, diagonal), self.dtype)


def tril_(self, diagonal=0):
    M.tri_check(self, "tril")
    if self.numel():
        self._np[...] = np.tril(self._np, diagonal)
    return self


def triu_(self, diagonal=0):
    M.tri_check(self, "triu")
    if self.numel():
        self._np[...] = np.triu(self._np, diagonal)
    return self


def tril_out(self, diagonal=0, *, out):
    return _copy_out(tril(self, diagonal), out, "tril")


def triu_out(self, diagonal=0, *, out):
    return _copy_out(triu(self, diagonal), out, "triu")


def diag_embed(self, offset=0, dim1=-2, dim2=-1):
    d1, d2, shape = M.diag_embed_shape(self, offset, dim1, dim2)
    out = _wrap(np.zeros(shape, self.dtype._np), self.dtype)
    view = _diagonal_view(out, offset, d1, d2)
    if view.numel():
        view._np[...] = self._np.reshape(view._size)
    return out


def trace(self):
    dt = M.trace_dtype(self)
    return _wrap(np.trace(self._np, dtype=dt._np), dt)


# ------------------------------------------------------------------ cross / block_diag
def linalg_cross(self, other, *, dim=-1):
    d, shape, dt = M.cross_spec(self, other, dim)
    a = np.broadcast_to(self._np.astype(dt._np, copy=False), shape)
    b = np.broadcast_to(other._np.astype(dt._np, copy=False), shape)
    return _wrap(np.cross(a, b, axis=d) if a.size else np.zeros(shape, dt._np), dt)


def linalg_cross_out(self, other, *, dim=-1, out):
    return _copy_out(linalg_cross(self, other, dim=dim), out, "linalg_cross")


def block_diag(tensors):
    shape, dt = M.block_diag_spec(tensors)
    out = np.zeros(shape, dt._np)
    r = c = 0
    for t in tensors:
        a = t._np.reshape((1, 1) if t.dim() == 0 else ((1, -1) if t.dim() == 1 else t._size))
        out[r:r + a.shape[0], c:c + a.shape[1]] = a
        r, c = r + a.shape[0], c + a.shape[1]
    return _wrap(out, dt)


# ------------------------------------------------------------------ narrow_copy
def narrow_copy(self, dim, start, length):
    return _wrap(_narrow_view(self, dim, start, length)._np, self.dtype)


def narrow_copy_out(self, dim, start, length, *, out):
    return _copy_out(narrow_copy(self, dim, start, length), out, "narrow_copy")


# ------------------------------------------------------------------ searchsorted / bucketize
def _searchsorted(seq, vals, right, sorter):
    if sorter is not None:
        seq = np.take_along_axis(seq, sorter, -1)
    side = "right" if right else "left"
    if seq.ndim == 1:
        return np.searchsorted(seq, vals, side=side)
    # batched: count the boundaries below each value in one broadcast comparison while that stays small,
    # else one np.searchsorted per boundary row
    if seq.shape[-1] * vals.size <= 1 << 24:
        cmp = np.less_equal if right else np.less
        return cmp(seq[..., None, :], vals[..., :, None]).sum(-1)
    s2, v2 = seq.reshape(-1, seq.shape[-1]), vals.reshape(-1, vals.shape[-1])
    return np.stack([np.searchsorted(a, b, side=side) for a, b in zip(s2, v2)]).reshape(vals.shape)


def searchsorted_Tensor(sorted_sequence, self, *, out_int32=False, right=False, side=None, sorter=None):
    right, shape, dt = M.searchsorted_spec(sorted_sequence, self, out_int32, right, side, sorter)
    vals = self._np if isinstance(self, Tensor) else np.asarray(self)
    r = _searchsorted(sorted_sequence._np, vals, right, None if sorter is None else sorter._np)
    return _wrap(np.asarray(r).reshape(shape), dt)


searchsorted_Scalar = searchsorted_Tensor


def searchsorted_Tensor_out(sorted_sequence, self, *, out_int32=False, right=False, side=None, sorter=None, out):
    r = searchsorted_Tensor(sorted_sequence, self, out_int32=out_int32, right=right, side=side, sorter=sorter)
    return _copy_out(r, out, "searchsorted")


searchsorted_Scalar_out = searchsorted_Tensor_out


def bucketize_Tensor(self, boundaries, *, out_int32=False, right=False):
    M.bucketize_check(boundaries)
    return searchsorted_Tensor(boundaries, self, out_int32=out_int32, right=right)


bucketize_Scalar = bucketize_Tensor


def bucketize_Tensor_out(self, boundaries, *, out_int32=False, right=False, out):
    return _copy_out(bucketize_Tensor(self, boundaries, out_int32=out_int32, right=right), out, "bucketize")


# ------------------------------------------------------------------ tril_indices / triu_indices (factories)
def _tri_indices(fn, row, col, offset, dtype, device):
    from ..._core.device import as_device
    from ..common import as_dtype
    if row < 0:
        raise RuntimeError(f"row must be non-negative, got{row}")
    if col < 0:
        raise RuntimeError(f"col must be non-negative, got{col}")
    dt = as_dtype(dtype) or D.int64
    r = np.stack(fn(row, offset, col)) if row and col else np.zeros((2, 0), np.int64)
    out = empty_tensor(r.shape, dt, as_device(device) or as_device("cpu"))
    if out._np is not None and r.size:
        out._np[...] = r
    return out


def tril_indices(row, col, offset=0, *, dtype=None, layout=None, device=None, pin_memory=None):
    return _tri_indices(np.tril_indices, row, col, offset, dtype, device)


def triu_indices(row, col, offset=0, *, dtype=None, layout=None, device=None, pin_memory=None):
    return _tri_indices(np.triu_indices, row, col, offset, dtype, device)
