"""Meta functions for repeat/roll/flip, triangles and diagonals, cross, einsum checks, block_diag, unfold,
narrow_copy and searchsorted/bucketize (ATen's TensorShape.cpp, TensorTransformations.cpp, Bucketization.cpp):
torch's checks and output shapes/dtypes. unfold is a view and serves cpu and meta alike."""
from ..._core.symint import size_int
from ..._core import dtype as D
from ..._core.device import META
from ..._core.promotion import result_type
from ..._core.strides import dense_strides_like, wrap_dim
from ..._core.tensor_impl import TensorImpl as Tensor
from ..common import _tname, broadcast_shapes, check_out, empty_tensor
from ..out_rules import exact, NARROW_COPY, resize_silently
from .view import narrow as _narrow_view
from .copy import channels_last_strides
from ..._core.strides import contiguous_strides
from ..._core.strides import is_channels_last


def _fmt(xs):
    return "[" + ", ".join(str(x) for x in xs) + "]"


def ilist(x):
    """An int[] argument as a list (a bare int is a one-element list, as torch's int[1])."""
    return [size_int(x)] if isinstance(x, int) or hasattr(x, "__index__") and not hasattr(x, "__len__") else \
        [size_int(v) for v in x]


def _t(shape, dtype, strides=None):
    return empty_tensor(shape, dtype, META, strides)


# ------------------------------------------------------------------ repeat / repeat_interleave / roll / flip
def repeat_shape(self, repeats):
    repeats = tuple(ilist(repeats))
    if len(repeats) < self.dim():
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor")
    padded = (1,) * (len(repeats) - self.dim()) + tuple(self._size)
    shape = tuple(a * b for a, b in zip(padded, repeats))
    for s in shape:
        if s < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: {_fmt(shape)}")
    return padded, repeats, shape


def repeat(self, repeats):
    return _t(repeat_shape(self, repeats)[2], self.dtype)


def repeat_interleave_check(repeats):
    if repeats.dim() != 1:
        raise RuntimeError("repeat_interleave only accept 1D vector as repeat")
    if repeats.dtype not in (D.int64, D.int32):
        raise NotImplementedError(f"\"repeat_interleave_cpu\" not implemented for '{_tname(repeats.dtype)}'")


def repeat_interleave_Tensor(repeats, *, output_size=None):
    repeat_interleave_check(repeats)
    if output_size is None:
        raise NotImplementedError("aten::repeat_interleave.Tensor: the output shape depends on the data, which meta "
                                  "tensors do not have (pass output_size)")
    return _t((output_size,), repeats.dtype)


def roll_dims(self, shifts, dims):
    shifts, dims = ilist(shifts), ilist(dims)
    if not dims:
        if len(shifts) != 1:
            raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:0")
        return shifts, None
    if len(shifts) != len(dims):
        raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:{len(dims)}")
    return shifts, [wrap_dim(d, self.dim()) for d in dims]


def roll(self, shifts, dims=()):
    roll_dims(self, shifts, dims)
    return _t(self._size, self.dtype)


def flip_dims(self, dims):
    ds = [wrap_dim(d, self.dim()) for d in ilist(dims)]
    for d in ds:
        if ds.count(d) > 1:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
    return ds


def flip(self, dims):
    flip_dims(self, dims)
    return _t(self._size, self.dtype, dense_strides_like(self._size, self.stride()))


# ------------------------------------------------------------------ tril / triu / diag_embed / trace
def tri_check(self, name):
    if self.dim() < 2:
        raise RuntimeError(f"{name}: input tensor must have at least 2 dimensions")


def tril(self, diagonal=0):
    tri_check(self, "tril")
    return _t(self._size, self.dtype)


def triu(self, diagonal=0):
    tri_check(self, "triu")
    return _t(self._size, self.dtype)


def tril_(self, diagonal=0):
    tri_check(self, "tril")
    return self


def triu_(self, diagonal=0):
    tri_check(self, "triu")
    return self


def tril_out(self, diagonal=0, *, out):
    tri_check(self, "tril")
    check_out(out, self._size, self.dtype, "tril", exact)
    return out


