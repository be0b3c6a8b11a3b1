"""cpu kernels for reductions: one numpy reduction over the axes from kernels/meta/reduction.py."""
import builtins

import numpy as np

from ..._core import dtype as D
from ..._core.tensor_impl import TensorImpl as Tensor, INFERENCE_VC as _INFERENCE_VC, _CPU_KS, _INFERENCE, _PUBLIC
from ..._core.tls import state as _tls
from ..meta.reduction import LOGSUMEXP, arg_spec, logical_dtype, mean_dtype, reduce_spec, sum_dtype
from ..meta import scan as M
from ..meta import reduction as M_reduction
from .scan import _into
from .scan import _quiet
from .scan import _wrap as _wrap_scan
from ..meta import sort as M_sort
from .sort import _kth_along
from .sort import _last
from .sort import _wrap as _wrap_sort
from ..common import check_out, warn_user
from ..out_rules import HISTOGRAM, exact, write_outs
from ..._core.strides import wrap_dim
from .runtime import clib, cparts, flat
from .runtime.fp_errors import quiet


def _wrap(arr, dtype, shape):
    arr = np.asarray(arr)
    if arr.dtype != dtype._np:
        arr = arr.astype(dtype._np)
    arr = arr.reshape(shape)
    return Tensor._wrap_np(arr if arr.flags.c_contiguous else arr.copy(), dtype)


def _acc(d):
    """numpy accumulation dtype for a result dtype (half types accumulate in float32, like torch)."""
    return np.float32 if d._np.kind == "f" and d._np.itemsize < 4 or d._np.kind == "V" else d._np


# bound once: `np.add.reduce(a, axis=None)` and `Tensor._wrap_fresh` cost a keyword parse and a method binding
# per call (names a module imports are read with LOAD_ATTR, which binds)
_add_reduce = np.add.reduce
_and_reduce = np.logical_and.reduce
_or_reduce = np.logical_or.reduce
_abs, _sqrt = np.abs, np.sqrt
_QUIET_ALL = quiet(divide="ignore", invalid="ignore", over="ignore", under="ignore")     # scan._quiet's state
_QUIET_MEAN = quiet(invalid="ignore", divide="ignore")                                  # mean's general path's
_asarray = np.asarray
_wrap_fresh = Tensor._wrap_fresh
_new = object.__new__
_sum_all = flat.sum_all
_sum_all_double = flat.sum_all_double
_sum_rows = flat.sum_rows
_SUM_C = flat.MIN_ELEMS_SUM


_COLS_MIN = 4096         # elements: from here a float sum over leading dims runs csrc/sum_cols.c (_sum_cols)
_COLS_BLOCK = 64        # columns a block of csrc/sum_cols.c (its CB)
_COLS_SPLIT = 1 << 15   # elements: from here, with 2+ threads, its column blocks split over ember's C pool


