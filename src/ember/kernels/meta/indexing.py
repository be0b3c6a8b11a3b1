"""Meta functions for advanced indexing (ATen's TensorAdvancedIndexing.cpp / IndexingUtils):
index.Tensor's result shape and index_put_'s checks. A `Tensor?[] indices` list is consumed from dim 0;
None keeps a dim whole, a bool/uint8 mask of k dims consumes k dims, an integer tensor one dim."""
from ..._core import dtype as D
from ..._core.device import META
from ..._core.strides import iterator_strides
from ..._core.tensor_impl import TensorImpl as Tensor
from ..common import _tname, empty_tensor

_INT_KINDS = (D.int64, D.int32, D.int16, D.int8, D.uint8, D.bool_)


def _fmt(xs):
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
                    raise IndexError(f"The shape of the mask {_fmt(idx._size)} at index {j} does not match the shape "
                                     f"of the indexed tensor {_fmt(self._size)} at index {d + j}")
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
                                 + ", ".join(_fmt(z) for z in shapes))
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
        raise RuntimeError(f"shape mismatch: value tensor of shape {_fmt(v)} cannot be broadcast to indexing result "
                           f"of shape {_fmt(shape)}")
    from .copy import check_no_internal_overlap
    check_no_internal_overlap(self)
    return entries, shape


def index_put_(self, indices, values, accumulate=False):
    check_index_put(self, indices, values)
    return self
