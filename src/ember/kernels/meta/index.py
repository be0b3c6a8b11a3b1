"""Meta functions for gather/scatter, index_* along a dim, masked_* and take (ATen's ScatterGatherChecks.h,
TensorAdvancedIndexing.cpp): torch's argument checks and output shapes. Data-dependent shapes (nonzero,
masked_select) cannot be known on meta and raise like torch's meta does."""
from ..._core.scalar_value import check_number
from ..._core import dtype as D
from ..._core.device import META
from ..._core.strides import dense_strides_like, wrap_dim
from ..._core.tensor_impl import TensorImpl as Tensor
from ..common import _tname, broadcast_shapes, check_out, empty_tensor, warn_user
from ..out_rules import exact, same_scalar_type, TAKE
from ..._core.strides import iterator_strides

_IDX = (D.int64, D.int32)
SCATTER_REDUCES = ("sum", "prod", "mean", "amax", "amin")
# scatter_reduce's forward also takes "max"/"min" for amax/amin (ATen's get_operator_enum), its backward does not
SCATTER_REDUCE_ALIASES = {"max": "amax", "min": "amin"}


def _fmt(xs):
    return "[" + ", ".join(str(x) for x in xs) + "]"


def bshape(*shapes):
    """broadcast_shapes with torch's message for expand_outplace / broadcast_tensors (no shapes suffix)."""
    try:
        return broadcast_shapes(*shapes)
    except RuntimeError as e:
        raise RuntimeError(str(e).split(": shapes")[0]) from None


def _t(shape, dtype, strides=None):
    return empty_tensor(shape, dtype, META, strides)


def _ndim1(t):
    """Scatter/gather treat a 0-dim tensor as 1-d of size 1."""
    return max(t.dim(), 1)


def _size1(t, d):
    return t._size[d] if t.dim() else 1


# ------------------------------------------------------------------ gather / scatter
def gather_check(self, dim, index):
    d = wrap_dim(dim, self.dim())
    if index.dtype not in _IDX:
        raise RuntimeError("gather(): Expected dtype int32/int64 for index")
    if index.numel() == 0:
        return d
    if _ndim1(index) != _ndim1(self):
        raise RuntimeError("Index tensor must have the same number of dimensions as input tensor")
    for i in range(_ndim1(self)):
        if i != d and _size1(index, i) > _size1(self, i):
            raise RuntimeError(f"Size does not match at dimension {i} expected index {_fmt(index._size)} to be no larger "
                               f"than self {_fmt(self._size)} apart from dimension {d}")
    return d


def gather(self, dim, index, *, sparse_grad=False):
    gather_check(self, dim, index)
    return _t(index._size, self.dtype)


def gather_out(self, dim, index, *, sparse_grad=False, out):
    gather_check(self, dim, index)
    check_out(out, index._size, self.dtype, "gather", exact)
    return out


def scatter_check(self, dim, index, src=None, name="scatter"):
    # torch's scatter_gather_dtype_check names "scatter" for scatter_add and scatter_reduce too
    d = wrap_dim(dim, self.dim())
    if index.dtype not in _IDX:
        raise RuntimeError("scatter(): Expected dtype int32/int64 for index")
    if isinstance(src, Tensor) and src.dtype is not self.dtype:
        raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
    if index.numel() == 0:
        return d
    if _ndim1(index) != _ndim1(self):
        raise RuntimeError("Index tensor must have the same number of dimensions as self tensor")
    if isinstance(src, Tensor) and _ndim1(src) != _ndim1(self):
        raise RuntimeError("Index tensor must have the same number of dimensions as src tensor")
    for i in range(_ndim1(self)):
        bad = (i != d and _size1(index, i) > _size1(self, i)) or (
            isinstance(src, Tensor) and _size1(index, i) > _size1(src, i))
        if bad:
            extra = f" and to be no larger size than src {_fmt(src._size)}" if isinstance(src, Tensor) else ""
            raise RuntimeError(f"Expected index {_fmt(index._size)} to be no larger than self {_fmt(self._size)} apart "
                               f"from dimension {d}{extra}")
    return d


