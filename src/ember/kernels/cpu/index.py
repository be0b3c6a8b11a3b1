"""cpu kernels for gather/scatter, index_* along a dim, masked_* and take: each op is one numpy fancy-indexing
call or one unbuffered ufunc.at (np.add.at ...) over an index grid. Checks come from meta/index.py."""
import ctypes

import numpy as np

from ..._core import dtype as D
from ..._core.tensor_impl import TensorImpl as Tensor
from ..common import check_out, empty_tensor
from ..out_rules import exact, same_scalar_type, TAKE
from ..meta import index as M
from ..._core.scalar_value import check_number
from ..meta.index import check_index_put
from ..meta.index import index_plan
from ..meta.index import index_strides
from ..meta.index import is_mask
from .elementwise import _c_run
from .runtime import clib, flat


def _wrap(arr, dtype):
    arr = np.asarray(arr)
    if arr.dtype != dtype._np:
        arr = arr.astype(dtype._np)
    return Tensor._wrap_np(np.ascontiguousarray(arr) if arr.ndim else arr.copy(), dtype)


def _as1d(a):
    """0-dim arrays act as 1-d of size 1 (a view, so writes reach the tensor)."""
    return a.reshape(1) if a.ndim == 0 else a


def _np(x):
    return x._np if isinstance(x, Tensor) else x


def _bounds(idx, d, n, fmt="index {v} is out of bounds for dimension {d} with size {n}", exc=RuntimeError,
            negative=False):
    lo = -n if negative else 0
    bad = (idx < lo) | (idx >= n)
    if bad.any():
        raise exc(fmt.format(v=int(idx[bad].reshape(-1)[0]), d=d, n=n))
    return idx + n * (idx < 0) if negative else idx


def _grid(index, d):
    """The full index tuple of a scatter/gather: `index` along d, an open grid along every other dim."""
    idx = list(np.indices(index.shape, sparse=True))
    idx[d] = index
    return tuple(idx)


def _copy_out(r, out, name, rule=None):
    check_out(out, r._size, r.dtype, name, rule)
    np.copyto(out._np, r._np, casting="unsafe")
    return out


# ------------------------------------------------------------------ gather
_UNSIGNED = {np.dtype(np.int64): np.uint64, np.dtype(np.int32): np.uint32}
_umax = np.maximum.reduce
_BASES = {}             # (index shape, input shape, dim) -> (linear offsets of the other dims, dim's stride, size)


def _in_range(i, n):
    """Every element of the int32/int64 array i (not empty) in [0, n): one reduction over i read as unsigned
    (a negative index reads as a huge one). False sends the caller to the general path and its error."""
    u = _UNSIGNED.get(i.dtype)
    return u is not None and int(_umax(i.view(u), axis=None)) < n