def triu_out(self, diagonal=0, *, out):
    tri_check(self, "triu")
    check_out(out, self._size, self.dtype, "triu", exact)
    return out


def diag_embed_shape(self, offset=0, dim1=-2, dim2=-1):
    nd = self.dim() + 1
    d1, d2 = wrap_dim(dim1, nd), wrap_dim(dim2, nd)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    n = (self._size[-1] if self.dim() else 1) + abs(offset)
    rest = list(self._size[:-1])
    for d in sorted((d1, d2)):
        rest.insert(d, n)
    return d1, d2, tuple(rest)


def diag_embed(self, offset=0, dim1=-2, dim2=-1):
    return _t(diag_embed_shape(self, offset, dim1, dim2)[2], self.dtype)


# ------------------------------------------------------------------ cross / einsum / block_diag


def _einsum_terms(term, t, k):
    """(letters, ellipsis dims) of one operand's subscripts."""
    letters = term.replace("...", "")
    ell = term.find("...")
    n_ell = t.dim() - len(letters)
    if (ell < 0 and n_ell != 0) or n_ell < 0:
        raise RuntimeError(f"einsum(): the number of subscripts in the equation ({len(letters)}) does not match the "
                           f"number of dimensions ({t.dim()}) for operand {k}"
                           + ("" if ell >= 0 else " and no ellipsis was given"))
    return letters, ell, n_ell


def einsum_shape(equation, tensors, check_dtypes=True):
    """Output shape and dtype of einsum(equation, tensors) (ATen's Linear.cpp einsum parsing). check_dtypes=False
    (the decomposition) leaves mixed dtypes to the pairwise ops, as torch does: a product promotes, a bmm
    refuses them unless autocast casts its operands."""
    eq = equation.replace(" ", "")
    lhs, arrow, rhs = eq.partition("->")
    terms = lhs.split(",")
    if len(terms) > len(tensors):
        raise RuntimeError("einsum(): fewer operands were provided than specified in the equation")
    if len(terms) < len(tensors):
        raise RuntimeError("einsum(): more operands were provided than specified in the equation")
    sizes, counts, ell_shape = {}, {}, ()
    for k, (term, t) in enumerate(zip(terms, tensors)):
        letters, ell, n_ell = _einsum_terms(term, t, k)
        dims = list(t._size)
        if ell >= 0:
            pos = len(term[:ell])
            ell_shape = broadcast_shapes(ell_shape, tuple(dims[pos:pos + n_ell]))
            del dims[pos:pos + n_ell]
        for c, n in zip(letters, dims):
            if not c.isalpha():
                raise RuntimeError(f"einsum(): invalid subscript given at index {k} in the equation string, subscripts "
                                   "must be in [a-zA-Z]")
            counts[c] = counts.get(c, 0) + 1
            prev = sizes.get(c)
            if prev is not None and prev != n and prev != 1 and n != 1:
                raise RuntimeError(f"einsum(): subscript {c} has size {n} for operand {k} which does not broadcast "
                                   f"with previously seen size {prev}")
            sizes[c] = n if prev in (None, 1) else prev
    if not arrow:
        rhs = "..." + "".join(sorted(c for c, n in counts.items() if n == 1))
    out, seen = [], set()
    for j, part in enumerate(rhs.split("...")):
        if j:
            out.extend(ell_shape)
        for c in part:
            if c not in sizes:
                raise RuntimeError(f"einsum(): output subscript {c} does not appear in the equation for any input operand")
            if c in seen:
                raise RuntimeError(f"einsum(): output subscript {c} appears more than once in the output")
            seen.add(c)
            out.append(sizes[c])
    shape = tuple(out)
    dt = tensors[0].dtype
    for t in tensors[1:] if check_dtypes else ():
        if t.dtype is not dt:
            raise RuntimeError(f"expected scalar type {_tname(dt)} but found {_tname(t.dtype)}")
    return shape, dt