def check_reduce(reduce, two=False):
    allowed = SCATTER_REDUCES if two else ("add", "multiply")
    if reduce not in allowed and not (two and reduce in SCATTER_REDUCE_ALIASES):
        if two:
            raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}")
        raise RuntimeError("reduce argument must be either add or multiply.")


def _scatter(self, dim, index, src, reduce=None, two=False):
    scatter_check(self, dim, index, src)
    if reduce is not None:
        check_reduce(reduce, two)
    return _t(self._size, self.dtype)


def _scatter_inplace(self, dim, index, src, reduce=None, two=False):
    _scatter(self, dim, index, src, reduce, two)
    return self


def _scatter_out(self, dim, index, src, out, reduce=None, two=False):
    _scatter(self, dim, index, src, reduce, two)
    check_out(out, self._size, self.dtype, "scatter", exact)
    return out


def scatter_src(self, dim, index, src):
    return _scatter(self, dim, index, src)


def scatter__src(self, dim, index, src):
    return _scatter_inplace(self, dim, index, src)


def scatter_src_out(self, dim, index, src, *, out):
    return _scatter_out(self, dim, index, src, out)


def scatter_value(self, dim, index, value):
    return _scatter(self, dim, index, None)


def scatter__value(self, dim, index, value):
    return _scatter_inplace(self, dim, index, None)


def scatter_value_out(self, dim, index, value, *, out):
    return _scatter_out(self, dim, index, None, out)


def scatter_reduce(self, dim, index, src, *, reduce):
    return _scatter(self, dim, index, src, reduce)


def scatter__reduce(self, dim, index, src, *, reduce):
    return _scatter_inplace(self, dim, index, src, reduce)


def scatter_reduce_out(self, dim, index, src, *, reduce, out):
    return _scatter_out(self, dim, index, src, out, reduce)


def scatter_value_reduce(self, dim, index, value, *, reduce):
    return _scatter(self, dim, index, None, reduce)


def scatter__value_reduce(self, dim, index, value, *, reduce):
    return _scatter_inplace(self, dim, index, None, reduce)


def scatter_value_reduce_out(self, dim, index, value, *, reduce, out):
    return _scatter_out(self, dim, index, None, out, reduce)


def scatter_add(self, dim, index, src):
    return _scatter(self, dim, index, src)


def scatter_add_(self, dim, index, src):
    return _scatter_inplace(self, dim, index, src)


def scatter_add_out(self, dim, index, src, *, out):
    return _scatter_out(self, dim, index, src, out)


def scatter_reduce_two(self, dim, index, src, reduce, *, include_self=True):
    return _scatter(self, dim, index, src, reduce, True)


def scatter_reduce__two(self, dim, index, src, reduce, *, include_self=True):
    return _scatter_inplace(self, dim, index, src, reduce, True)


def scatter_reduce_two_out(self, dim, index, src, reduce, *, include_self=True, out):
    return _scatter_out(self, dim, index, src, out, reduce, True)


# ------------------------------------------------------------------ index_select / index_add / index_copy / index_fill
def index_select_shape(self, dim, index):
    d = wrap_dim(dim, self.dim())
    if index.dim() > 1:
        raise IndexError("index_select(): Index is supposed to be a vector")
    if index.dtype not in _IDX:
        raise RuntimeError("index_select(): Expected dtype int32 or int64 for index")
    if self.dim() == 0:
        if index.numel() != 1:
            raise RuntimeError(f"index_select(): Index to scalar can have only 1 value, got {index.numel()} value(s)")
        return d, ()
    return d, self._size[:d] + (index.numel(),) + self._size[d + 1:]


def index_select(self, dim, index):
    return _t(index_select_shape(self, dim, index)[1], self.dtype)


def index_select_out(self, dim, index, *, out):
    shape = index_select_shape(self, dim, index)[1]
    check_out(out, shape, self.dtype, "index_select", same_scalar_type("index_select"))
    return out


