"""View ops: new sizes/strides/offset over the input's storage, no data touched (ATen's
TensorShape.cpp). Registered as CompositeExplicitAutograd, so the same kernel serves cpu and meta.
Also the meta functions of the view scatters (slice_scatter, ...): output geometry and the size check,
which the cpu kernels (cpu/view.py) reuse."""
from types import FunctionType as _FunctionType

from ..._core.symint import SymInt, size_int
from ..._core.storage import UntypedStorage
from ..._core.strides import (_CONTIGUOUS, contiguous_strides, dense_strides_like, is_non_overlapping_and_dense,
                              numel, wrap_dim)
from ..._core.tensor_impl import TensorImpl as Tensor, _np_view
from ..._fallbacks import _mark_view
from ..common import _tname, empty_tensor

_ALL = slice(None)
_slice = slice          # `slice` below is the view op
_cpu_view = Tensor._cpu_view
# _CONTIGUOUS.get bound once: a method of a name this module imports is read with LOAD_ATTR (CPython 3.11 binds a
# new method object on every call, about 250 instructions) where a global bound method is called directly
_contiguous_get = _CONTIGUOUS.get


def make_view(t, size, stride, offset=None, dtype=None, arr=None):
    """A tensor over t's storage with the given geometry (the one constructor every view uses).
    `arr`: the numpy view of the result's elements when the caller has it from t's (see _from_storage);
    then the geometry is t's own ints, or ints computed from them."""
    if t._np is not None and (dtype is None or dtype is t.dtype):
        off = t._offset if offset is None else offset
        if arr is None:
            st = t._storage
            size, stride = tuple(map(int, size)), tuple(map(int, stride))
            arr = _np_view((t.untyped_storage() if st is None else st)._data, off, size, stride, t.dtype)
        return _cpu_view(t, off, size, stride, arr)
    return Tensor._from_storage(t.untyped_storage(), t._offset if offset is None else offset,
                                size, stride, dtype or t.dtype, arr)


# ---------------------------------------------------------------- size/stride rules
def infer_size(shape, n):
    """Resolve one -1 in `shape` against `n` elements (ATen's infer_size)."""
    shape = list(map(size_int, shape))
    infer, known = None, 1
    for i, s in enumerate(shape):
        if s == -1:
            if infer is not None:
                raise RuntimeError("only one dimension can be inferred")
            infer = i
        elif s < 0:
            raise RuntimeError(f"invalid shape dimension {s} at index {i} of shape {_fmt(shape)}")
        else:
            known *= s
    # (with a -1 only divisibility is asked: `known == n` would guard on a symbolic n for nothing)
    if (infer is not None and known > 0 and n % known == 0) or (infer is None and known == n):
        if infer is not None:
            if known == 0:
                raise RuntimeError(f"cannot reshape tensor of 0 elements into shape {_fmt(shape)} because the "
                                   "unspecified dimension size -1 can be any value and is ambiguous")
            shape[infer] = n // known
        return tuple(shape)
    raise RuntimeError(f"shape '{_fmt(shape)}' is invalid for input of size {n}")


def compute_stride(oldshape, oldstride, newshape):
    """Strides that let `newshape` view memory laid out as (oldshape, oldstride), or None when no
    such strides exist (ATen's computeStride: dims are merged in contiguous chunks)."""
    if not oldshape:
        return (1,) * len(newshape)
    if numel(oldshape) == 0:
        return tuple(oldstride) if tuple(oldshape) == tuple(newshape) else contiguous_strides(newshape)
    newstride = [0] * len(newshape)
    view_d = len(newshape) - 1
    chunk_base = oldstride[-1]
    tensor_numel = view_numel = 1
    for d in range(len(oldshape) - 1, -1, -1):
        tensor_numel *= oldshape[d]
        if d == 0 or (oldshape[d - 1] != 1 and oldstride[d - 1] != tensor_numel * chunk_base):
            while view_d >= 0 and (view_numel < tensor_numel or newshape[view_d] == 1):
                newstride[view_d] = view_numel * chunk_base
                view_numel *= newshape[view_d]
                view_d -= 1
            if view_numel != tensor_numel:
                return None
            if d > 0:
                chunk_base = oldstride[d - 1]
                tensor_numel = view_numel = 1
    if view_d != -1:
        return None
    return tuple(newstride)