def block_diag_spec(tensors):
    rows = cols = 0
    for i, t in enumerate(tensors):
        if t.dim() > 2:
            raise RuntimeError(f"torch.block_diag: Input tensors must have 2 or fewer dimensions. Input {i} has "
                               f"{t.dim()} dimensions")
        r, c = (1, 1) if t.dim() == 0 else ((1, t._size[0]) if t.dim() == 1 else t._size)
        rows, cols = rows + r, cols + c
    dt = result_type(*tensors) if tensors else D.float32
    return (rows, cols), dt


def block_diag(tensors):
    shape, dt = block_diag_spec(tensors)
    return _t(shape, dt)


# ------------------------------------------------------------------ unfold (a view) / narrow_copy


def narrow_copy(self, dim, start, length):
    v = _narrow_view(self, dim, start, length)
    return _t(v._size, self.dtype)


def narrow_copy_out(self, dim, start, length, *, out):
    v = _narrow_view(self, dim, start, length)
    check_out(out, v._size, self.dtype, "narrow_copy", NARROW_COPY, resize_silently)
    return out


# ------------------------------------------------------------------ searchsorted / bucketize


def _is_legacy_empty(t):
    return t._size == (0,)


def cat_spec(tensors, dim):
    """(shape, dtype, strides, tensors that take part) for cat, with torch's checks."""
    tensors = list(tensors)
    if not tensors:
        raise RuntimeError("torch.cat(): expected a non-empty list of Tensors")
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got {type(t).__name__}")
        if t.dim() == 0:
            raise RuntimeError(f"zero-dimensional tensor (at position {i}) cannot be concatenated")
    dtype = result_type(*tensors)
    parts = [(i, t) for i, t in enumerate(tensors) if not _is_legacy_empty(t)]
    if not parts:
        return (0,), dtype, (1,), []
    ref_i, ref = parts[0]
    d = wrap_dim(dim, ref.dim())
    total = 0
    for i, t in parts:
        if t.dim() != ref.dim():
            raise RuntimeError(f"Tensors must have same number of dimensions: got {ref.dim()} and {t.dim()}")
        for k in range(ref.dim()):
            if k != d and t._size[k] != ref._size[k]:
                raise RuntimeError(f"Sizes of tensors must match except in dimension {d}. Expected size "
                                   f"{ref._size[k]} but got size {t._size[k]} for tensor number {i} in the list.")
        total += t._size[d]
    shape = ref._size[:d] + (total,) + ref._size[d + 1:]
    cl = all(t.dim() == 4 and is_channels_last(t._size, t.stride()) for _, t in parts)
    st = channels_last_strides(shape) if cl else contiguous_strides(shape)
    return shape, dtype, st, [t for _, t in parts]


def stack_spec(tensors, dim):
    """(shape, dtype, axis) of stack, with torch's checks: one size for every tensor, the new axis at dim."""
    tensors = list(tensors)
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    shape0 = None
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got {type(t).__name__}")
        if shape0 is None:
            shape0 = t._size
        elif t._size != shape0:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got {_fmt_size(shape0)} at entry 0 "
                               f"and {_fmt_size(t._size)} at entry {i}")
    d = wrap_dim(dim, len(shape0) + 1)
    dtype = tensors[0].dtype
    for t in tensors:
        if t.dtype is not dtype:
            dtype = result_type(*tensors)
            break
    return tuple(shape0[:d]) + (len(tensors),) + tuple(shape0[d:]), dtype, d


def _fmt_size(s):
    return "[" + ", ".join(str(x) for x in s) + "]"


def stack(tensors, dim=0):
    shape, dtype, _ = stack_spec(tensors, dim)
    return empty_tensor(shape, dtype, META)


def cat(tensors, dim=0):
    shape, dtype, st, _ = cat_spec(tensors, dim)
    return empty_tensor(shape, dtype, META, st)


def cat_out(tensors, dim=0, out=None):
    from ..._core.promotion import can_cast
    from ..common import _tname, check_out
    shape, dtype, st, _ = cat_spec(tensors, dim)
    if not can_cast(dtype, out.dtype):
        raise TypeError(f"torch.cat(): input types can't be cast to the desired output type {_tname(out.dtype)}")
    check_out(out, shape, dtype, "cat")
    return out