def index_add_check(self, dim, index, source, name="index_add_"):
    d = wrap_dim(dim, self.dim())
    if index.dim() > 1:
        raise IndexError(f"{name}(): Index is supposed to be a vector, but got dim: {index.dim()} with type: "
                         f"{_tname(index.dtype)} and size: {_fmt(index._size)}")
    if index.dtype not in _IDX:
        raise RuntimeError(f"{name}(): Expected dtype int32/int64 for index but got: {_tname(index.dtype)}")
    if source.dtype is not self.dtype:
        raise RuntimeError(f"{name}(): self ({_tname(self.dtype)}) and source ({_tname(source.dtype)}) must have the "
                           "same scalar type")
    n = _size1(source, d) if source.dim() else 1
    if index.numel() != n:
        raise RuntimeError(f"{name}(): Number of indices ({index.numel()}) should be equal to source.size(dim): "
                           f"({n}), for dim: {d}")
    _check_source_shape(self, d, source, name)
    return d


def _check_source_shape(self, d, source, name):
    if self.dim() != source.dim() and self.numel() and source.numel() and max(self.dim(), 1) != max(source.dim(), 1):
        raise IndexError(f"{name}(): When source and destination are not scalars, their dimensionality must match. "
                         f"Source dimensionality ({source.dim()}), destination dimensionality ({self.dim()})")
    if self.dim() == source.dim():
        for i in range(self.dim()):
            if i != d and self._size[i] != source._size[i]:
                raise RuntimeError(f"{name}(): Source/destination tensor must have same slice shapes. Destination "
                                   f"slice shape: {_fmt(self._size[:d] + self._size[d + 1:])} at dimension {d} and "
                                   f"source slice shape: {_fmt(source._size[:d] + source._size[d + 1:])} at dimension {d}.")


def index_add(self, dim, index, source, *, alpha=1):
    index_add_check(self, dim, index, source)
    return _t(self._size, self.dtype)


def index_add_(self, dim, index, source, *, alpha=1):
    index_add_check(self, dim, index, source)
    return self


def index_add_out(self, dim, index, source, *, alpha=1, out):
    index_add_check(self, dim, index, source)
    check_out(out, self._size, self.dtype, "index_add", exact)
    return out


def index_copy_check(self, dim, index, source, name="index_copy_"):
    d = wrap_dim(dim, self.dim())
    if index.dim() > 1:
        raise IndexError(f"{name}(): Index should have dimension 1 or 0 (got {index.dim()})")
    n = _size1(source, d) if source.dim() else 1
    if index.numel() != n:
        raise IndexError(f"{name}(): Number of indices ({index.numel()}) should be equal to source.size(dim) ({n})")
    if index.dtype is not D.int64:
        raise RuntimeError(f"{name}(): Expected a long tensor for index, but got {_tname(index.dtype)}")
    if source.dtype is not self.dtype:
        raise RuntimeError(f"{name}(): self and source expected to have the same dtype, but got (self) "
                           f"{_tname(self.dtype)} and (source) {_tname(source.dtype)}")
    _check_source_shape(self, d, source, name)
    return d


def index_copy(self, dim, index, source):
    index_copy_check(self, dim, index, source)
    return _t(self._size, self.dtype)


def index_copy_(self, dim, index, source):
    index_copy_check(self, dim, index, source)
    return self


def index_copy_out(self, dim, index, source, *, out):
    index_copy_check(self, dim, index, source)
    check_out(out, self._size, self.dtype, "index_copy")
    return out