def _sum_cols(a, axes):
    """np.add.reduce(a, axis=axes) for a c-contiguous float32/64 array reduced over its leading dims `axes`
    (0 .. k-1, at least one, some trailing dims kept: a Linear's bias gradient grad.sum(0)), by
    csrc/sum_cols.c with numpy's bits (each column's rows added in order; see there), as a flat array of the
    kept dims' size; None when C is off or the array does not fit (numpy runs it). Measured at 2 threads, min
    us, torch in the same process, load ~7: (1024, 128) float32 28.5 -> 12.2 (torch 6.1; the kernel alone 6.8),
    (1024, 384) 56.7 -> 21.2 (12.4), (1024, 512) 51.0 -> 28.8 (27.4); one thread 28.4 -> 15.7 (7.4), 49.0 ->
    33.9 (21.5), 64.4 -> 36.7 (38.2). The rest of the (1024, 128) call is the op's Python (~5 us)."""
    nd = a.ndim
    if len(axes) >= nd or axes != tuple(range(len(axes))) or a.size < _COLS_MIN or not a.flags.c_contiguous:
        return None
    cols = 1
    for n in a.shape[len(axes):]:
        cols *= n
    rows = a.size // cols
    if cols < 2 or rows < 2:
        return None                 # (one column: numpy's pairwise sum along it, not this order)
    fn = cparts.entry("sum_cols", "sum_cols_" + ("f32" if a.dtype == np.float32 else "f64"))
    if not fn:
        return None
    out = np.empty(cols, a.dtype)
    blocks = -(-cols // _COLS_BLOCK)
    t = cparts.threads_for(a.size, _COLS_SPLIT) if blocks > 1 else 1
    cparts.run(fn, blocks, t, builtins.max(1, blocks // (4 * t)) if t > 1 else blocks, clib.address(a), None,
               clib.address(out), None, float(rows), float(cols))
    return out


def sum(self, dim=None, keepdim=False, *, dtype=None):
    if dim is None and dtype is None and ((d := self.dtype) is D.float32 or d is D.float64):
        # full reduction of a float32/64 tensor: the common case, one ufunc call (axis None, positionally);
        # a big contiguous one on the C pool with numpy's bits (runtime/flat.py's sum_all)
        a = self._np
        if a.size >= _SUM_C and (r := _sum_all(a)) is not None:
            return _wrap_fresh(_asarray(r), d)
        # the 0-d result made inline (what _wrap_fresh does, without its frame: ~400 instructions of ~15k)
        t = _new(_PUBLIC[0])
        t._np = _asarray(_add_reduce(a, None))
        t._size = ()
        t.dtype = d
        t._ks = _CPU_KS
        if _INFERENCE[0] and _tls.inference_mode:
            t._vc = _INFERENCE_VC
        return t
    d = sum_dtype(self, dtype)
    axes, shape = reduce_spec(self, dim, keepdim, "sum")
    if d is self.dtype and (d is D.float32 or d is D.float64) and axes == (self._np.ndim - 1,) \
            and (r := _sum_rows(self._np)) is not None:
        return _wrap_fresh(r.reshape(shape), d)      # sums over the last dim on the C pool, numpy's bits
    if d is self.dtype and (d is D.float32 or d is D.float64) and axes and axes[0] == 0 \
            and (r := _sum_cols(self._np, axes)) is not None:
        return _wrap_fresh(r.reshape(shape), d)      # sums over leading dims (bias gradients), numpy's bits
    return _wrap(np.add.reduce(self._np, axis=axes, dtype=_acc(d)), d, shape)


def nansum(self, dim=None, keepdim=False, *, dtype=None):
    """sum with nan counted as 0 (torch's nansum; integers have no nan)."""
    M_reduction.nansum(self, dim, keepdim, dtype=dtype)
    d = sum_dtype(self, dtype)
    axes, shape = reduce_spec(self, dim, keepdim, "nansum")
    a = self._np
    if a.dtype.kind in "fV":
        a = np.where(np.isnan(a), a.dtype.type(0), a)
    return _wrap(np.add.reduce(a, axis=axes, dtype=_acc(d)), d, shape)


def prod(self, dim=None, keepdim=False, *, dtype=None):
    d = sum_dtype(self, dtype)
    axes, shape = reduce_spec(self, dim, keepdim, "prod")
    return _wrap(np.prod(self._np, axis=axes, dtype=_acc(d)), d, shape)


def mean(self, dim=None, keepdim=False, *, dtype=None):
    if dim is None and dtype is None and not keepdim and ((d := self.dtype) is D.float32 or d is D.float64):
        a = self._np
        if a.size >= _SUM_C and (s := _sum_all_double(a)) is not None:
            # np.mean's own arithmetic on its sum, the sum's type of (sum / intp count): a float32 or float64
            # sum over an intp is a float64 division (NEP 50), which the Python float division of the kernel's
            # double (a float32 sum held exactly) by the count (exact below 2^53) is; then rounded to the dtype
            # (numpy scalar arithmetic cost ~8k instructions more)
            return _wrap_fresh(_asarray(d._np.type(s / a.size)), d)
        if a.ndim and a.size:
            # a small one: np.mean's own sum and division, as quiet, without its wrapper and np.errstate's cost
            return _wrap_fresh(_asarray(_QUIET_MEAN(_mean_all, a)), d)
    if dim.__class__ is int and dtype is None and ((d := self.dtype) is D.float32 or d is D.float64):
        # one dim of a small float32/64 tensor (`x.mean(-1)`, issue 18: 11.7 us against torch's 3.9): np.mean's
        # own steps (the sum in the dtype, then true division by the intp count, in place) without its
        # wrapper, np.errstate and reduce_spec; a positive count raises no fp error
        a = self._np
        nd = a.ndim
        if 0 < a.size < _SUM_C and -nd <= dim < nd and keepdim.__class__ is bool:
            ax = dim + nd if dim < 0 else dim
            r = _add_reduce(a, ax, keepdims=keepdim)
            if r.__class__ is not np.ndarray:
                r = _asarray(r)
            np.true_divide(r, np.intp(a.shape[ax]), out=r, casting="unsafe")
            return _wrap_fresh(r, d)
    d = mean_dtype(self, dtype)
    axes, shape = reduce_spec(self, dim, keepdim, "mean")
    if d is self.dtype and (d is D.float32 or d is D.float64) and axes == (self._np.ndim - 1,) \
            and (r := _sum_rows(self._np)) is not None:
        np.true_divide(r, np.intp(self._np.shape[-1]), out=r, casting="unsafe")   # np.mean's own division
        return _wrap_fresh(r.reshape(shape), d)
    src = self._np if self.dtype is d else self._np.astype(d._np)
    with np.errstate(invalid="ignore", divide="ignore"):
        r = np.mean(src, axis=axes, dtype=_acc(d)) if src.size else np.full(shape, np.nan)
    return _wrap(r, d, shape)


def _minmax(fn, name):
    def k(self, dim=(), keepdim=False):
        axes, shape = reduce_spec(self, dim, keepdim, name, True)
        return _wrap(fn(self._np, axis=axes), self.dtype, shape)
    k.__name__ = name
    return k


amax = _minmax(np.max, "amax")
amin = _minmax(np.min, "amin")


_max_all = _minmax(np.max, "max")
_min_all = _minmax(np.min, "min")


_max_reduce, _min_reduce = np.maximum.reduce, np.minimum.reduce
_argmax, _argmin = np.argmax, np.argmin
_FIU = frozenset("fiu")
_INT64 = np.dtype(np.int64)


def max(self):
    a = self._np
    if a.size and a.dtype.kind in _FIU:       # the common case: one ufunc reduction (NaN propagates)
        if a.ndim == 1 and ((d := self.dtype) is D.float32 or d is D.float64):
            # a row's max (a CRF's score.max() per tag): the element argmax picks, ~0.25 us against the
            # reduction's ~0.85 (numpy's reduce setup on a few elements). argmax returns a NaN when there is one,
            # as the reduction; equal maxima are the same bits except signed zeros, where numpy's reduction and
            # torch keep the last one and argmax the first: a zero goes to the reduction
            v = a[a.argmax()]
            if v != 0:
                return _wrap_fresh(_asarray(v), d)
        return _wrap_fresh(_asarray(_max_reduce(a, None)), self.dtype)
    return _max_all(self, None)


def min(self):
    a = self._np
    if a.size and a.dtype.kind in _FIU:
        if a.ndim == 1 and ((d := self.dtype) is D.float32 or d is D.float64):
            v = a[a.argmin()]               # (as max above)
            if v != 0:
                return _wrap_fresh(_asarray(v), d)
        return _wrap_fresh(_asarray(_min_reduce(a, None)), self.dtype)
    return _min_all(self, None)


def _arg(fn, name):
    def k(self, dim=None, keepdim=False):
        axes, shape = arg_spec(self, dim, keepdim, name)
        a = self._np
        if dim is None:
            r = fn(a.reshape(-1)) if a.ndim else 0
        else:
            r = fn(a, axis=axes[0]) if a.ndim else 0
        return _wrap(r, D.int64, shape)
    k.__name__ = name
    return k


argmax = _arg(np.argmax, "argmax")
argmin = _arg(np.argmin, "argmin")


def _with_indices(vfn, ifn, name):
    def k(self, dim, keepdim=False):
        a = self._np
        if dim.__class__ is int and not keepdim and a is not None and a.dtype.kind in _FIU:
            # the common case (a Viterbi decode's max over one dim of a small matrix): one reduction and one
            # arg-reduction over an in-range dim of non-empty extent, without reduce_spec's generality; the
            # values and the first extremum's index, as below (NaN propagates, its first index wins)
            nd = a.ndim
            if nd and -nd <= dim < nd and a.shape[dim]:
                dt = self.dtype
                v = vfn(a, dim)
                i = ifn(a, dim)
                if nd == 1:
                    v, i = _asarray(v), _asarray(i)
                if (v.dtype == a.dtype and i.dtype == _INT64 and v.flags.c_contiguous
                        and i.flags.c_contiguous):
                    return _wrap_fresh(v, dt), _wrap_fresh(i, D.int64)
        axes, shape = reduce_spec(self, dim, keepdim, name, True)
        a = self._np
        if not a.ndim:
            return _wrap(a, self.dtype, shape), _wrap(0, D.int64, shape)
        return _wrap(vfn(a, axis=axes[0]), self.dtype, shape), _wrap(ifn(a, axis=axes[0]), D.int64, shape)
    k.__name__ = name + "_dim"
    return k


max_dim = _with_indices(_max_reduce, _argmax, "max")
min_dim = _with_indices(_min_reduce, _argmin, "min")


def all(self, dim=None, keepdim=False):
    if dim is None and self.dtype is D.bool_ and (a := self._np) is not None and a.ndim:
        # a mask's all(), as `if (x < 0).all():` reads it: np.all's own reduction, without its wrapper
        return _wrap_fresh(_asarray(_and_reduce(a, None)), D.bool_)
    axes, shape = reduce_spec(self, dim, keepdim, "all")
    return _wrap(np.all(self._np, axis=axes), logical_dtype(self), shape)


def any(self, dim=None, keepdim=False):
    if dim is None and self.dtype is D.bool_ and (a := self._np) is not None and a.ndim:
        return _wrap_fresh(_asarray(_or_reduce(a, None)), D.bool_)
    axes, shape = reduce_spec(self, dim, keepdim, "any")
    return _wrap(np.any(self._np, axis=axes), logical_dtype(self), shape)


@_quiet
def _var(self, dim, correction, keepdim, sqrt, name=None):
    rdt = M_reduction.var_dtype(self)
    axes, shape = M_reduction.var_spec(self, dim, keepdim)
    a = self._np
    n = int(np.prod([a.shape[i] for i in axes])) if axes else (a.size if a.ndim else 1)
    if n - correction <= 0:     # (named after the op called: var, std, var_mean, std_mean)
        warn_user(f"{name or ('std' if sqrt else 'var')}(): degrees of freedom is <= 0. Correction should be "
                  "strictly less than the reduction factor (input numel divided by output numel).")
    acc = np.float32 if a.dtype == np.float16 else None
    if a.ndim == 0:
        a, axes = a.reshape(1), (0,)
    if n == 0:      # the mean of nothing is nan, without numpy's "Mean of empty slice" warning
        mean = np.full([1 if i in axes else k for i, k in enumerate(a.shape)], np.nan, acc or a.dtype)
    else:
        mean = np.mean(a, axis=axes, keepdims=True, dtype=acc)
    d = a - mean
    sq = (d * np.conj(d)).real if np.iscomplexobj(d) else d * d
    r = np.sum(sq, axis=axes, dtype=acc) / np.float64(builtins.max(n - correction, 0))
    return _wrap_scan(np.sqrt(r) if sqrt else r, rdt, shape)


def _maker(sqrt):
    """The `.correction` kernel and the two out= kernels (the `unbiased` overloads are composites)."""
    def dim_(self, dim, unbiased=True, keepdim=False):
        return _var(self, dim, M.correction_of(unbiased), keepdim, sqrt)

    def corr(self, dim=None, *, correction=None, keepdim=False):
        return _var(self, dim, M.correction_of(None, correction), keepdim, sqrt)

    def out_(self, dim, unbiased=True, keepdim=False, *, out):
        return _into(out, dim_(self, dim, unbiased, keepdim))

    def corr_out(self, dim=None, *, correction=None, keepdim=False, out):
        return _into(out, corr(self, dim, correction=correction, keepdim=keepdim))
    return corr, out_, corr_out


var_correction, var_out, var_correction_out = _maker(False)


std_correction, std_out, std_correction_out = _maker(True)


def _with_mean(sqrt, name):
    def g(self, dim=None, *, correction=None, keepdim=False):
        r = _var(self, dim, M.correction_of(None, correction), keepdim, sqrt, name)
        axes, shape = reduce_spec(self, dim, keepdim, "mean")
        return r, _wrap_scan(np.mean(self._np, axis=axes) if self._np.size else np.full(shape, np.nan), self.dtype, shape)
    return g


var_mean_correction = _with_mean(False, "var_mean")


std_mean_correction = _with_mean(True, "std_mean")


@_quiet
def logsumexp(self, dim, keepdim=False):
    rdt = M.float_dtype(self)
    axes, shape = reduce_spec(self, dim, keepdim, "logsumexp")
    a = self._np.astype(rdt._np, copy=False)
    if a.ndim == 0:
        return _wrap_scan(a, rdt, shape)
    m = np.max(a, axis=axes, keepdims=True) if a.size else np.zeros([1] * a.ndim, a.dtype)
    m = np.where(np.isfinite(m), m, 0)
    r = np.log(np.sum(np.exp(a - m), axis=axes, keepdims=True)) + m
    return _wrap_scan(r, rdt, shape)


def logsumexp_out(self, dim, keepdim=False, *, out):
    LOGSUMEXP(0, None, out)                          # checked before computing, as torch does
    return write_outs((logsumexp(self, dim, keepdim),), (out,), LOGSUMEXP)[0]


def norm_Scalar(self, p=2):
    M_reduction.check_norm_dtype(self)
    return linalg_vector_norm(self, p)


def norm_ScalarOpt_dim(self, p, dim, keepdim=False):
    M_reduction.check_norm_dtype(self)
    return linalg_vector_norm(self, 2 if p is None else p, dim, keepdim)


def norm_ScalarOpt_dim_dtype(self, p, dim, keepdim, *, dtype):
    return linalg_vector_norm(self, 2 if p is None else p, dim, keepdim, dtype=dtype)


def norm_ScalarOpt_dtype(self, p, *, dtype):
    return linalg_vector_norm(self, 2 if p is None else p, dtype=dtype)


def norm_out(self, p, dim, keepdim=False, *, out):
    return write_outs((norm_ScalarOpt_dim(self, p, dim, keepdim),), (out,), exact)[0]


def norm_dtype_out(self, p, dim, keepdim, *, dtype, out):
    return write_outs((norm_ScalarOpt_dim_dtype(self, p, dim, keepdim, dtype=dtype),), (out,), exact)[0]


def count_nonzero(self, dim=None):
    axes, shape = reduce_spec(self, dim, False, "count_nonzero")
    return _wrap_scan(np.count_nonzero(self._np, axis=axes if self._np.ndim else None), D.int64, shape)


count_nonzero_dim_IntList = count_nonzero


def linalg_vector_norm(self, ord=2, dim=None, keepdim=False, *, dtype=None):
    if ord == 2 and dim is None and dtype is None and keepdim is False and \
            ((d := self.dtype) is D.float32 or d is D.float64) and (a := self._np).ndim == 1 and a.size > 1:
        # the 2-norm of a float vector (`x.norm()`, `x / x.norm()`): the general path's own ufunc calls, as quiet,
        # without its dtype rules, axis tuples and np.errstate's cost (3.4 us instead of 8)
        return _wrap_fresh(_asarray(_QUIET_ALL(_norm2, a)), d)
    return _vector_norm(self, ord, dim, keepdim, dtype=dtype)


def _norm2(a):
    b = _abs(a)
    return _sqrt(_add_reduce(b * b, None))


def _mean_all(a):
    s = _add_reduce(a, None)
    return s.dtype.type(s / np.intp(a.size))


@_quiet
def _vector_norm(self, ord=2, dim=None, keepdim=False, *, dtype=None):
    rdt = M_reduction.norm_dtype(self, dtype)
    axes, shape = reduce_spec(self, dim, keepdim, "linalg.vector_norm")
    a = np.abs(self._np.astype(np.result_type(self._np.dtype, rdt._np) if dtype is not None else self._np.dtype,
                               copy=False))
    if a.dtype.itemsize < 4 and a.dtype.kind in "fV":     # half precision: computed in float32, as torch does
        a = a.astype(np.float32)
    if a.ndim == 0:
        a, axes = a.reshape(1), (0,)
    if a.size == 0 and ord in (float("inf"), float("-inf")) and builtins.any(a.shape[i] == 0 for i in axes):
        raise RuntimeError(f"linalg.vector_norm cannot compute the {ord} norm on an empty tensor because the "
                           "operation does not have an identity")
    if builtins.all(a.shape[i] == 1 for i in axes):
        # each result reduces one element: torch's is |x| itself for every ord but 0 (x != 0), not a power's
        # round trip, so the 2-norm of [finfo.max] is finfo.max (squaring would overflow) and the 3-norm of
        # [3.] is 3. exactly (its grad and clip_grad_norm_ follow)
        r = np.sum(a != 0, axis=axes) if ord == 0 else np.max(a, axis=axes)
    elif ord == float("inf"):
        r = np.max(a, axis=axes) if a.size else np.zeros(shape)
    elif ord == float("-inf"):
        r = np.min(a, axis=axes)
    elif ord == 0:
        r = np.sum(a != 0, axis=axes)
    elif ord == 1:
        r = np.sum(a, axis=axes)
    elif ord == 2:
        r = np.sqrt(np.sum(a * a, axis=axes))
    else:
        r = np.sum(a ** ord, axis=axes) ** (1.0 / ord)
    return _wrap_scan(r, rdt, shape)


def linalg_vector_norm_out(self, ord=2, dim=None, keepdim=False, *, dtype=None, out):
    return write_outs((linalg_vector_norm(self, ord, dim, keepdim, dtype=dtype),), (out,), exact)[0]


def linalg_matrix_norm(self, ord, dim=(-2, -1), keepdim=False, *, dtype=None):
    rdt = M_reduction.norm_dtype(self, dtype, "linalg.matrix_norm")
    axes, shape = M_reduction.matrix_norm_spec(self, dim, keepdim)
    a = np.moveaxis(self._np, axes, (-2, -1)).astype(rdt._np if dtype is not None else self._np.dtype, copy=False)
    if ord == "fro" and a.shape[-2:] == (1, 1):
        r = np.abs(a)[..., 0, 0]        # one element: |x|, as the vector norm's (_vector_norm)
    elif ord == "fro":
        r = np.sqrt(np.sum(np.abs(a) ** 2, axis=(-2, -1)))
    elif ord == "nuc" or ord in (2, -2):
        s = np.linalg.svd(a, compute_uv=False)
        r = np.sum(s, axis=-1) if ord == "nuc" else (np.max(s, axis=-1) if ord == 2 else np.min(s, axis=-1))
    elif ord in (1, -1):
        c = np.sum(np.abs(a), axis=-2)
        r = np.max(c, axis=-1) if ord == 1 else np.min(c, axis=-1)
    elif ord in (float("inf"), float("-inf")):
        c = np.sum(np.abs(a), axis=-1)
        r = np.max(c, axis=-1) if ord > 0 else np.min(c, axis=-1)
    else:
        raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
    return _wrap_scan(r, rdt, shape)


def linalg_matrix_norm_str_ord(self, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None):
    if ord not in ("fro", "nuc"):
        raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
    return linalg_matrix_norm(self, ord, dim, keepdim, dtype=dtype)


def linalg_matrix_norm_out(self, ord, dim=(-2, -1), keepdim=False, *, dtype=None, out):
    r = linalg_matrix_norm(self, ord, dim, keepdim, dtype=dtype)
    return write_outs((r,), (out,), M_reduction.norm_out_rule("linalg.matrix_norm"))[0]


linalg_matrix_norm_str_ord_out = linalg_matrix_norm_out


def _nan_first_or(self, d, pos):
    a = self._np
    if a.dtype.kind not in "fc":
        return pos
    nan = np.isnan(a)
    n = a.shape[d]
    # NaN sorts last: its sorted position is (n - count(nan)); torch's median returns the first NaN
    return np.where(nan.any(axis=d), n - nan.sum(axis=d), pos)


def median_dim(self, dim, keepdim=False):
    M_reduction.dim_reduce_shape(self, dim, keepdim, "median")
    d = wrap_dim(dim, self.dim())
    n = self._size[d] if self.dim() else 1
    base = np.full(tuple(s for i, s in enumerate(self._size) if i != d), (n - 1) // 2)
    return _kth_along(self, d, _nan_first_or(self, d, base) if self.dim() else base, keepdim, "median")


def nanmedian_dim(self, dim, keepdim=False):
    M_reduction.dim_reduce_shape(self, dim, keepdim, "nanmedian")
    d = wrap_dim(dim, self.dim())
    if not self.dim():
        return _kth_along(self, d, np.zeros((), np.int64), keepdim, "nanmedian")
    a = self._np
    valid = a.shape[d] - (np.isnan(a).sum(axis=d) if a.dtype.kind in "fc" else 0)
    pos = np.maximum(valid - 1, 0) // 2 + np.zeros(tuple(s for i, s in enumerate(self._size) if i != d), np.int64)
    return _kth_along(self, d, pos, keepdim, "nanmedian")


def median(self):
    if self.numel() == 0:
        return _wrap_sort(np.nan, self.dtype, ())
    flat = self._np.reshape(-1)
    return _wrap_sort(median_dim(Tensor._wrap_np(np.ascontiguousarray(flat), self.dtype), 0)[0]._np, self.dtype, ())


def nanmedian(self):
    if self.numel() == 0:
        return _wrap_sort(np.nan, self.dtype, ())
    flat = self._np.reshape(-1)
    return _wrap_sort(nanmedian_dim(Tensor._wrap_np(np.ascontiguousarray(flat), self.dtype), 0)[0]._np, self.dtype, ())


def mode(self, dim=-1, keepdim=False):
    shape = M_reduction.dim_reduce_shape(self, dim, keepdim, "mode")
    d = wrap_dim(dim, self.dim())
    a = self._np
    if a.ndim == 0:
        return _wrap_sort(a, self.dtype, shape), _wrap_sort(0, D.int64, shape)
    a = _last(a, d)
    n = a.shape[-1]
    idx = np.argsort(a, axis=-1, kind="stable")
    s = np.take_along_axis(a, idx, -1)
    pos = np.broadcast_to(np.arange(n), s.shape)
    start = np.ones(s.shape, bool)
    start[..., 1:] = s[..., 1:] != s[..., :-1]
    run_start = np.maximum.accumulate(np.where(start, pos, 0), axis=-1)
    end = np.ones(s.shape, bool)
    end[..., :-1] = start[..., 1:]
    run_end = np.flip(np.minimum.accumulate(np.flip(np.where(end, pos, n), -1), axis=-1), -1)
    count = run_end - run_start + 1
    best = np.argmax(count, axis=-1)[..., None]            # first = smallest value among the most frequent
    last_of_run = np.take_along_axis(run_end, best, -1)     # stable sort: the run's last is the latest index
    vals = np.take_along_axis(s, best, -1)[..., 0]
    inds = np.take_along_axis(idx, last_of_run, -1)[..., 0]
    return _wrap_sort(vals, self.dtype, shape), _wrap_sort(inds, D.int64, shape)


def bincount(self, weights=None, minlength=0):
    M_sort.bincount_check(self, weights, minlength)
    a = self._np
    if a.size and a.min() < 0:
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    rdt = M_sort.bincount_dtype(weights)
    w = None if weights is None else weights._np.astype(np.float64)
    return _wrap_sort(np.bincount(a, weights=w, minlength=minlength), rdt)


def histc(self, bins=100, min=0, max=0):
    M_reduction.hist_check(self, bins, min, max)
    a = self._np.reshape(-1)
    lo, hi = float(min), float(max)
    if lo == hi and a.size:
        lo, hi = float(a.min()), float(a.max())
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    keep = (a >= lo) & (a <= hi)
    v = a[keep].astype(np.float64)
    b = ((v - lo) * bins / (hi - lo)).astype(np.int64)
    b = np.minimum(b, bins - 1)
    return _wrap_sort(np.bincount(b, minlength=bins), self.dtype)


def histc_out(self, bins=100, min=0, max=0, *, out):
    r = histc(self, bins, min, max)
    check_out(out, r._size, r.dtype, "histc", HISTOGRAM)
    np.copyto(out._np, r._np)
    return out


def aminmax(self, *, dim=None, keepdim=False):
    """(min, max) in one call; dim=None reduces everything (keepdim then keeps every dim as size 1)."""
    axes, shape = M_reduction.aminmax_spec(self, dim, keepdim)
    a = self._np
    return (_wrap(np.min(a, axis=axes), self.dtype, shape), _wrap(np.max(a, axis=axes), self.dtype, shape))


def _renorm_np(self, p, dim, maxnorm):
    """Each slice along `dim` whose p-norm exceeds maxnorm, scaled to norm maxnorm (by maxnorm / (norm + 1e-7))."""
    axes = M_reduction.renorm_check(self, p, dim, maxnorm)
    a = self._np
    p = float(p)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        m = np.abs(a)
        if p == np.inf:
            norm = np.max(m, axis=axes, keepdims=True)
        else:
            norm = np.sum(m ** p, axis=axes, keepdims=True) ** (1.0 / p) if p != 2 else \
                np.sqrt(np.sum(m * m, axis=axes, keepdims=True))
        factor = np.where(norm > maxnorm, maxnorm / (norm + 1e-7), 1.0).astype(m.dtype)
    return a * factor


def renorm(self, p, dim, maxnorm):
    return _wrap(_renorm_np(self, p, dim, maxnorm), self.dtype, self._size)


def renorm_(self, p, dim, maxnorm):
    np.copyto(self._np, _renorm_np(self, p, dim, maxnorm), casting="unsafe")
    return self


def _histogram(self, edges, weight, density):
    """Counts (or summed weights) of self's values per bin of the increasing `edges`; values outside
    [edges[0], edges[-1]] are left out and the last bin holds its right edge."""
    x = self._np.reshape(-1)
    e = edges._np
    n = e.shape[0] - 1
    hist = np.zeros(n, self.dtype._np)
    if n > 0 and x.size:
        with np.errstate(invalid="ignore"):
            keep = (x >= e[0]) & (x <= e[-1])
        idx = np.searchsorted(e, x[keep], side="right") - 1
        idx = np.minimum(idx, n - 1)
        w = None if weight is None else weight._np.reshape(-1)[keep].astype(np.float64)
        hist = np.bincount(idx, weights=w, minlength=n)[:n].astype(self.dtype._np)
    if density:
        with np.errstate(invalid="ignore", divide="ignore"):
            hist = (hist / (hist.sum() * np.diff(e))).astype(self.dtype._np)
    return Tensor._wrap_np(np.ascontiguousarray(hist), self.dtype), edges


def histogram_bins_tensor(self, bins, *, weight=None, density=False):
    M_reduction.histogram_check(self, bins, None, weight)
    edges = Tensor._wrap_np(np.ascontiguousarray(bins._np).copy(), bins.dtype)
    return _histogram(self, edges, weight, density)


def histogram_bin_ct(self, bins=100, *, range=None, weight=None, density=False):
    from .creation import linspace
    M_reduction.histogram_check(self, bins, range, weight)
    x = self._np
    if range is not None:
        lo, hi = float(range[0]), float(range[1])
    elif x.size:
        lo, hi = float(x.min()), float(x.max())
    else:
        lo, hi = 0.0, 1.0
    if lo == hi:
        lo, hi = lo - 0.5, hi + 0.5
    return _histogram(self, linspace(lo, hi, bins + 1, dtype=self.dtype), weight, density)


# ------------------------------------------------------------------ hash_tensor
def hash_tensor(self, dim=(), *, keepdim=False, mode=0):
    """XOR of the elements' 64-bit patterns over `dim` (every dim when empty): floating values widened to
    float64, integers and bool to int64 (sign- or zero-extended), each read as uint64 (torch's mode 0)."""
    axes, shape = M_reduction.hash_tensor_spec(self, dim, keepdim, mode)
    a = self._np
    wide = a.astype(np.float64) if self.dtype.is_floating_point else a.astype(np.int64)
    bits = np.ascontiguousarray(wide).view(np.uint64)
    r = np.bitwise_xor.reduce(bits, axis=axes, keepdims=keepdim) if axes else bits
    return Tensor._wrap_np(np.array(r, dtype=np.uint64).reshape(shape), D.uint64)


def hash_tensor_out(self, dim=(), *, keepdim=False, mode=0, out):
    r = hash_tensor(self, dim, keepdim=keepdim, mode=mode)
    return write_outs((r,), (out,), M_reduction.hash_tensor_out_rule)[0]
