"""CompositeImplicitAutograd decompositions of view and memory ops into other ember ops
(torch's TensorShape.cpp / TensorConversions.cpp). They run through the dispatcher again, so
autograd, modes and meta all see the underlying ops."""
from ..._core.dispatch_keys import AUTOGRAD_BIT, PYTHON_BIT
from ..._core.strides import _CONTIGUOUS, is_contiguous, wrap_dim
from ..._core.tls import GRAD_OFF as _GRAD_OFF, state
from ..common import _tname
from ..meta.view import _contiguous_get, _fmt, _int_shape, _intlist, compute_stride, infer_size
from ..._ops import ops
from ... import _ops
from ..._core.tensor_impl import TensorImpl, _CPU_KS
from ..._core.tls import KEYS_ACTIVE as _KEYS_ACTIVE

aten = ops.aten
_CACHES = []            # see _view_caches
_wrap_fresh = TensorImpl._wrap_fresh


# ---------------------------------------------------------------- reshaping
def is_tensor_subclass_like(t):
    """torch's isTensorSubclassLike: a tensor subclass (the Python key) or any tensor while a dispatch mode is
    active. Composites take their functional, plain-view route for those (no _reshape_alias, no in-place)."""
    return bool((t._ks | state.include) & PYTHON_BIT)


def _view_caches():
    """[view's, _reshape_alias's, clone's, slice's, split's] dispatch caches (dicts the dispatcher clears, never replaces), looked up
    on first use: the ops are registered after this module is imported."""
    _CACHES.extend((aten.view.default._dispatch_cache, aten._reshape_alias.default._dispatch_cache,
                    aten.clone.default._dispatch_cache, aten.slice.Tensor._dispatch_cache,
                    aten.split.Tensor._dispatch_cache))
    return _CACHES


def reshape(self, shape):
    a = self._np
    cls = shape.__class__
    if a is not None and (cls is tuple or cls is list) and not _KEYS_ACTIVE[0]:
        # A cpu tensor to a tuple or list of ints (ViewBackward0's grad.reshape(sizes), matmul's folds, a model's
        # x.reshape(B, -1)) with no thread-local keys set: the view / _reshape_alias / clone kernel straight from
        # that op's dispatch cache, under the key set the dispatcher would compute (OpOverload.__call__: the
        # Autograd key dropped where grad mode is off); an entry not cached yet goes through the dispatcher once.
        # CPU-time minima, (8, 32, 64) -> (256, 64), us, ember before -> after / torch, load ~10: contiguous
        # 2.7 -> 2.1 / 0.7; a split piece (viewable, not contiguous) 12.9 -> 3.9 / 1.0 (_reshape_alias by numpy's
        # view, meta/view.py; callgrind 112k -> 28.6k instructions).
        shp = _int_shape(shape if cls is tuple else tuple(shape), a.size)
        if shp is not None and a.size:
            caches = _CACHES or _view_caches()
            ks = self._ks
            if _GRAD_OFF and ks & AUTOGRAD_BIT:
                ks &= ~state._exclude
            st = self._stride
            if st is None or st == _contiguous_get(self._size):
                k = caches[0].get(ks)
                return aten.view.default(self, shp) if k is None else k(self, shp)
            new_st = compute_stride(self._size, st, shp)
            if new_st is not None:
                # torch: a contiguous tensor is viewed; any other viewable layout goes through _reshape_alias
                # (ReshapeAliasBackward0), except for tensor subclasses (isTensorSubclassLike: the Python key),
                # which see a plain view
                if ks & PYTHON_BIT or is_contiguous(self._size, st):
                    k = caches[0].get(ks)
                    return aten.view.default(self, shp) if k is None else k(self, shp)
                k = caches[1].get(ks)
                return aten._reshape_alias.default(self, shp, new_st) if k is None else k(self, shp, new_st)
            # a permuted view's copy (attention's (B, H, T, D) -> (B, T, H*D)): _unsafe_view of a contiguous clone,
            # torch's result is no view either
            k = caches[2].get(ks)
            if k is not None:
                c = k(self, memory_format="contiguous_format")
                if ks == _CPU_KS and _ops._observer is None:
                    # a plain cpu tensor, nothing recording, no profiler: the fresh contiguous copy reshaped by
                    # numpy, as _unsafe_view of a private clone is. 72k -> ~25k instructions for an 8x8 permuted
                    # view.
                    return _wrap_fresh(c._np.reshape(shp), c.dtype)
                return aten._unsafe_view.default(c, shp)
            return aten._unsafe_view.default(aten.clone.default(self, memory_format="contiguous_format"), shp)
    shape = infer_size(_intlist(shape), self.numel())
    st = compute_stride(self._size, self.stride(), shape)
    if st is not None:
        # (the rule above: a view for a contiguous tensor or a tensor subclass / under a dispatch mode)
        if is_tensor_subclass_like(self) or is_contiguous(self._size, self.stride()):
            return aten.view.default(self, shape)
        return aten._reshape_alias.default(self, shape, st)
    return aten._unsafe_view.default(aten.clone.default(self, memory_format="contiguous_format"), shape)