def index_fill_check(self, dim, index, value):
    d = wrap_dim(dim, self.dim())
    if index.dtype is not D.int64:
        raise IndexError("index_fill_(): Expected dtype int64 for index.")
    if index.dim() > 1:
        raise RuntimeError("Index has to be a vector/scalar")
    if isinstance(value, Tensor):
        if value.dim() != 0:
            raise RuntimeError(f"index_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                               f"{value.dim()} dimension(s).")
    else:
        check_number(self.dtype, value)
    return d


def preserve_strides(self):
    return dense_strides_like(self._size, self.stride())


def index_fill_int_Scalar(self, dim, index, value):
    index_fill_check(self, dim, index, value)
    return _t(self._size, self.dtype, preserve_strides(self))


def index_fill__int_Scalar(self, dim, index, value):
    index_fill_check(self, dim, index, value)
    return self


index_fill_int_Tensor = index_fill_int_Scalar
index_fill__int_Tensor = index_fill__int_Scalar


# ------------------------------------------------------------------ masked_fill / masked_select / masked_scatter
def masked_fill_check(self, mask, value, inplace):
    if mask.dtype is not D.bool_:
        raise RuntimeError(f"masked_fill_ only supports boolean masks, but got mask with dtype {_tname(mask.dtype).lower()}")
    if isinstance(value, Tensor):
        if value.dim() != 0:
            raise RuntimeError(f"masked_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                               f"{value.dim()} dimension(s).")
    else:
        check_number(self.dtype, value)
    if inplace:
        shape = bshape(self._size, mask._size)
        if shape != tuple(self._size):
            raise RuntimeError(f"output with shape {_fmt(self._size)} doesn't match the broadcast shape {_fmt(shape)}")
        from .copy import has_internal_overlap
        if has_internal_overlap(self):
            warn_user("Use of masked_fill_ on expanded tensors is deprecated. Please clone() the tensor before "
                      "performing this operation. This also applies to advanced indexing e.g. tensor[mask] = "
                      "scalar")
        return shape
    return bshape(mask._size, self._size)


def masked_fill_Scalar(self, mask, value):
    return _t(masked_fill_check(self, mask, value, False), self.dtype)


def masked_fill__Scalar(self, mask, value):
    masked_fill_check(self, mask, value, True)
    return self


masked_fill_Tensor = masked_fill_Scalar
masked_fill__Tensor = masked_fill__Scalar


def masked_select_check(self, mask):
    if mask.dtype is not D.bool_:
        raise RuntimeError("masked_select: expected BoolTensor for mask")
    return bshape(self._size, mask._size)


def _data_dependent(name):
    def f(*args, **kw):
        raise NotImplementedError(f"aten::{name}: the output shape depends on the data, which meta tensors do not have")
    f.__name__ = name
    return f


def masked_select(self, mask):
    masked_select_check(self, mask)
    return _data_dependent("masked_select")()


def masked_select_out(self, mask, *, out):
    masked_select_check(self, mask)
    return _data_dependent("masked_select")()


nonzero = _data_dependent("nonzero")
nonzero_out = _data_dependent("nonzero")


def masked_scatter_check(self, mask, source, inplace):
    if mask.dtype is not D.bool_:
        raise RuntimeError(f"masked_scatter_ only supports boolean masks, but got mask with dtype {_tname(mask.dtype)}")
    if source.dtype is not self.dtype:
        raise RuntimeError(f"masked_scatter: expected self and source to have same dtypes but got"
                           f"{_tname(self.dtype)} and {_tname(source.dtype)}")
    shape = bshape(self._size, mask._size)
    if inplace and shape != tuple(self._size):
        raise RuntimeError(f"output with shape {_fmt(self._size)} doesn't match the broadcast shape {_fmt(shape)}")
    return shape


def masked_scatter(self, mask, source):
    return _t(masked_scatter_check(self, mask, source, False), self.dtype)


def masked_scatter_(self, mask, source):
    masked_scatter_check(self, mask, source, True)
    return self


# ------------------------------------------------------------------ take
def take_check(self, index):
    if index.dtype is not D.int64:
        raise RuntimeError(f"take(): Expected a long tensor for index, but got {_tname(index.dtype)}")
    if self.numel() == 0 and index.numel() != 0:
        raise IndexError("take(): tried to take from an empty tensor")


def take(self, index):
    take_check(self, index)
    return _t(index._size, self.dtype)


def take_out(self, index, *, out):
    take_check(self, index)
    check_out(out, index._size, self.dtype, "take", TAKE)
    return out


# ------------------------------------------------------------------ put / index_reduce
def put_check(self, index, source):
    if index.dtype is not D.int64:
        raise RuntimeError(f"put_(): Expected a long tensor for index, but got {_tname(index.dtype)}")
    if source.dtype is not self.dtype:
        raise RuntimeError(f"put_(): self and source expected to have the same dtype, but got self.dtype = "
                           f"{_tname(self.dtype)} and source.dtype = {_tname(source.dtype)}")
    if index.numel() != source.numel():
        raise IndexError(f"put_(): Expected source and index to have the same number of elements, but got "
                           f"source.numel() = {source.numel()}, index.numel() = {index.numel()}")
    if self.numel() == 0 and index.numel() != 0:
        raise IndexError("put_(): Tried to put elements into an empty tensor")


def put_(self, index, source, accumulate=False):
    put_check(self, index, source)
    return self


def put(self, index, source, accumulate=False):
    put_check(self, index, source)
    return _t(self._size, self.dtype)


INDEX_REDUCES = ("prod", "mean", "amax", "amin")


def index_reduce_check(self, dim, index, source, reduce):
    if reduce not in INDEX_REDUCES:
        raise RuntimeError(f"index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got {reduce}.")
    return index_add_check(self, dim, index, source, "index_reduce_")


def index_reduce(self, dim, index, source, reduce, *, include_self=True):
    index_reduce_check(self, dim, index, source, reduce)
    return _t(self._size, self.dtype)


def index_reduce_(self, dim, index, source, reduce, *, include_self=True):
    index_reduce_check(self, dim, index, source, reduce)
    return self


def index_reduce_out(self, dim, index, source, reduce, *, include_self=True, out):
    index_reduce_check(self, dim, index, source, reduce)
    check_out(out, self._size, self.dtype, "index_reduce", exact)
    return out


_INT_KINDS = (D.int64, D.int32, D.int16, D.int8, D.uint8, D.bool_)


def _fmt_indexing(xs):
    return "[" + ", ".join(str(x) for x in xs) + "]"


def is_mask(t):
    return t.dtype is D.bool_ or t.dtype is D.uint8


def index_plan(self, indices):
    """Check `indices` against self and return (entries, broadcast index shape, result shape), where
    entries is a list of (dim, tensor or None) covering self's leading dims."""
    indices = list(indices)
    entries, d = [], 0
    for pos, idx in enumerate(indices):
        if idx is None:
            entries.append((d, None))
            d += 1
            continue
        if not isinstance(idx, Tensor):
            raise TypeError(f"index(): expected Tensor or None as element {pos} of indices, got {type(idx).__name__}")
        if idx.dtype not in _INT_KINDS:
            raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
        k = idx.dim() if is_mask(idx) else 1
        if d + k > self.dim():
            raise IndexError(f"too many indices for tensor of dimension {self.dim()} (got {d + k})")
        if is_mask(idx):
            for j in range(k):
                if idx._size[j] != self._size[d + j]:
                    raise IndexError(f"The shape of the mask {_fmt_indexing(idx._size)} at index {j} does not match the shape "
                                     f"of the indexed tensor {_fmt_indexing(self._size)} at index {d + j}")
        entries.append((d, idx))
        d += k
    adv = [(dd, t) for dd, t in entries if t is not None]
    if not adv:
        raise RuntimeError("index(): at least one of the indices must be a tensor (got only None)")
    shapes = [_index_shape(t) for _, t in adv]
    bshape = _broadcast_index_shapes(shapes)
    first = adv[0][0]
    last_end = adv[-1][0] + (adv[-1][1].dim() if is_mask(adv[-1][1]) else 1)
    covered = [p for p, (dd, t) in enumerate(entries) if t is not None]
    adjacent = covered == list(range(covered[0], covered[-1] + 1))
    if adjacent:
        shape = self._size[:first] + bshape + self._size[last_end:]
    else:
        rest = tuple(self._size[dd] for dd, t in entries if t is None) + self._size[d:]
        shape = bshape + rest
    return entries, bshape, shape


def _index_shape(t):
    if is_mask(t):
        if t._np is None:
            raise NotImplementedError("aten::nonzero: a boolean mask index needs data to compute the result shape; "
                                      "it cannot run on the meta device")
        return (int(t._np.sum()),)
    return t._size


def _broadcast_index_shapes(shapes):
    nd = max(len(s) for s in shapes)
    out = [1] * nd
    for s in shapes:
        for i, x in enumerate(s):
            j = nd - len(s) + i
            if x != out[j] and x != 1 and out[j] != 1:
                raise IndexError("shape mismatch: indexing tensors could not be broadcast together with shapes "
                                 + ", ".join(_fmt_indexing(z) for z in shapes))
            if x != 1:
                out[j] = x
    return tuple(out)


def index_strides(self, entries, bshape, shape):
    """Output strides of index.Tensor: TensorIterator's dim order over the restrided self (indexed dims
    replaced by the index shape with stride 0) and the broadcast index tensors (ATen's make_info)."""
    st = self.stride()
    adv_dims = []
    for d, t in entries:
        if t is not None:
            adv_dims.extend(range(d, d + (t.dim() if is_mask(t) else 1)))
    covered = [p for p, (d, t) in enumerate(entries) if t is not None]
    if covered != list(range(covered[0], covered[-1] + 1)):      # transposeToFront
        order = adv_dims + [i for i in range(self.dim()) if i not in adv_dims]
        sizes, strides = [self._size[i] for i in order], [st[i] for i in order]
        adv_dims = list(range(len(adv_dims)))
    else:
        sizes, strides = list(self._size), list(st)
    before, after = adv_dims[0], adv_dims[-1] + 1
    src = (sizes[:before] + list(bshape) + sizes[after:], strides[:before] + [0] * len(bshape) + strides[after:])
    operands = [src]
    nb = len(bshape)
    tail = len(shape) - before - nb
    from .view import compute_stride
    for d, t in entries:
        if t is None:
            continue
        if is_mask(t):      # one nonzero() column per mask dim: shape (count,), stride k
            cols = [(_index_shape(t), (t.dim(),))] * t.dim()
        else:
            cols = [(t._size, t.stride())]
        for ish, ist in cols:
            pad = nb - len(ish)
            ish, ist = (1,) * pad + tuple(ish), (0,) * pad + tuple(ist)
            ist = tuple(0 if a == 1 and b != 1 else x for a, b, x in zip(ish, bshape, ist))   # expand
            full = (1,) * before + tuple(bshape) + (1,) * tail
            operands.append((full, compute_stride(tuple(bshape), ist, full)))   # reshape_indexer
    return iterator_strides(shape, operands)


def index(self, indices):
    entries, bshape, shape = index_plan(self, indices)
    return empty_tensor(shape, self.dtype, META, index_strides(self, entries, bshape, shape))


def check_index_put(self, indices, values):
    if not isinstance(values, Tensor):
        raise TypeError(f"index_put_(): argument 'values' must be Tensor, not {type(values).__name__}")
    if values.dtype is not self.dtype:
        raise RuntimeError(f"Index put requires the source and destination dtypes match, got {_tname(self.dtype)} "
                           f"for the destination and {_tname(values.dtype)} for the source.")
    entries, bshape, shape = index_plan(self, indices)
    v = values._size
    ok = len(v) <= len(shape) and all(a == b or a == 1 for a, b in zip(v[::-1], shape[::-1]))
    if not ok:
        raise RuntimeError(f"shape mismatch: value tensor of shape {_fmt_indexing(v)} cannot be broadcast to indexing result "
                           f"of shape {_fmt_indexing(shape)}")
    from .copy import has_internal_overlap
    if has_internal_overlap(self):      # torch writes anyway (each location gets one of its values)
        warn_user("Use of index_put_ on expanded tensors is deprecated. Please clone() the tensor before "
                  "performing this operation. This also applies to advanced indexing e.g. tensor[indices] = "
                  "tensor")
    return entries, shape


def index_put_(self, indices, values, accumulate=False):
    check_index_put(self, indices, values)
    return self


def nonzero_static_shape(self, size):
    """(size, ndim): nonzero_static's fixed output shape."""
    if size < 0:
        raise RuntimeError("nonzero_static: 'size' must be an non-negative integer")
    return (int(size), self.dim())


def nonzero_static(self, *, size, fill_value=-1):
    return empty_tensor(nonzero_static_shape(self, size), D.int64, META)
