"""CompositeImplicitAutograd decompositions of view and memory ops into other ember ops
(torch's TensorShape.cpp / TensorConversions.cpp). They run through the dispatcher again, so
autograd, modes and meta all see the underlying ops."""
from .._core.device import as_device
from .._core.strides import wrap_dim
from .common import as_dtype
from .meta.view import _fmt, _intlist, compute_stride, infer_size

_aten = None


def _ops():
    global _aten
    if _aten is None:
        from .._ops import ops
        _aten = ops.aten
    return _aten


# ---------------------------------------------------------------- reshaping
def reshape(self, shape):
    shape = infer_size(_intlist(shape), self.numel())
    if compute_stride(self._size, self.stride(), shape) is not None:
        return _ops().view.default(self, shape)
    return _ops()._unsafe_view.default(_ops().clone.default(self, memory_format="contiguous_format"), shape)


def reshape_as(self, other):
    return reshape(self, other._size)


def view_as(self, other):
    return _ops().view.default(self, other._size)


def expand_as(self, other):
    return _ops().expand.default(self, other._size)


def flatten(self, start_dim=0, end_dim=-1):
    nd = self.dim()
    s, e = wrap_dim(start_dim, nd), wrap_dim(end_dim, nd)
    if s > e:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if nd == 0:
        return reshape(self, (1,))
    if s == e:
        return self
    n = 1
    for x in self._size[s:e + 1]:
        n *= x
    return reshape(self, self._size[:s] + (n,) + self._size[e + 1:])


def unflatten(self, dim, sizes):
    d = wrap_dim(dim, self.dim())
    sizes = _intlist(sizes)
    if not sizes:
        raise RuntimeError("unflatten: sizes must be non-empty")
    n = self._size[d]
    try:
        inferred = infer_size(sizes, n)
    except RuntimeError:
        if sizes.count(-1) > 1:
            raise
        raise RuntimeError(f"unflatten: Provided sizes {_fmt(sizes)} don't multiply up to the size of dim {dim} "
                           f"({n}) in the input tensor") from None
    return _ops().view.default(self, self._size[:d] + inferred + self._size[d + 1:])


def narrow(self, dim, start, length):
    from .meta.view import narrow as _check
    _check(self, dim, start, length)   # validation only (metadata)
    n = self._size[wrap_dim(dim, self.dim())]
    start = start + n if start < 0 else start
    return _ops().slice.Tensor(self, dim, start, start + length, 1)


def chunk(self, chunks, dim=0):
    if self.dim() == 0:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    d = wrap_dim(dim, self.dim())
    n = self._size[d]
    split_size = (n + chunks - 1) // chunks
    if split_size == 0 and n == 0:
        sizes = [0] * chunks
        return _ops().split_with_sizes.default(self, sizes, d)
    return _ops().split.Tensor(self, split_size, d)


def adjoint(self):
    if self.dim() < 2:
        raise RuntimeError(f"tensor.adjoint() is only supported on matrices or batches of matrices. "
                           f"Got 1-D tensor." if self.dim() == 1 else
                           "tensor.adjoint() is only supported on matrices or batches of matrices. Got 0-D tensor.")
    r = _ops().transpose.int(self, -2, -1)
    return r.conj() if self.is_complex() else r


def movedim_intlist(self, source, destination):
    nd = self.dim()
    src, dst = _intlist(source), _intlist(destination)
    if len(src) != len(dst):
        raise RuntimeError(f"movedim: Invalid source or destination dims: source ({_fmt(src)} dims) should contain "
                           f"the same number of dims as destination ({_fmt(dst)} dims)")
    src = [wrap_dim(s, nd) for s in src]
    dst = [wrap_dim(s, nd) for s in dst]
    if len(set(src)) != len(src):
        raise RuntimeError(f"movedim: repeated dim in `source` ({_fmt(source)})")
    if len(set(dst)) != len(dst):
        raise RuntimeError(f"movedim: repeated dim in `destination` ({_fmt(destination)})")
    order = [-1] * nd
    for s, d in zip(src, dst):
        order[d] = s
    rest = iter(i for i in range(nd) if i not in src)
    order = [o if o != -1 else next(rest) for o in order]
    return _ops().permute.default(self, order)


def movedim_int(self, source, destination):
    return movedim_intlist(self, [source], [destination])


def contiguous(self, memory_format="contiguous_format"):
    if self.is_contiguous(memory_format=memory_format):
        return self
    return _ops().clone.default(self, memory_format=memory_format)


# ---------------------------------------------------------------- joining
def stack(tensors, dim=0):
    tensors = list(tensors)
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    shape0 = tensors[0]._size
    for i, t in enumerate(tensors[1:], 1):
        if t._size != shape0:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got {_fmt(shape0)} at entry 0 and "
                               f"{_fmt(t._size)} at entry {i}")
    d = wrap_dim(dim, len(shape0) + 1)
    return _ops().cat.default([_ops().unsqueeze.default(t, d) for t in tensors], d)


def _atleast(t, n):
    while t.dim() < n:
        t = _ops().unsqueeze.default(t, 0) if t.dim() == 0 or n == 1 else _ops().unsqueeze.default(t, 0)
    return t


def hstack(tensors):
    ts = [_atleast(t, 1) for t in tensors]
    if not ts:
        raise RuntimeError("hstack expects a non-empty TensorList")
    return _ops().cat.default(ts, 0 if ts[0].dim() == 1 else 1)


def vstack(tensors):
    ts = [_atleast(t, 2) for t in tensors]
    if not ts:
        raise RuntimeError("vstack expects a non-empty TensorList")
    return _ops().cat.default(ts, 0)


# ---------------------------------------------------------------- conversions
def _to_impl(self, dtype, device, copy, memory_format):
    dtype = as_dtype(dtype) or self.dtype
    device = as_device(device) or self.device
    mf = memory_format or "preserve_format"
    if (not copy and dtype is self.dtype and device.type == self.device.type
            and (mf == "preserve_format" or self.is_contiguous(memory_format=mf))):
        return self
    return _ops()._to_copy.default(self, dtype=dtype, device=device, memory_format=memory_format)


def to_dtype(self, dtype, non_blocking=False, copy=False, memory_format=None):
    return _to_impl(self, dtype, None, copy, memory_format)


def to_device(self, device, dtype, non_blocking=False, copy=False, memory_format=None):
    return _to_impl(self, dtype, device, copy, memory_format)


def to_other(self, other, non_blocking=False, copy=False, memory_format=None):
    return _to_impl(self, other.dtype, other.device, copy, memory_format)


def to_dtype_layout(self, dtype=None, layout=None, device=None, pin_memory=None, non_blocking=False, copy=False,
                    memory_format=None):
    if layout not in (None, "strided"):
        raise RuntimeError(f"to(): layout {layout} is not supported by ember (strided only)")
    return _to_impl(self, dtype, device, copy, memory_format)


def index_put(self, indices, values, accumulate=False):
    return _ops().index_put_.default(_ops().clone.default(self), indices, values, accumulate)