def reshape_as(self, other):
    return reshape(self, other._size)


def view_as(self, other):
    return aten.view.default(self, other._size)


def expand_as(self, other):
    return aten.expand.default(self, other._size)


def flatten(self, start_dim=0, end_dim=-1):
    size = self._size
    nd = len(size)
    if start_dim.__class__ is int and end_dim.__class__ is int and -nd <= start_dim < nd and -nd <= end_dim < nd:
        # int dims in range (x.flatten(1) on every call of a CNN's head): the shape from the input's tuple
        s = start_dim + nd if start_dim < 0 else start_dim
        e = end_dim + nd if end_dim < 0 else end_dim
        if s < e:
            n = 1
            for x in size[s:e + 1]:
                n *= x
            return reshape(self, size[:s] + (n,) + size[e + 1:])
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
    return aten.view.default(self, self._size[:d] + inferred + self._size[d + 1:])


def _cached_kernel(i, t):
    """The kernel OpOverload.__call__ would run for an op of _view_caches()[i] whose one tensor argument is t, when
    no thread-local keys are set and it is cached; else None (the caller goes through the dispatcher)."""
    if _KEYS_ACTIVE[0]:
        return None
    ks = t._ks
    if _GRAD_OFF and ks & AUTOGRAD_BIT:
        ks &= ~state._exclude
    return (_CACHES or _view_caches())[i].get(ks)


def narrow(self, dim, start, length):
    size = self._size
    nd = len(size)
    if (self._np is not None and dim.__class__ is int and start.__class__ is int and length.__class__ is int
            and -nd <= dim < nd and length >= 0):
        # a cpu tensor and ints in range: slice's kernel from its dispatch cache (narrow(2, 0, 64) of (8, 32, 192):
        # 5.6 -> 1.7 us, torch 1.5); anything else takes the checks below
        d = dim + nd if dim < 0 else dim
        n = size[d]
        if -n <= start <= n:
            if start < 0:
                start += n
            if start + length <= n:
                k = _cached_kernel(3, self)
                if k is not None:
                    return k(self, d, start, start + length, 1)
    from ..meta.view import narrow as _check
    _check(self, dim, start, length)   # validation only (metadata)
    n = self._size[wrap_dim(dim, self.dim())]
    start = start + n if start < 0 else start
    return aten.slice.Tensor(self, dim, start, start + length, 1)


def chunk(self, chunks, dim=0):
    size = self._size
    nd = len(size)
    if chunks.__class__ is int and chunks > 0 and dim.__class__ is int and -nd <= dim < nd:
        d = dim + nd if dim < 0 else dim
        n = size[d]
        if n:
            # split's kernel from its dispatch cache (chunk(3, dim=2) of (8, 32, 192): 7.4 -> 3.7 us, torch 2.4)
            k = _cached_kernel(4, self)
            split_size = (n + chunks - 1) // chunks
            return aten.split.Tensor(self, split_size, d) if k is None else k(self, split_size, d)
    if self.dim() == 0:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    d = wrap_dim(dim, self.dim())
    n = self._size[d]
    split_size = (n + chunks - 1) // chunks
    if split_size == 0 and n == 0:
        sizes = [0] * chunks
        return aten.split_with_sizes.default(self, sizes, d)
    return aten.split.Tensor(self, split_size, d)


def adjoint(self):
    if self.dim() < 2:
        raise RuntimeError(f"tensor.adjoint() is only supported on matrices or batches of matrices. "
                           f"Got 1-D tensor." if self.dim() == 1 else
                           "tensor.adjoint() is only supported on matrices or batches of matrices. Got 0-D tensor.")
    r = aten.transpose.int(self, -2, -1)
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
    return aten.permute.default(self, order)