def _fmt(xs):
    return "[" + ", ".join(str(x) for x in xs) + "]"


def _intlist(size):
    if isinstance(size, int) or size.__class__ is SymInt:
        return (size,)
    return tuple(map(size_int, size))


# ---------------------------------------------------------------- the views
def _int_shape(size, n):
    """infer_size for a tuple of Python ints that fits `n` elements, else None (the general path decides)."""
    infer, known = -1, 1
    for i, s in enumerate(size):
        if s.__class__ is not int:
            return None
        if s == -1 and infer < 0:
            infer = i
        elif s < 0:
            return None
        else:
            known *= s
    if infer < 0:
        return size if known == n else None
    if known == 0 or n % known:
        return None
    return size[:infer] + (n // known,) + size[infer + 1:]


def view(self, size):
    a = self._np
    if size.__class__ is list:
        size = tuple(size)          # (matmul's _unsafe_view(r, batch + [n, p]): the fast path below)
    if a is not None and size.__class__ is tuple and (n_in := a.size):
        # a cpu tensor with int sizes viewed as a tuple of ints: infer_size and the contiguity test without the
        # general conversions (a model's q.view(B, T, nh, hs) on every call). _CONTIGUOUS is contiguous_strides'
        # cache: a shape not in it yet takes the general path, which enters it.
        shape, n = size, 1
        for d in size:
            if d.__class__ is not int or d < 0:
                shape = _int_shape(size, n_in)      # a -1 to infer (or not ints: None)
                n = -1 if shape is None else n_in
                break
            n *= d
        if n == n_in:
            old_st = self._stride or self.stride()
            if old_st == _contiguous_get(self._size):
                st = _contiguous_get(shape)
                if st is not None:
                    # (a flattening view, x.view(-1): ravel is reshape's view of a C-contiguous array, ~1k
                    # instructions cheaper without reshape's shape parsing)
                    return _cpu_view(self, self._offset, shape, st,
                                     a.ravel() if len(shape) == 1 else a.reshape(shape))
            else:
                # a strided input (a model's split chunk q.view(B, T, nh, hs)): torch's strides, and numpy's
                # reshape as the array when it can view it too (copy=False raises where it would copy; then the
                # general path builds the array from the storage). 8.1 -> ~2.5 us against torch's 1.2.
                st = compute_stride(self._size, old_st, shape)
                if st is not None:
                    try:
                        arr = a.reshape(shape, copy=False)
                    except ValueError:
                        arr = None
                    if arr is not None:
                        return _cpu_view(self, self._offset, shape, st, arr)
    shape = infer_size(_intlist(size), self.numel())
    a = self._np
    if a is not None and a.size and self.stride() == contiguous_strides(self._size):
        # contiguous strides in, contiguous strides out (with other strides on its size-1 dims a tensor is still
        # contiguous, but torch's computeStride carries those strides over: left to compute_stride)
        return make_view(self, shape, contiguous_strides(shape), arr=a.reshape(shape))
    st = compute_stride(self._size, self.stride(), shape)
    if st is None:
        raise RuntimeError("view size is not compatible with input tensor's size and stride (at least one dimension "
                           "spans across two contiguous subspaces). Use .reshape(...) instead.")
    a = self._np
    return make_view(self, shape, st, arr=a.reshape(shape) if a is not None and a.flags.c_contiguous else None)


def view_dtype(self, dtype):
    from ..common import as_dtype
    dtype = as_dtype(dtype)
    old, new = self.dtype.itemsize, dtype.itemsize
    if old == new:
        return make_view(self, self._size, self.stride(), dtype=dtype)
    what = f"to view {_tname(self.dtype)} as {_tname(dtype)} (different element sizes)"
    if self.dim() == 0:
        raise RuntimeError(f"self.dim() cannot be 0 {what}")
    st = list(self.stride())
    if st[-1] != 1:
        raise RuntimeError(f"self.stride(-1) must be 1 {what}, but got {st[-1]}")
    size = list(self._size)
    if new > old:
        ratio = new // old
        if size[-1] % ratio:
            raise RuntimeError(f"self.size(-1) must be divisible by {ratio} {what}, but got {size[-1]}")
        if self._offset % ratio:
            raise RuntimeError(f"self.storage_offset() must be divisible by {ratio} {what}, but got {self._offset}")
        for i in range(len(st) - 1):
            if st[i] % ratio:
                raise RuntimeError(f"self.stride({i}) must be divisible by {ratio} {what}, but got {st[i]}")
        size[-1] //= ratio
        st = [s // ratio for s in st[:-1]] + [1]
        return make_view(self, size, st, self._offset // ratio, dtype)
    ratio = old // new
    size[-1] *= ratio
    st = [s * ratio for s in st[:-1]] + [1]
    return make_view(self, size, st, self._offset * ratio, dtype)


def as_strided(self, size, stride, storage_offset=None):
    size, stride = _intlist(size), _intlist(stride)
    off = self._offset if storage_offset is None else size_int(storage_offset)
    if len(size) != len(stride):
        raise RuntimeError(f"mismatch in length of strides and shape")
    if any(s < 0 for s in stride):
        raise RuntimeError(f"as_strided: Negative strides are not supported at the moment, got strides: {_fmt(stride)}")
    if any(s < 0 for s in size):
        raise RuntimeError(f"Trying to create tensor with negative dimension {min(size)}: {_fmt(size)}")
    if off < 0:
        raise RuntimeError(f"Tensor: invalid storage offset {off}")
    from ..._core.strides import storage_nbytes_needed
    need = storage_nbytes_needed(size, stride, off, self.dtype.itemsize)
    have = self.untyped_storage().nbytes()
    if need > have:
        raise RuntimeError(f"setStorage: sizes {_fmt(size)}, strides {_fmt(stride)}, storage offset {off}, and itemsize "
                           f"{self.dtype.itemsize} requiring a storage size of {need} are out of bounds for storage "
                           f"of size {have}")
    return make_view(self, size, stride, off)


def reshape_alias(self, size, stride):
    """_reshape_alias: reshape's view of a tensor that is not contiguous but whose layout allows the new shape
    (the strides come from compute_stride)."""
    a = self._np
    if a is not None and size.__class__ is tuple and stride.__class__ is tuple and len(size) == len(stride) and a.size:
        # a cpu tensor (reshape's call: int tuples): numpy's reshape view when it addresses the same elements, i.e.
        # has these strides on every dim of more than one element (its own choice on size-1 dims does not
        # matter), instead of as_strided's checks and an array built from the storage (~128k instructions).
        # A split piece (8, 32, 64) -> (256, 64): 12.9 -> 3.9 us with reshape's fast path (torch 1.0).
        try:
            arr = a.reshape(size, copy=False)
        except (ValueError, TypeError):
            arr = None
        if arr is not None:
            isz = a.itemsize
            for n, s, b in zip(size, stride, arr.strides):
                if n != 1 and (s.__class__ is not int or s < 0 or s * isz != b):
                    break
            else:
                return _cpu_view(self, self._offset, size, stride, arr)
    return as_strided(self, size, stride)


def expand(self, size, implicit=False):
    a = self._np
    if a is not None and size.__class__ in (list, tuple) and len(size) == len(self._size):
        # an expand to the tensor's own sizes (matmul's composite expands both operands to the batch shape
        # even when they have it): a view of the same geometry, without the general loop and make_view's
        # array built from the storage (7.3 -> ~4 us with grad, torch 2.2)
        for d, c in zip(size, self._size):
            if d.__class__ is not int or d != c:
                break
        else:
            return _cpu_view(self, self._offset, self._size, self._stride or self.stride(), a.view())
    if a is not None and size.__class__ in (list, tuple) and len(size) >= len(self._size):
        # new leading dims or size-1 dims broadcast (x.expand(B, -1, -1)): torch's geometry from the input's tuples
        # and the array built from the storage; anything unusual (SymInts, errors) takes the general loop below
        shape = self._size
        lead = len(size) - len(shape)
        st = self._stride or self.stride()
        out_size, out_st = list(size), [0] * len(size)
        for i in range(len(size) - 1, -1, -1):
            target = size[i]
            if target.__class__ is not int:
                break
            if i < lead:
                if target < 0:
                    break
                out_st[i] = 0 if target != 1 or i + 1 == len(size) else out_size[i + 1] * out_st[i + 1]
                continue
            cur = shape[i - lead]
            if target == -1 or target == cur:
                out_size[i], out_st[i] = cur, st[i - lead]
            elif cur == 1 and target >= 0:
                out_st[i] = 0
            else:
                break
        else:
            out_size, out_st = tuple(out_size), tuple(out_st)
            st_ = self._storage
            arr = _np_view((self.untyped_storage() if st_ is None else st_)._data, self._offset, out_size, out_st,
                           self.dtype)
            return _cpu_view(self, self._offset, out_size, out_st, arr)
    size = _intlist(size)
    nd, ndt = len(size), self.dim()
    if nd < ndt:
        raise RuntimeError(f"expand({self.type()}{{{_fmt(self._size)}}}, size={_fmt(size)}): the number of sizes "
                           f"provided ({nd}) must be greater or equal to the number of dimensions in the tensor ({ndt})")
    out_size, out_st = [0] * nd, [0] * nd
    st = self.stride()
    for i in range(nd - 1, -1, -1):
        off = i - (nd - ndt)
        target = size[i]
        if off < 0:
            if target < 0:
                raise RuntimeError(f"The expanded size of the tensor ({target}) isn't allowed in a leading, "
                                   f"non-existing dimension {i}")
            out_size[i] = target
            out_st[i] = 0 if target != 1 or i + 1 == nd else out_size[i + 1] * out_st[i + 1]
            continue
        cur = self._size[off]
        if target == -1:
            target = cur
        if cur == target:
            out_size[i], out_st[i] = cur, st[off]
        elif cur == 1:
            if target < 0:        # (-1 is taken above) torch's sizes check overflows on the negative size
                raise RuntimeError("numel: integer multiplication overflow")
            out_size[i], out_st[i] = target, 0
        else:
            raise RuntimeError(f"The expanded size of the tensor ({target}) must match the existing size ({cur}) at "
                               f"non-singleton dimension {i}.  Target sizes: {_fmt(size)}.  Tensor sizes: "
                               f"{_fmt(self._size)}")
    return make_view(self, out_size, out_st)


def transpose(self, dim0, dim1):
    a = self._np
    size = self._size
    nd = len(size)
    if a is not None and dim0.__class__ is int and dim1.__class__ is int and -nd <= dim0 < nd and -nd <= dim1 < nd:
        # a cpu tensor's q.transpose(1, 2), k.transpose(-2, -1) on every call: the general path's geometry from
        # the input's tuples, without its wrap_dim calls
        d0 = dim0 + nd if dim0 < 0 else dim0
        d1 = dim1 + nd if dim1 < 0 else dim1
        if d0 != d1:
            size, st = list(size), list(self._stride or self.stride())
            size[d0], size[d1] = size[d1], size[d0]
            st[d0], st[d1] = st[d1], st[d0]
            return _cpu_view(self, self._offset, size, st, a.swapaxes(d0, d1))
    nd = self.dim()
    d0, d1 = wrap_dim(dim0, nd), wrap_dim(dim1, nd)
    size, st = list(self._size), list(self.stride())
    if nd == 0 or d0 == d1:
        return make_view(self, size, st)
    size[d0], size[d1] = size[d1], size[d0]
    st[d0], st[d1] = st[d1], st[d0]
    a = self._np
    return make_view(self, size, st, arr=None if a is None else a.swapaxes(d0, d1))


def permute(self, dims):
    a = self._np
    size = self._size
    nd = len(size)
    if a is not None and (dims.__class__ is tuple or dims.__class__ is list) and len(dims) == nd:
        # a cpu tensor and a tuple of distinct ints in range (x.permute(0, 2, 1, 3)): the geometry from the input's
        # tuples, without _intlist/wrap_dim/set; anything else takes the checks below (x.permute(0, 2, 1) 3.6 ->
        # 2.1 us, torch 0.8)
        seen = 0
        perm = []
        for d in dims:
            if d.__class__ is not int or not -nd <= d < nd:
                break
            if d < 0:
                d += nd
            if seen >> d & 1:
                break
            seen |= 1 << d
            perm.append(d)
        else:
            st = self._stride or self.stride()
            return _cpu_view(self, self._offset, tuple([size[d] for d in perm]), tuple([st[d] for d in perm]),
                             a.transpose(perm))
    dims = _intlist(dims)
    nd = self.dim()
    if len(dims) != nd:
        raise RuntimeError(f"permute(sparse_coo): number of dimensions in the tensor input does not match the length "
                           f"of the desired ordering of dimensions i.e. input.dim() = {nd} is not equal to "
                           f"len(dims) = {len(dims)}")
    wrapped = [wrap_dim(d, nd) for d in dims]
    if len(set(wrapped)) != len(wrapped):
        raise RuntimeError("permute(): duplicate dims are not allowed.")
    st = self.stride()
    a = self._np
    return make_view(self, [self._size[d] for d in wrapped], [st[d] for d in wrapped],
                     arr=None if a is None else a.transpose(wrapped))


def t(self):
    size = self._size
    nd = len(size)
    if nd == 2:     # transpose(self, 0, 1) without the general geometry (a Linear's weight.t() on every call)
        st = self._stride or self.stride()
        a = self._np
        if a is not None:
            return _cpu_view(self, self._offset, (size[1], size[0]), (st[1], st[0]), a.T)
        return make_view(self, (size[1], size[0]), (st[1], st[0]))
    if nd > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {nd}D")
    return make_view(self, size, self.stride())


def select(self, dim, index):
    a = self._np
    if a is not None and dim.__class__ is int and index.__class__ is int:
        size = self._size
        if dim == 0:
            # x[i] on a cpu tensor (int sizes): the geometry of dim 0 dropped, without the general checks
            if size and -size[0] <= index < size[0]:
                st = self._stride or self.stride()
                if index < 0:
                    index += size[0]
                # (a[index] is a view for 2+ dims and ~300 instructions cheaper; on 1 dim it is a numpy scalar)
                return _cpu_view(self, self._offset + index * st[0], size[1:], st[1:],
                                 a[index] if len(size) > 1 else a[index, ...])
        else:
            # another dim (x.select(1, t), unbind(1)): the same without wrap_dim and the lists
            nd = len(size)
            if -nd <= dim < nd:
                d = dim + nd if dim < 0 else dim
                n = size[d]
                if -n <= index < n:
                    st = self._stride or self.stride()
                    if index < 0:
                        index += n
                    return _cpu_view(self, self._offset + index * st[d], size[:d] + size[d + 1:], st[:d] + st[d + 1:],
                                     a[(_ALL,) * d + (index, Ellipsis)])
    nd = self.dim()
    if nd == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    d = wrap_dim(dim, nd)
    n = self._size[d]
    index = size_int(index)
    if not -n <= index < n:
        raise IndexError(f"select(): index {index} out of range for tensor of size {_fmt(self._size)} at dimension {d}")
    if index < 0:
        index += n
    st = self.stride()
    a = self._np
    return make_view(self, self._size[:d] + self._size[d + 1:], st[:d] + st[d + 1:], self._offset + index * st[d],
                     arr=None if a is None else a[(_ALL,) * d + (index, Ellipsis)])


def slice(self, dim=0, start=None, end=None, step=1):
    a = self._np
    if (a is not None and step.__class__ is int and step == 1 and dim.__class__ is int and 0 <= dim < len(self._size)
            and start.__class__ is int and 0 <= start and (end is None or end.__class__ is int and end >= 0)):
        # x[a:b] with non-negative bounds on a cpu tensor (clamped like the general path below)
        n = self._size[dim]
        start = start if start < n else n
        end = n if end is None or end > n else end if end > start else start
        st = self._stride or self.stride()
        size = self._size
        return _cpu_view(self, self._offset + start * st[dim], size[:dim] + (end - start,) + size[dim + 1:], st,
                         a[(_ALL,) * dim + (_slice(start, end),)] if dim else a[start:end])
    nd = self.dim()
    if nd == 0:
        raise RuntimeError("slice() cannot be applied to a 0-dim tensor.")
    d = wrap_dim(dim, nd)
    step = size_int(step)
    if step <= 0:
        raise RuntimeError("slice step must be positive")
    n = self._size[d]
    start = 0 if start is None else size_int(start)
    end = n if end is None else size_int(end)
    if start < 0:
        start += n
    if end < 0:
        end += n
    start = min(max(start, 0), n)
    end = min(max(end, start), n)
    length = (end - start + step - 1) // step
    size, st = list(self._size), list(self.stride())
    off = self._offset + start * st[d]
    size[d] = length
    st[d] *= step
    a = self._np
    return make_view(self, size, st, off, arr=None if a is None else a[(_ALL,) * d + (_slice(start, end, step),)])


def narrow(self, dim, start, length):
    nd = self.dim()
    if nd == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    d = wrap_dim(dim, nd)
    n = self._size[d]
    if not -n <= start <= n:
        raise IndexError(f"start out of range (expected to be in range of [{-n}, {n}], but got {start})")
    if start < 0:
        start += n
    if start + length > n:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({n}).")
    return slice(self, d, start, start + length, 1)


def unsqueeze(self, dim):
    a = self._np
    if a is not None and dim.__class__ is int:
        # a cpu tensor (a cell's input.unsqueeze(0) on every step): the geometry from the input's tuples
        size = self._size
        nd = len(size)
        if -nd - 1 <= dim <= nd:
            d = dim + nd + 1 if dim < 0 else dim
            st = self._stride or self.stride()
            return _cpu_view(self, self._offset, size[:d] + (1,) + size[d:],
                             st[:d] + ((size[d] * st[d] if d < nd else 1),) + st[d:],
                             a[None] if d == 0 else a[(_ALL,) * d + (None,)])
    d = wrap_dim(dim, self.dim() + 1)
    size, st = list(self._size), list(self.stride())
    new_st = size[d] * st[d] if d < len(size) else 1
    size.insert(d, 1)
    st.insert(d, new_st)
    a = self._np
    return make_view(self, size, st, arr=None if a is None else a[(_ALL,) * d + (None,)])


def _squeeze_dims(self, dims):
    keep = [i for i in range(self.dim()) if not (i in dims and self._size[i] == 1)]
    st = self.stride()
    a = self._np
    arr = None if a is None else a[tuple(_ALL if i in keep else 0 for i in range(len(self._size))) + (Ellipsis,)]
    return make_view(self, [self._size[i] for i in keep], [st[i] for i in keep], arr=arr)


def squeeze(self):
    return _squeeze_dims(self, set(range(self.dim())))


def squeeze_dim(self, dim):
    a = self._np
    if a is not None and dim.__class__ is int:
        # a cpu tensor (x.squeeze(1) of a column): the geometry from the input's tuples
        size = self._size
        nd = len(size)
        if -nd <= dim < nd:
            d = dim + nd if dim < 0 else dim
            st = self._stride or self.stride()
            if size[d] != 1:
                return _cpu_view(self, self._offset, size, st, a.view())
            return _cpu_view(self, self._offset, size[:d] + size[d + 1:], st[:d] + st[d + 1:],
                             a[(_ALL,) * d + (0, Ellipsis)])
    return _squeeze_dims(self, {wrap_dim(dim, self.dim())})


def squeeze_dims(self, dim):
    seen = set()
    for d in _intlist(dim):         # torch's dim_list_to_bitset: wrapped and checked in order
        d = wrap_dim(d, self.dim())
        if d in seen:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
        seen.add(d)
    return _squeeze_dims(self, seen)


# ---------------------------------------------------------------- in-place views (tag inplace_view)
def _take_geometry(self, view):
    """self becomes `view` (a view of self's storage): its sizes, strides and numpy view change in place."""
    self._size, self._stride, self._offset, self._np = view._size, view.stride(), view._offset, view._np
    return self


def as_strided_(self, size, stride, storage_offset=None):
    """self takes the geometry as_strided gives (torch's in-place as_strided_)."""
    return _take_geometry(self, as_strided(self, size, stride, storage_offset))


def squeeze_(self):
    return _take_geometry(self, squeeze(self))


def squeeze_dim_(self, dim):
    return _take_geometry(self, squeeze_dim(self, dim))


def squeeze_dims_(self, dim):
    return _take_geometry(self, squeeze_dims(self, dim))


def unsqueeze_(self, dim):
    return _take_geometry(self, unsqueeze(self, dim))


def transpose_(self, dim0, dim1):
    return _take_geometry(self, transpose(self, dim0, dim1))


def t_(self):
    if self.dim() > 2:
        raise RuntimeError(f"t_() expects a tensor with <= 2 dimensions, but self is {self.dim()}D")
    return _take_geometry(self, t(self))


def diagonal(self, offset=0, dim1=0, dim2=1):
    nd = self.dim()
    d1, d2 = wrap_dim(dim1, nd), wrap_dim(dim2, nd)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    st = self.stride()
    off = self._offset
    if offset >= 0:
        n = max(min(self._size[d1], self._size[d2] - offset), 0)
        if n > 0:
            off += offset * st[d2]
    else:
        n = max(min(self._size[d1] + offset, self._size[d2]), 0)
        if n > 0:
            off -= offset * st[d1]
    keep = [i for i in range(nd) if i not in (d1, d2)]
    return make_view(self, [self._size[i] for i in keep] + [n], [st[i] for i in keep] + [st[d1] + st[d2]], off)


def unbind(self, dim=0):
    a = self._np
    if a is not None and dim.__class__ is int:
        # a cpu tensor: every piece's geometry from the input's tuples, in one loop (unbind(0) of 8 rows
        # 7.4 -> 5.4 us, torch 3.8)
        size = self._size
        nd = len(size)
        if -nd <= dim < nd:
            d = dim + nd if dim < 0 else dim
            st = self._stride or self.stride()
            step, off = st[d], self._offset
            rsize, rst = size[:d] + size[d + 1:], st[:d] + st[d + 1:]
            pre = (_ALL,) * d
            return [_cpu_view(self, off + i * step, rsize, rst, a[pre + (i, Ellipsis)]) for i in range(size[d])]
    nd = self.dim()
    if nd == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    d = wrap_dim(dim, nd)
    return [select(self, d, i) for i in range(self._size[d])]


def split_with_sizes(self, split_sizes, dim=0):
    nd = self.dim()
    if nd == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    d = wrap_dim(dim, nd)
    sizes = _intlist(split_sizes)
    n = self._size[d]
    if any(s < 0 for s in sizes):
        raise RuntimeError(f"split_with_sizes expects split_sizes have only non-negative entries, but got "
                           f"split_sizes={_fmt(sizes)}")
    if sum(sizes) != n:
        raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {n} (input tensor's size at "
                           f"dimension {d}), but got split_sizes={_fmt(sizes)}")
    out, start = [], 0
    for s in sizes:
        out.append(slice(self, d, start, start + s, 1))
        start += s
    return out


def split(self, split_size, dim=0):
    a = self._np
    if a is not None and split_size.__class__ is int and split_size > 0 and dim.__class__ is int:
        # a cpu tensor split into pieces of an int size (a model's qkv.split(C, dim=2), x.split(1, dim=1)): each
        # piece's geometry from the input's tuples, in one loop, as split_with_sizes' slices make them (qkv (8, 32,
        # 192) into 3: 6.4 -> 3.6 us, torch 4.3; (8, 51) into 51 columns 73 -> 37 us, torch 27)
        size = self._size
        nd = len(size)
        if -nd <= dim < nd:
            d = dim + nd if dim < 0 else dim
            n = size[d]
            if n:
                st = self._stride or self.stride()
                step, off = st[d], self._offset
                head, tail = size[:d], size[d + 1:]
                pre = (_ALL,) * d
                full = head + (split_size,) + tail
                out = []
                for start in range(0, n, split_size):
                    end = start + split_size
                    if end > n:
                        end = n
                        full = head + (n - start,) + tail
                    out.append(_cpu_view(self, off + start * step, full, st,
                                         a[pre + (_slice(start, end),)] if d else a[start:end]))
                return out
    nd = self.dim()
    if nd == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    d = wrap_dim(dim, nd)
    split_size = size_int(split_size)
    n = self._size[d]
    if split_size < 0:
        raise RuntimeError(f"split expects split_size be non-negative, but got split_size={split_size}")
    if split_size == 0 and n != 0:
        raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got dimension size of {n}")
    num = max((n + split_size - 1) // split_size, 1) if split_size else 1
    last = split_size - (split_size * num - n)
    return split_with_sizes(self, [split_size] * (num - 1) + [last], d)


def alias(self):
    a = self._np
    return make_view(self, self._size, self.stride(), arr=None if a is None else a.view())


def detach(self):
    a = self._np
    return make_view(self, self._size, self.stride(), arr=None if a is None else a.view())


def unfold(self, dimension, size, step):
    nd = self.dim()
    d = wrap_dim(dimension, nd)
    n = self._size[d] if nd else 1
    st = self.stride()[d] if nd else 1
    if size > n:
        raise RuntimeError(f"maximum size for tensor at dimension {d} is {n} but size is {size}")
    if size < 0:
        raise RuntimeError(f"size is {size} but must be >= 0")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    if nd == 0:
        return make_view(self, [size], [1])
    sizes, strides = list(self._size), list(self.stride())
    sizes[d] = (n - size) // step + 1
    strides[d] = step * st
    return make_view(self, sizes + [size], strides + [st])


# ---------------------------------------------------------------- view scatters (functional writes through a view)
def scatter_strides(self):
    """The strides of a *_scatter op's output when it cannot be a copy of self's whole storage (torch's
    clone_preserve_strides): a self with internal overlap (a size > 1 dim of stride 0, as an expanded tensor)
    is cloned (preserve format), since src is copied into a view of the output. None otherwise: the output
    copies self's whole storage and keeps its strides and storage offset (so as_strided_scatter's storage
    positions mean the same as in self)."""
    if any(sz > 1 and st == 0 for sz, st in zip(self._size, self.stride())):
        from .copy import format_strides
        return format_strides(self, None)
    return None


def check_scatter_src(region, src):
    if tuple(region._size) != tuple(src._size):
        raise RuntimeError(f"expected src to have a size equal to the slice of self. src size = "
                           f"{_fmt(src._size)}, slice size = {_fmt(region._size)}")


def scatter_into_view(self, src, view_fn):
    """Shared body of the *_scatter meta functions: the output's geometry, and torch's size check of src
    against view_fn(output). The cpu kernels (cpu/view.py) copy the data."""
    strides = scatter_strides(self)
    if strides is not None:
        out = empty_tensor(self._size, self.dtype, device="meta", strides=strides)
    else:
        storage = UntypedStorage._meta(self.untyped_storage().nbytes())
        out = Tensor._from_storage(storage, self._offset, self._size, self.stride(), self.dtype)
    check_scatter_src(view_fn(out), src)
    return out


def slice_scatter(self, src, dim=0, start=None, end=None, step=1):
    return scatter_into_view(self, src, lambda t: slice(t, dim, start, end, step))


def select_scatter(self, src, dim, index):
    return scatter_into_view(self, src, lambda t: select(t, dim, index))


def diagonal_scatter(self, src, offset=0, dim1=0, dim2=1):
    return scatter_into_view(self, src, lambda t: diagonal(t, offset, dim1, dim2))


def as_strided_scatter(self, src, size, stride, storage_offset=None):
    return scatter_into_view(self, src, lambda t: as_strided(t, size, stride, storage_offset))


# ---------------------------------------------------------------- the same kernels as the ADInplaceOrView key runs them
def _make_view_of(t, size, stride, offset=None, dtype=None, arr=None):
    out = make_view(t, size, stride, offset, dtype, arr)
    _mark_view(out, t)
    return out


def _as_view_kernels(*kernels):
    """Give each kernel an `_as_view` twin: its own code over this module's globals with `_cpu_view` and
    `make_view` replaced by constructors that mark the result a view of its input (`_base`, shared version
    counter), and each of these kernels by its twin. The ADInplaceOrView key of a view op runs the twin in
    place of itself and the kernel (`_fallbacks._view_kernel`): a view made in one call instead of two, with
    no packed arguments between them, and the geometry code written once. Only for kernels whose every
    result is made by those constructors or by another kernel in the set (tests/core/test_views.py checks)."""
    glb = dict(globals(), _cpu_view=Tensor._cpu_view_of, make_view=_make_view_of)
    for fn in kernels:
        twin = _FunctionType(fn.__code__, glb, fn.__name__, fn.__defaults__, fn.__closure__)
        twin.__kwdefaults__, twin.__qualname__, twin.__doc__ = fn.__kwdefaults__, fn.__qualname__, fn.__doc__
        glb[fn.__name__] = fn._as_view = twin


_as_view_kernels(view, as_strided, reshape_alias, expand, transpose, permute, t, select, slice, narrow, unsqueeze, _squeeze_dims,
                 squeeze, squeeze_dim, squeeze_dims, diagonal, unbind, split_with_sizes, split, alias, unfold)