def _small_gather(self, dim, index):
    """gather of a contiguous input by an int64 index of its shape except along dim (not a smaller block of
    it) with every index in range: the index times dim's stride plus cached linear offsets of the other dims,
    one `take` from the flat input; the general path's values and a fresh contiguous result (issue 18: 9.4 us
    against torch's 1.6 for an (8, 8) input). None when it does not apply."""
    a, i = self._np, index._np
    if (a is None or i is None or index.dtype is not D.int64 or not 0 < i.size <= 4096 or dim.__class__ is not int
            or self._stride is not None and not a.flags.c_contiguous):
        return None     # (`_stride` None: c-contiguous; a tensor that had a view taken keeps explicit strides)
    key = (i.shape, a.shape, dim)
    ent = _BASES.get(key)
    if ent is None:
        nd = a.ndim
        if not 0 < nd == i.ndim or not -nd <= dim < nd:
            return None
        d = dim + nd if dim < 0 else dim
        if a.shape[:d] != i.shape[:d] or a.shape[d + 1:] != i.shape[d + 1:]:
            return None
        st = [x // a.itemsize for x in a.strides]
        grid = np.indices(i.shape, sparse=True)
        base = sum(g * s for k, (g, s) in enumerate(zip(grid, st)) if k != d) + np.zeros(i.shape, np.intp)
        if len(_BASES) >= 256:
            _BASES.clear()
        ent = _BASES[key] = (base, st[d], a.shape[d])
    base, sd, n = ent
    if not _in_range(i, n):
        return None
    lin = i + base if sd == 1 else i * sd + base
    return Tensor._wrap_fresh(a.reshape(-1).take(lin), self.dtype)


def gather(self, dim, index, *, sparse_grad=False):
    r = _small_gather(self, dim, index)
    if r is not None:
        return r
    d = M.gather_check(self, dim, index)
    if index.numel() == 0:
        return empty_tensor(index._size, self.dtype)
    a, i = _as1d(self._np), _as1d(index._np).astype(np.intp)
    _bounds(i, d, a.shape[d])
    return _wrap(a[_grid(i, d)].reshape(index._size), self.dtype)


def gather_out(self, dim, index, *, sparse_grad=False, out):
    return _copy_out(gather(self, dim, index), out, "gather", exact)


# ------------------------------------------------------------------ scatter family: write into `target` (validated)
_AT = {"add": np.add, "multiply": np.multiply, "sum": np.add, "prod": np.multiply, "mean": np.add,
       "amax": np.maximum, "amin": np.minimum}


def _scatter_into(target, dim, index, src, reduce=None):
    if index.numel() == 0:
        return target
    a = _as1d(target._np)
    i = _as1d(index._np).astype(np.intp)
    _bounds(i, dim, a.shape[dim])
    idx = _grid(i, dim)
    if isinstance(src, Tensor):
        s = _as1d(src._np)[tuple(slice(0, n) for n in i.shape)]
    else:
        s = np.asarray(src).astype(a.dtype) if a.dtype != np.bool_ else bool(src)
    if reduce is None:
        a[idx] = s
    else:
        _AT[reduce].at(a, idx, s)
    return target


def _fresh(self):
    return _wrap(self._np.copy(), self.dtype)


def _clone_preserve(self):
    """self.clone() with preserve_format (index_fill's out-of-place result keeps a dense input's layout)."""
    out = empty_tensor(self._size, self.dtype, strides=M.preserve_strides(self))
    if self.numel():
        out._np[...] = self._np
    return out


def scatter_src(self, dim, index, src):
    d = M.scatter_check(self, dim, index, src)
    return _scatter_into(_fresh(self), d, index, src)


def scatter__src(self, dim, index, src):
    d = M.scatter_check(self, dim, index, src)
    return _scatter_into(self, d, index, src)


def scatter_src_out(self, dim, index, src, *, out):
    return _copy_out(scatter_src(self, dim, index, src), out, "scatter", exact)


def scatter_value(self, dim, index, value):
    d = M.scatter_check(self, dim, index)
    return _scatter_into(_fresh(self), d, index, value)


def scatter__value(self, dim, index, value):
    d = M.scatter_check(self, dim, index)
    return _scatter_into(self, d, index, value)


def scatter_value_out(self, dim, index, value, *, out):
    return _copy_out(scatter_value(self, dim, index, value), out, "scatter", exact)


def scatter_reduce(self, dim, index, src, *, reduce):
    d = M.scatter_check(self, dim, index, src)
    M.check_reduce(reduce)
    return _scatter_into(_fresh(self), d, index, src, reduce)


def scatter__reduce(self, dim, index, src, *, reduce):
    d = M.scatter_check(self, dim, index, src)
    M.check_reduce(reduce)
    return _scatter_into(self, d, index, src, reduce)


def scatter_reduce_out(self, dim, index, src, *, reduce, out):
    return _copy_out(scatter_reduce(self, dim, index, src, reduce=reduce), out, "scatter", exact)


def scatter_value_reduce(self, dim, index, value, *, reduce):
    d = M.scatter_check(self, dim, index)
    M.check_reduce(reduce)
    return _scatter_into(_fresh(self), d, index, value, reduce)


def scatter__value_reduce(self, dim, index, value, *, reduce):
    d = M.scatter_check(self, dim, index)
    M.check_reduce(reduce)
    return _scatter_into(self, d, index, value, reduce)


def scatter_value_reduce_out(self, dim, index, value, *, reduce, out):
    return _copy_out(scatter_value_reduce(self, dim, index, value, reduce=reduce), out, "scatter", exact)


def scatter_add(self, dim, index, src):
    d = M.scatter_check(self, dim, index, src, "scatter_add")
    return _scatter_into(_fresh(self), d, index, src, "add")


def scatter_add_(self, dim, index, src):
    d = M.scatter_check(self, dim, index, src, "scatter_add")
    return _scatter_into(self, d, index, src, "add")


def scatter_add_out(self, dim, index, src, *, out):
    return _copy_out(scatter_add(self, dim, index, src), out, "scatter_add", exact)


def _identity(reduce, dt):
    if reduce in ("sum", "mean"):
        return 0
    if reduce == "prod":
        return 1
    big = np.inf if dt.kind == "f" else (True if dt.kind == "b" else np.iinfo(dt).max)
    low = -np.inf if dt.kind == "f" else (False if dt.kind == "b" else np.iinfo(dt).min)
    return low if reduce == "amax" else big


def _scatter_reduce_into(target, d, index, src, reduce, include_self):
    """ATen's scatter_reduce_two: positions hit by index start at the reduction's identity unless include_self;
    mean divides by the number of contributions (floor division for integers)."""
    reduce = M.SCATTER_REDUCE_ALIASES.get(reduce, reduce)
    if index.numel() == 0:
        return target
    a = _as1d(target._np)
    i = _bounds(_as1d(index._np).astype(np.intp), d, a.shape[d])
    idx = _grid(i, d)
    s = _as1d(src._np)[tuple(slice(0, n) for n in i.shape)]
    work = a.copy()
    if not include_self:
        work[idx] = _identity(reduce, a.dtype)
    _AT[reduce].at(work, idx, s)
    if reduce == "mean":
        count = np.full(a.shape, 1 if include_self else 0, np.int64)
        np.add.at(count, idx, 1)
        count[count == 0] = 1
        work = work // count if a.dtype.kind in "iu" else (work / count).astype(a.dtype)
    a[...] = work
    return target


def scatter_reduce_two(self, dim, index, src, reduce, *, include_self=True):
    d = M.scatter_check(self, dim, index, src, "scatter_reduce")
    M.check_reduce(reduce, True)
    return _scatter_reduce_into(_fresh(self), d, index, src, reduce, include_self)


def scatter_reduce__two(self, dim, index, src, reduce, *, include_self=True):
    d = M.scatter_check(self, dim, index, src, "scatter_reduce")
    M.check_reduce(reduce, True)
    return _scatter_reduce_into(self, d, index, src, reduce, include_self)


def scatter_reduce_two_out(self, dim, index, src, reduce, *, include_self=True, out):
    return _copy_out(scatter_reduce_two(self, dim, index, src, reduce, include_self=include_self), out, "scatter_reduce", exact)


# ------------------------------------------------------------------ index_select / index_add / index_copy / index_fill
def index_select(self, dim, index):
    # The small path (issue 18: 6.3 us against torch's 2.0 for 3 rows of an (8, 8) input): a 1-d int64 index
    # with every entry in range, an input of at least one dim: one `take` (fresh and contiguous, as the
    # general path's result); anything else, and the range error, on the general path.
    a, i = self._np, index._np
    if (dim.__class__ is int and i is not None and i.ndim == 1 and a is not None and a.ndim
            and index.dtype is D.int64 and i.size):
        d = dim + a.ndim if dim < 0 else dim
        if 0 <= d < a.ndim and _in_range(i, a.shape[d]):
            return Tensor._wrap_fresh(a.take(i, axis=d), self.dtype)
    d, shape = M.index_select_shape(self, dim, index)
    i = index._np.reshape(-1).astype(np.intp)
    n = self._size[d] if self.dim() else 1
    if ((i < 0) | (i >= n)).any():
        raise IndexError("index out of range in self")
    return _wrap(np.take(_as1d(self._np), i, axis=d).reshape(shape), self.dtype)


def index_select_out(self, dim, index, *, out):
    return _copy_out(index_select(self, dim, index), out, "index_select", same_scalar_type("index_select"))


def _along(a, d):
    """A view of a (0-dim as 1-d) with dim d moved to the front."""
    return np.moveaxis(_as1d(a), d, 0)


def _src_along(source, d):
    return _along(source._np, d) if source.dim() else source._np.reshape(1)


def _index_add_into(target, d, index, source, alpha):
    i = _bounds(index._np.reshape(-1).astype(np.intp), d, target._size[d] if target.dim() else 1)
    if target.numel() == 0 or i.size == 0:
        return target
    v = _along(target._np, d)
    s = _src_along(source, d)
    if alpha != 1:
        s = (s * alpha).astype(v.dtype)
    add_rows(v, i, np.ascontiguousarray(s.reshape((i.size,) + v.shape[1:]), v.dtype))
    return target


def index_add(self, dim, index, source, *, alpha=1):
    d = M.index_add_check(self, dim, index, source)
    return _index_add_into(_fresh(self), d, index, source, alpha)


def index_add_(self, dim, index, source, *, alpha=1):
    d = M.index_add_check(self, dim, index, source)
    return _index_add_into(self, d, index, source, alpha)


def index_add_out(self, dim, index, source, *, alpha=1, out):
    return _copy_out(index_add(self, dim, index, source, alpha=alpha), out, "index_add", exact)


def _index_copy_into(target, d, index, source):
    n = target._size[d] if target.dim() else 1
    i = _bounds(index._np.reshape(-1).astype(np.intp), d, n,
                "index_copy_(): index {v} is out of bounds for dimension {d} with size {n}", IndexError)
    if target.numel() == 0 or i.size == 0:
        return target
    v = _along(target._np, d)
    v[i] = _src_along(source, d).reshape((i.size,) + v.shape[1:])
    return target


def index_copy(self, dim, index, source):
    d = M.index_copy_check(self, dim, index, source)
    return _index_copy_into(_fresh(self), d, index, source)


def index_copy_(self, dim, index, source):
    d = M.index_copy_check(self, dim, index, source)
    return _index_copy_into(self, d, index, source)


def index_copy_out(self, dim, index, source, *, out):
    return _copy_out(index_copy(self, dim, index, source), out, "index_copy")


def _index_fill_into(target, d, index, value):
    n = target._size[d] if target.dim() else 1
    i = _bounds(index._np.reshape(-1).astype(np.intp), d, n, exc=IndexError, negative=True)
    if target.numel() == 0 or i.size == 0:
        return target
    _along(target._np, d)[i] = _np(value if isinstance(value, Tensor) else check_number(target.dtype, value))
    return target


def index_fill_int_Scalar(self, dim, index, value):
    d = M.index_fill_check(self, dim, index, value)
    return _index_fill_into(_clone_preserve(self), d, index, value)


def index_fill__int_Scalar(self, dim, index, value):
    d = M.index_fill_check(self, dim, index, value)
    return _index_fill_into(self, d, index, value)


index_fill_int_Tensor = index_fill_int_Scalar
index_fill__int_Tensor = index_fill__int_Scalar


# ------------------------------------------------------------------ masked_*
_FILL_MAX = {np.dtype(np.float32): float(np.finfo(np.float32).max), np.dtype(np.float64): float(np.finfo(np.float64).max)}


def _c_masked_fill(self, mask, value, out):
    """out = self with `value` where mask, by csrc/elementwise_flat.c's masked_fill (one pass, ember's C pool),
    for a float32/64 tensor, a bool mask of its shape (both c-contiguous) and a Python number the dtype
    holds; False (nothing written) otherwise. out may be self."""
    a, m = self._np, mask._np
    vc = value.__class__
    if not (vc is float or vc is int and -(1 << 53) <= value <= 1 << 53) or a is None or m is None:
        return False
    lim = _FILL_MAX.get(a.dtype)
    if lim is None or m.dtype != np.bool_ or m.shape != a.shape:
        return False
    v = float(value)
    if lim < abs(v) < float("inf"):     # a finite value the dtype cannot hold keeps numpy's path
        return False
    return _c_run("masked_fill", [m, a, out], v)


_FLOAT_KINDS = (np.dtype(np.float32), np.dtype(np.float64))
_INF = float("inf")


_REP_MIN = 4096             # elements: from here a mask repeated along the input runs csrc/masked_fill.c
_REP = {}                   # dtype -> the address of masked_fill_rep_<f32|f64>, or 0


def _rep_kernel(dt):
    fn = _REP.get(dt)
    if fn is None:
        fn = 0
        sfx = {np.dtype(np.float32): "f32", np.dtype(np.float64): "f64"}.get(dt)
        lib = clib.library("masked_fill") if sfx is not None and clib.enabled() else None
        if lib is not None:
            fn = ctypes.cast(lib["masked_fill_rep_" + sfx], ctypes.c_void_p).value or 0
        _REP[dt] = fn
    return fn


def _rep_period(a, m):
    """The number of mask elements a c-contiguous float array `a` repeats its bool mask `m` by, when m
    broadcasts to a's shape over leading dims only (its shape, leading 1s dropped, is a's trailing shape:
    a (T, T) or (1, 1, T, T) causal mask on (B, H, T, T) scores), else 0. A mask of a's own size is no
    repeat: csrc/elementwise_flat.c's masked_fill takes it (_c_masked_fill)."""
    ms = m.shape
    i, nd = 0, len(ms)
    if not 0 < nd <= a.ndim or m.size >= a.size or not a.flags.c_contiguous:
        return 0
    while i < nd - 1 and ms[i] == 1:
        i += 1
    tail = ms[i:]
    return m.size if tail == a.shape[a.ndim - len(tail):] else 0


def _masked_fill_rep(a, m, value, out):
    """out = a with the number `value` where the mask `m` (repeated along a: _rep_period) is set, by
    csrc/masked_fill.c over ember's C pool (runtime/flat.py's chunks, one pass; the same elements as
    np.where's). False (nothing written) when C is off, a is small (_REP_MIN) or the mask does not repeat so.
    Measured at 2 threads, (16, 4, 64, 64) float32 by a (64, 64) mask, min us, load ~4: np.where 162, torch
    116 (clone + masked_fill_), this 22; one thread 162 -> 31 (torch 221)."""
    if a.size < _REP_MIN or not clib.enabled():
        return False
    period = _rep_period(a, m)
    fn = _rep_kernel(a.dtype) if period else 0
    if not fn:
        return False
    if not m.flags.c_contiguous:
        m = np.ascontiguousarray(m)     # (a slice mask[:T, :T] of a bigger mask: T*T bytes)
    return flat.run_address(fn, [m, a, out], a.size, float(value), float(period))


def masked_fill_Scalar(self, mask, value):
    # A causal mask on attention scores: a Python number into a float32/float64 input by a bool mask whose
    # shape is the input's trailing dims (the result has the input's shape, no broadcast check needed): the
    # C kernel of a repeated mask (_masked_fill_rep) from _REP_MIN elements, else the same np.where call
    # without the checks' shape arithmetic ((1, 4, 28, 28) by (28, 28): ~7.8 -> ~5.5 us).
    # A mask of the input's own shape takes the one-pass C kernel below instead.
    # Values the dtype cannot hold (1e300 into float32, a huge int) take the general path.
    a, m = self._np, mask._np
    vc = value.__class__
    if (a is not None and m is not None and a.dtype in _FLOAT_KINDS and mask.dtype is D.bool_
            and (vc is float and not _FILL_MAX[a.dtype] < abs(value) < _INF
                 or vc is int and -(1 << 53) <= value <= 1 << 53)
            and 0 < m.ndim <= a.ndim and m.shape[m.ndim - 1] == a.shape[a.ndim - 1]):
        if a.size >= _REP_MIN:
            r = np.empty(a.shape, a.dtype)
            if _masked_fill_rep(a, m, value, r):
                return Tensor._wrap_fresh(r, self.dtype)
        # (a mask of the input's own shape below _REP_MIN too: the C kernel of _c_masked_fill starts there;
        # `x.masked_fill(x > 2, 0.)` on 4 elements 6.8 -> ~2.5 us, torch 2.1)
        if (m.ndim < a.ndim or a.size < _REP_MIN) and m.shape == a.shape[a.ndim - m.ndim:]:
            r = np.where(m, value, a)
            if r.dtype == a.dtype and r.flags.c_contiguous:
                return Tensor._wrap_fresh(r, self.dtype)
    shape = M.masked_fill_check(self, mask, value, False)
    if not isinstance(value, Tensor):
        value = check_number(self.dtype, value)         # (uint8's negatives wrapped)
    if self._size == shape:
        a = self._np
        r = np.empty(a.shape, a.dtype) if a is not None else None
        if r is not None and _c_masked_fill(self, mask, value, r):
            return Tensor._wrap_fresh(r, self.dtype)
    r = np.where(mask._np, _np(value), self._np)
    if r.ndim and r.shape == shape and r.dtype == self.dtype._np and r.flags.c_contiguous:
        return Tensor._wrap_fresh(r, self.dtype)        # np.where's fresh result as it is: no broadcast, no copy
    return _wrap(np.broadcast_to(r, shape), self.dtype)


def masked_fill__Scalar(self, mask, value):
    M.masked_fill_check(self, mask, value, True)
    if not isinstance(value, Tensor):
        value = check_number(self.dtype, value)
    a, m = self._np, mask._np
    vc = value.__class__
    if (a is not None and m is not None and a.dtype in _FLOAT_KINDS and m.dtype == np.bool_
            and (vc is float and not _FILL_MAX[a.dtype] < abs(value) < _INF
                 or vc is int and -(1 << 53) <= value <= 1 << 53)
            and a.size >= _REP_MIN and not np.may_share_memory(a, m) and _masked_fill_rep(a, m, value, a)):
        return self
    if self.numel() and not _c_masked_fill(self, mask, value, self._np):
        np.copyto(self._np, np.asarray(_np(value)), casting="unsafe", where=mask._np)
    return self


masked_fill_Tensor = masked_fill_Scalar
masked_fill__Tensor = masked_fill__Scalar


def masked_select(self, mask):
    shape = M.masked_select_check(self, mask)
    return _wrap(np.broadcast_to(self._np, shape)[np.broadcast_to(mask._np, shape)], self.dtype)


def masked_select_out(self, mask, *, out):
    return _copy_out(masked_select(self, mask), out, "masked_select", same_scalar_type("masked_select"))


def _masked_scatter_into(a, m, source):
    count = int(m.sum())
    if source.numel() < count:
        raise RuntimeError("Number of elements of source < number of ones in mask")
    a[m] = source._np.reshape(-1)[:count]


def masked_scatter(self, mask, source):
    shape = M.masked_scatter_check(self, mask, source, False)
    a = np.array(np.broadcast_to(self._np, shape))
    _masked_scatter_into(a, np.broadcast_to(mask._np, shape), source)
    return _wrap(a, self.dtype)


def masked_scatter_(self, mask, source):
    shape = M.masked_scatter_check(self, mask, source, True)
    m = np.broadcast_to(mask._np, shape)
    count = int(m.sum())
    if source.numel() < count:
        raise RuntimeError("Number of elements of source < number of ones in mask")
    if count:
        self._np[m] = source._np.reshape(-1)[:count]
    return self


# ------------------------------------------------------------------ take / nonzero
def take(self, index):
    M.take_check(self, index)
    n = self.numel()
    i = _bounds(index._np.astype(np.intp), 0, n, "out of range: tried to access index {v} on a tensor of {n} elements.",
                IndexError, negative=True)
    return _wrap(np.take(self._np.reshape(-1), i), self.dtype)


def take_out(self, index, *, out):
    return _copy_out(take(self, index), out, "take", TAKE)


def nonzero(self):
    """(count, ndim) indices, column-major like torch's (each column is one dim's index vector)."""
    r = np.argwhere(self._np)
    out = empty_tensor(r.shape, D.int64, strides=(1, r.shape[0]))
    if r.size:
        out._np[...] = r
    return out


def nonzero_out(self, *, out):
    return _copy_out(nonzero(self), out, "nonzero")


# ------------------------------------------------------------------ put / index_reduce
def put_(self, index, source, accumulate=False):
    M.put_check(self, index, source)
    n = self.numel()
    i = _bounds(index._np.reshape(-1).astype(np.intp), 0, n,
                "out of range: tried to access index {v} on a tensor of {n} elements.", IndexError, negative=True)
    if i.size == 0:
        return self
    a = _as1d(self._np)
    where = np.unravel_index(i, a.shape)
    s = source._np.reshape(-1)
    if accumulate:
        np.add.at(a, where, s)
    else:
        a[where] = s
    return self


def put(self, index, source, accumulate=False):
    M.put_check(self, index, source)
    return put_(_fresh(self), index, source, accumulate)


def _index_reduce_into(target, d, index, source, reduce, include_self):
    """index_reduce along d: like scatter_reduce with whole slices (ufunc.at over the moved-front view)."""
    n = target._size[d] if target.dim() else 1
    i = _bounds(index._np.reshape(-1).astype(np.intp), d, n)
    if target.numel() == 0 or i.size == 0:
        return target
    v = _along(target._np, d)
    s = _src_along(source, d).reshape((i.size,) + v.shape[1:])
    work = v.copy()
    if not include_self:
        work[i] = _identity(reduce, v.dtype)
    _AT[reduce].at(work, i, s)
    if reduce == "mean":
        count = np.full(v.shape[0], 1 if include_self else 0, np.int64)
        np.add.at(count, i, 1)
        count = np.maximum(count, 1).reshape((-1,) + (1,) * (v.ndim - 1))
        work = work // count if v.dtype.kind in "iu" else (work / count).astype(v.dtype)
    v[...] = work
    return target


def index_reduce(self, dim, index, source, reduce, *, include_self=True):
    d = M.index_reduce_check(self, dim, index, source, reduce)
    return _index_reduce_into(_fresh(self), d, index, source, reduce, include_self)


def index_reduce_(self, dim, index, source, reduce, *, include_self=True):
    d = M.index_reduce_check(self, dim, index, source, reduce)
    return _index_reduce_into(self, d, index, source, reduce, include_self)


def index_reduce_out(self, dim, index, source, reduce, *, include_self=True, out):
    return _copy_out(index_reduce(self, dim, index, source, reduce, include_self=include_self), out, "index_reduce", exact)


def _np_index(self, entries):
    """The numpy index tuple for checked entries, raising torch's IndexError for out-of-range values."""
    out = []
    for d, t in entries:
        if t is None:
            out.append(slice(None))
            continue
        a = t._np
        if is_mask(t):
            out.append(a.astype(bool, copy=False))
            continue
        n = self._size[d]
        bad = (a < -n) | (a >= n)
        if bad.any():
            v = int(a[bad].reshape(-1)[0])
            raise IndexError(f"index {v} is out of bounds for dimension {d} with size {n}")
        out.append(a.astype(np.intp, copy=False))
    return tuple(out)


def index(self, indices):
    entries, bshape, shape = index_plan(self, indices)
    r = self._np[_np_index(self, entries)].reshape(shape)
    out = empty_tensor(shape, self.dtype, strides=index_strides(self, entries, bshape, shape))
    if r.size:
        out._np[...] = r
    return out


def index_put_(self, indices, values, accumulate=False):
    entries, shape = check_index_put(self, indices, values)
    idx = _np_index(self, entries)
    if self._np is None or self.numel() == 0:
        return self
    v = values._np
    if accumulate:
        idx = tuple(np.nonzero(i) if isinstance(i, np.ndarray) and i.dtype == bool else (i,) for i in idx)
        idx = tuple(x for group in idx for x in group)
        np.add.at(self._np, idx, np.broadcast_to(v, shape))
    else:
        self._np[idx] = np.broadcast_to(v, shape)
    return self


MIN_ROWS = 32


def add_rows(v, i, s):
    if (v.dtype.kind != "f" or v.dtype.itemsize < 4 or s.dtype != v.dtype or i.size < MIN_ROWS
            or i.min() < 0):
        np.add.at(v, i, s)
        return
    order = np.argsort(i, kind="stable")
    si = i[order]
    starts = np.flatnonzero(np.concatenate(([True], si[1:] != si[:-1])))
    v[si[starts]] += np.add.reduceat(s[order], starts, axis=0)


def nonzero_static(self, *, size, fill_value=-1):
    """The first `size` rows of nonzero(self), padded with `fill_value` rows: a shape known before the values."""
    shape = M.nonzero_static_shape(self, size)
    out = np.full(shape, fill_value, np.int64)
    if self.dim():
        idx = np.argwhere(self._np)[:size]
        out[:idx.shape[0]] = idx
    return Tensor._wrap_np(out, D.int64)