def movedim_int(self, source, destination):
    return movedim_intlist(self, [source], [destination])


def swapaxes(self, axis0, axis1):
    return aten.transpose.int(self, axis0, axis1)


def swapdims(self, dim0, dim1):
    return aten.transpose.int(self, dim0, dim1)


def swapaxes_(self, axis0, axis1):
    return aten.transpose_.default(self, axis0, axis1)


def swapdims_(self, dim0, dim1):
    return aten.transpose_.default(self, dim0, dim1)


def ravel(self):
    return aten.view.default(aten.contiguous.default(self), [-1])


# ---------------------------------------------------------------- unsafe_split / unsafe_chunk
def unsafe_split(self, split_size, dim=0):
    """split's pieces (torch's unsafe_ forms skip the view bookkeeping; the values are the same)."""
    return aten.split.Tensor(self, split_size, dim)


def unsafe_split_with_sizes(self, split_sizes, dim=0):
    return aten.split_with_sizes.default(self, split_sizes, dim)


def unsafe_chunk(self, chunks, dim=0):
    return chunk(self, chunks, dim)


# ---------------------------------------------------------------- tensor_split and h/v/dsplit
def _check_split_dim(self):
    if self.dim() == 0:
        raise RuntimeError("tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims")


def tensor_split_sections(self, sections, dim=0):
    _check_split_dim(self)
    sections = int(sections)      # a 0-dim integer tensor binds to SymInt too
    if sections <= 0:
        raise RuntimeError(f"number of sections must be larger than 0, got {sections}")
    d = wrap_dim(dim, self.dim())
    n = self._size[d]
    size, extra = divmod(n, sections)
    out, start = [], 0
    for i in range(sections):
        stop = start + size + (1 if i < extra else 0)
        out.append(aten.slice.Tensor(self, d, start, stop))
        start = stop
    return out


def tensor_split_indices(self, indices, dim=0):
    _check_split_dim(self)
    d = wrap_dim(dim, self.dim())
    out, start = [], 0
    for idx in _intlist(indices):
        out.append(aten.slice.Tensor(self, d, start, idx))
        start = idx
    out.append(aten.slice.Tensor(self, d, start, self._size[d]))
    return out


def tensor_split_tensor_indices_or_sections(self, tensor_indices_or_sections, dim=0):
    _check_split_dim(self)
    t = tensor_indices_or_sections
    if t.device.type != "cpu":
        raise RuntimeError(f"tensor_split expected tensor_indices_or_sections to be on cpu, but it's on {t.device}")
    if t.dtype.name != "int64":
        raise RuntimeError(f"tensor_split expected tensor_indices_or_sections to have dtype of long, but got "
                           f"{_tname(t.dtype)}")
    if t.dim() > 1:
        raise RuntimeError("tensor_split expected tensor_indices_or_sections to be a zero-dimensional or "
                           f"one-dimensional tensor, but got a tensor with {t.dim()} dims")
    if t.dim() == 0:
        return tensor_split_sections(self, int(t.item()), dim)
    return tensor_split_indices(self, [int(v) for v in t.tolist()], dim)


def _directional_split(self, name, min_dim, dim, sections):
    if self.dim() < min_dim:
        raise RuntimeError(f"torch.{name} requires a tensor with at least {min_dim} dimension, but got a tensor with "
                           f"{self.dim()} dimensions!")
    if isinstance(sections, int) or sections.__class__.__name__ == "SymInt":
        if sections == 0 or self._size[dim] % sections != 0:
            raise RuntimeError(f"torch.{name} attempted to split along dimension {dim}, but the size of the "
                               f"dimension {self._size[dim]} is not divisible by the split_size {sections}!")
        return tensor_split_sections(self, sections, dim)
    return tensor_split_indices(self, sections, dim)


def hsplit(self, sections=None, indices=None):
    return _directional_split(self, "hsplit", 1, 0 if self.dim() == 1 else 1, sections if indices is None else indices)


def vsplit(self, sections=None, indices=None):
    return _directional_split(self, "vsplit", 2, 0, sections if indices is None else indices)


def dsplit(self, sections=None, indices=None):
    return _directional_split(self, "dsplit", 3, 2, sections if indices is None else indices)


# ---------------------------------------------------------------- joining


# ---------------------------------------------------------------- conversions
