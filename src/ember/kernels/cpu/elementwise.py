"""cpu kernels for elementwise ops: one numpy ufunc call per op, writing into an output allocated
from the op's meta function (functional), into self (in-place) or into out= (out variants)."""
import numpy as np

from ..._core import dtype as D
from ..._core.scalar_value import INT_RANGE, check_number
from ..._core.tensor_impl import TensorImpl as Tensor, TENSOR_TYPES as _TENSOR_TYPES, INFERENCE_VC as _INFERENCE_VC, \
    _CPU_KS, _INFERENCE, _PUBLIC
from ..._core.tls import state as _tls
from ..common import _tname, as_py_number, empty_tensor, check_out, np_of, warn_user
from .runtime import flat
from .elementwise_bf16 import VECTORISED_UNARY as _BF16_VECTORISED, binary_nans as _bf16_binary_nans, \
    pow_nans as _bf16_pow_nans, unary_nans as _bf16_unary_nans
from .runtime.fp_errors import quiet, quiet_into
from .runtime.pool import get_num_threads, run_parts
from ..meta.elementwise_common import ABS, ARITH, BITWISE, COMPARE, FLOAT_OUT, LOGICAL, TRUE_DIV, binary_spec, check_inplace, check_mem_overlap, check_unary_inplace, out_strides, unary_dtype, unary_out_rule, where_spec


# integer dtypes: (lowest, 2**bits) for wrapping a Python int operand as torch's scalar conversion does
_WRAP = {"uint8": (0, 1 << 8), "int8": (-(1 << 7), 1 << 8), "int16": (-(1 << 15), 1 << 16),
         "int32": (-(1 << 31), 1 << 32), "int64": (-(1 << 63), 1 << 64)}


def _operand(x, cdt):
    """x as numpy in the compute dtype (tensors are cast when needed; Python scalars stay weak). A Python int
    beyond an integer compute dtype is wrapped to it (two's complement), as torch converts the scalar:
    uint8 [1] + 300 is [45], int32 [0] == 2**40 is True (numpy 2 raises OverflowError)."""
    if isinstance(x, Tensor):
        a = x._np
        return a if a.dtype == cdt._np else a.astype(cdt._np)
    if x.__class__ is int:
        w = _WRAP.get(cdt.name)
        if w is not None and not w[0] <= x < w[0] + w[1]:
            if not -(1 << 63) <= x < 1 << 64:
                raise OverflowError("int too big to convert")       # torch's argument parser
            return (x - w[0]) % w[1] + w[0]
    return x


def _fresh(t):
    """t is a tensor made from a fresh array (`_stride` None: exactly c-contiguous strides, size-1 dims too). With
    a size-1 dim in the result, only such operands are sure to give TensorIterator a contiguous output: another
    view's stride on that dim orders its dims (out_strides)."""
    return t.__class__ in _TENSOR_TYPES and t._stride is None


def _check_out_resized(out, shape, dt, name, rule, *operands):
    """check_out for an `out` of another shape, then TensorIterator's strides for it (set_output_raw_strided
    restrides a resized out: `add(x.t(), 1, out=empty(0))` is transposed like its input, not contiguous)."""
    check_out(out, shape, dt, name, rule)
    if out._np is not None:
        st = out_strides(shape, *operands)
        if tuple(st) != tuple(out.stride()):
            out.as_strided_(shape, st)


def _alloc(shape, dt, *operands):
    st = out_strides(shape, *operands)
    t = empty_tensor(shape, dt, strides=st)
    return t


_wrap_fresh = Tensor._wrap_fresh
_new = object.__new__
_ndarray = np.ndarray
_ONE = 1            # `alpha is _ONE`: the int 1 (a cached small int), the kernels' no-scaling case
_BOOL_T = D.bool_
_BF16_T = D.bfloat16      # (its NaN bits: elementwise_bf16; the fast paths leave it to the general one)
_SCALARS = (int, float)
_quiet_all = quiet(all="ignore")
_quiet_dio = quiet(divide="ignore", invalid="ignore", over="ignore")
_quiet_di = quiet(divide="ignore", invalid="ignore")
_quiet_over = quiet(over="ignore")


def make_binary(fn_np, kind, name, fast_uf=None, c_name=None, prologue=None):
    """(functional, inplace, out) kernels for a binary op computing `fn_np(a, b, out)`.

    `fast_uf`, when given, is a numpy ufunc used directly in the common case (same dtype and
    shape, contiguous; or a floating tensor with a Python int/float), where numpy's own result
    dtype and layout already equal torch's. `c_name`: the op's kernels in csrc/elementwise_flat.c
    (`<c_name>`, `<c_name>_s` with a number, `<c_name>_r` with a number first), which run big float32 /
    float64 operands of one layout on ember's C pool (runtime/flat.py).

    The functional kernel takes an `alpha` (add/sub: `prologue(self, other, alpha)` checks it and returns
    the scaled `other`, and is also where such an op's own argument checks go, run before the general
    path): the registered kernel is then this function itself, one Python frame less per call.
    """
    fast_bool = kind == COMPARE
    # add/mul of two NaNs: torch's result is the second operand's NaN (its kernels compute b + a in effect), numpy's
    # the first's: the ufunc runs on swapped operands (IEEE addition and multiplication commute bit for bit)
    swap = name in _SWAPPED
    if swap:
        split_uf = _swapped_uf(fast_uf)
    else:
        split_uf = fast_uf
    split_inplace = fast_uf is not None and (kind == ARITH or kind == TRUE_DIV)
    c_s = c_r = None
    if c_name is not None:
        c_s, c_r = c_name + "_s", c_name + "_r"
    small_tt = fast_uf is not None and (kind == ARITH or kind == COMPARE or kind == TRUE_DIV)
    int_ok = kind != TRUE_DIV       # true division of integer tensors makes floats: the general path

    def functional(self, other, alpha=1):
        # The no-grad small-op path (issue 18), written for instruction count: two same-dtype same-shape
        # contiguous tensors below the C/split sizes, one ufunc call, the result made inline (what
        # _wrap_fresh does, without its frame). A tensor whose `_stride` is None was made from a fresh
        # numpy result and is c-contiguous (TensorImpl's invariant; the flags read costs ~550 instructions,
        # the class-default read ~250). Bool tensors and true division of integers take the general path
        # below (true division of real floating tensors is here: grad / x in log's backward, a CRF loop's
        # 2.4 -> 1.3 us per call).
        if small_tt and alpha is _ONE and self.__class__ in _TENSOR_TYPES:
            a = self._np
            dt = self.dtype
            r = None
            oc = other.__class__
            if oc in _TENSOR_TYPES:
                if (a is not None and other.dtype is dt and dt is not _BOOL_T and dt is not _BF16_T
                        and (int_ok or dt.is_floating_point)
                        and (other._size == self._size or (not other._size and self._stride is None))):
                    # (a 0-d other, `alpha + x[t, k]`, broadcasts in numpy to self's shape, contiguous: torch's
                    # result when self is; a strided self, even one numpy calls contiguous with odd strides on
                    # size-1 dims, keeps its strides in torch: the general path)
                    b = other._np
                    if (b is not None and a.size < _BIG and (self._stride is None or a.flags.c_contiguous)
                            and (other._stride is None or b.flags.c_contiguous)):
                        r = fast_uf(b, a) if swap else fast_uf(a, b)
            elif oc is float or oc is int:
                # a floating tensor and a Python number: numpy's weak scalar keeps the tensor's dtype, as torch
                # (not an empty one: its strides are TensorIterator's, see _empty_out_strides; nor a view with a
                # size-1 dim, whose odd stride there orders TensorIterator's dims: out_strides)
                if (a is not None and dt.is_floating_point and dt is not _BF16_T and 0 < a.size < _BIG
                        and (self._stride is None or a.flags.c_contiguous and 1 not in self._size)):
                    r = fast_uf(other, a) if swap else fast_uf(a, other)
            if r is not None:
                if r.__class__ is not _ndarray:       # a numpy scalar from 0-d operands
                    r = np.asarray(r)
                t = _new(_PUBLIC[0])
                t._np = r
                t._size = r.shape
                t.dtype = _BOOL_T if fast_bool else dt
                t._ks = _CPU_KS
                if _INFERENCE[0] and _tls.inference_mode:
                    t._vc = _INFERENCE_VC
                return t
        if other.__class__ is not int and other.__class__ is not float and other.__class__ not in _TENSOR_TYPES:
            other = as_py_number(other)     # a numpy scalar: the number torch's parser reads
        if self.__class__ not in _TENSOR_TYPES:
            self = as_py_number(self)
        if prologue is not None:
            other = prologue(self, other, alpha)
            if other.__class__ is _Fused:
                return other.t
        if fast_uf is not None:
            a = getattr(self, "_np", None)
            # (empty, or a view with a size-1 dim whose stride may be odd: strides by out_strides)
            if a is not None and a.size and a.flags.c_contiguous and (self._stride is None or 1 not in self._size):
                oc = other.__class__
                if oc in _SCALARS:
                    if self.dtype.is_floating_point and self.dtype is not _BF16_T:
                        rdt = D.bool_ if fast_bool else self.dtype
                        if a.size >= _BIG:
                            if c_name is not None and a.size >= _C_MIN and -_EXACT <= other <= _EXACT and _splits():
                                r = np.empty(a.shape, np.bool_ if fast_bool else a.dtype)
                                if flat.run(c_s, [a, r], other):
                                    return _wrap_fresh(r, rdt)
                            if a.size >= SPLIT_ELEMS:
                                return _wrap_fresh(_split_ufunc(split_uf, a, other, fast_bool), rdt)
                        r = fast_uf(other, a) if swap else fast_uf(a, other)
                        return _wrap_fresh(r if r.__class__ is np.ndarray else np.asarray(r), rdt)
                elif isinstance(other, Tensor) and other.dtype is self.dtype:
                    b = other._np
                    if (b is not None and b.flags.c_contiguous and self.dtype is not D.bool_ and self.dtype is not _BF16_T
                            and (kind != TRUE_DIV or self.dtype.is_floating_point)):
                        rdt = D.bool_ if fast_bool else self.dtype
                        if other._size == self._size or not other._size:
                            # same shape, or a 0-d other (alpha + x[t, k]): numpy's result is torch's, contiguous
                            if a.size >= _BIG:      # one size read on the small-operand path
                                if c_name is not None and a.size >= _C_MIN and _splits():
                                    r = np.empty(a.shape, np.bool_ if fast_bool else a.dtype)
                                    if flat.run(c_name, [a, b, r]) if b.ndim else flat.run(c_s, [a, r], float(b)):
                                        return _wrap_fresh(r, rdt)
                                if a.size >= SPLIT_ELEMS:
                                    return _wrap_fresh(_split_ufunc(split_uf, a, b if b.ndim else b[()], fast_bool),
                                                       rdt)
                            r = fast_uf(b, a) if swap else fast_uf(a, b)       # a numpy scalar when both are 0-d
                            return _wrap_fresh(r if r.__class__ is np.ndarray else np.asarray(r), rdt)
                        # broadcasting contiguous operands ((1, K) + (K, K)): torch's result is contiguous too,
                        # as numpy's is; shapes that do not broadcast get torch's error from binary_spec below
                        try:
                            r = fast_uf(b, a) if swap else fast_uf(a, b)
                        except ValueError:
                            r = None
                        if r.__class__ is np.ndarray and r.size and r.flags.c_contiguous:
                            return _wrap_fresh(r, rdt)
        shape, cdt, rdt = binary_spec(self, other, kind, name)
        a, b = _operand(self, cdt), _operand(other, cdt)
        plain = 1 not in shape or _fresh(self) and (other.__class__ not in _TENSOR_TYPES or _fresh(other))
        if c_name is not None and (rdt is cdt or fast_bool) and cdt._np in _FLAT and plain:
            r = np.empty(shape, rdt._np)
            if _c_binary(c_name, c_s, c_r, a, b, r, fast_bool):
                return _wrap_fresh(r, rdt)
        if (plain and rdt is cdt and isinstance(self, Tensor) and self._size == shape and self._np.size
                and self._np.flags.c_contiguous):
            r = np.empty(shape, rdt._np)
            fn_np(a, b, r)
            if rdt is _BF16_T:
                _bf16_binary_nans(r, a, b)
            return _wrap_fresh(r, rdt)
        out = _alloc(shape, rdt, self, other)
        fn_np(a, b, out._np)
        if rdt is _BF16_T:
            _bf16_binary_nans(out._np, a, b)
        return out

    def inplace(self, other):
        # The small in-place path (issue 18: `a.add_(b)` 3.3 us, `a.mul_(2.)` 5.7, torch 0.85 and 2.4): what the
        # general path below computes when it finds nothing to check, cast or split: a c-contiguous self below
        # the C/split sizes (no internal overlap), a same-dtype same-shape tensor on another storage (or self
        # itself: an exact overlap; any layout: only self is written), or a Python number with a floating self; one
        # ufunc call into self, numpy's loop and bits as `_write` gives. Comparisons (a bool result cast back)
        # and true division of integers take the general path.
        if small_tt and not fast_bool and self.__class__ in _TENSOR_TYPES:
            a = self._np
            # (`_stride` None: c-contiguous; a tensor that had a view taken keeps explicit strides: the flags)
            if a is not None and a.size < _BIG and (self._stride is None or a.flags.c_contiguous):
                dt = self.dtype
                oc = other.__class__
                if oc in _TENSOR_TYPES:
                    if (other.dtype is dt and other._size == self._size
                            and dt is not _BOOL_T and dt is not _BF16_T and (int_ok or dt.is_floating_point)
                            and (other is self or self._storage is None or other._storage is not self._storage)):
                        b = other._np
                        if b is not None:
                            if swap:                 # (two NaNs: the second operand's, as torch's add)
                                fast_uf(b, a, out=a)
                            else:
                                fast_uf(a, b, out=a)
                            return self
                elif (oc is float or oc is int) and dt.is_floating_point and dt is not _BF16_T:
                    if swap:
                        fast_uf(other, a, out=a)
                    else:
                        fast_uf(a, other, out=a)
                    return self
        if other.__class__ is not int and other.__class__ is not float and other.__class__ not in _TENSOR_TYPES:
            other = as_py_number(other)
        if c_name is not None and not fast_bool:
            a = getattr(self, "_np", None)
            if a is not None and a.size >= _C_MIN and a.dtype in _FLAT and a.flags.c_contiguous and _splits():
                oc = other.__class__
                if oc in _SCALARS:
                    if -_EXACT <= other <= _EXACT and flat.run(c_s, [a, a], other):
                        return self
                elif isinstance(other, Tensor) and other._np is not None and other._np.dtype == a.dtype:
                    b = other._np
                    if (b.shape == a.shape and b.flags.c_contiguous and not flat.overlaps(a, b)
                            and flat.run(c_name, [a, b, a])):
                        return self
        if split_inplace:
            a = getattr(self, "_np", None)
            if (a is not None and a.size >= SPLIT_ELEMS and a.flags.c_contiguous and self.dtype.is_floating_point
                    and a.dtype.kind == "f"):
                oc = other.__class__
                if oc in _SCALARS:
                    if _split_inplace(split_uf, a, other):
                        return self
                elif isinstance(other, Tensor) and other.dtype is self.dtype and other._size == self._size:
                    b = other._np
                    if b is not None and _split_inplace(split_uf, a, b):
                        return self
        check_mem_overlap(self, other)     # (the fast paths above take no overlapping operands)
        shape, cdt, rdt = binary_spec(self, other, kind, name)
        check_inplace(self, shape, rdt, name)
        a, b = _operand(self, cdt), _operand(other, cdt)
        if c_name is None or cdt._np not in _FLAT or not _c_binary(c_name, c_s, c_r, a, b, self._np, fast_bool):
            _write(self, fn_np, a, b, cdt)
            if cdt is _BF16_T and rdt is _BF16_T:
                _bf16_binary_nans(self._np, a, b)
        return self

    def out_variant(self, other, out):
        # big same-dtype same-shape float32/64 operands (a tensor, or a Python number) into an out= of that
        # dtype and shape: binary_spec, check_out and _operand below would find nothing to promote, cast,
        # broadcast or resize, so straight to the C kernel (their checks cost ~4 us, 5% of a 1M add)
        if c_name is not None and not fast_bool and self.__class__ in _TENSOR_TYPES and out.__class__ in _TENSOR_TYPES:
            a, t = self._np, out._np
            if (a is not None and t is not None and out.dtype is self.dtype and a.size >= _C_MIN
                    and a.dtype in _FLAT and out._size == self._size):
                oc = other.__class__
                if oc in _TENSOR_TYPES:
                    b = other._np
                    if (b is not None and other.dtype is self.dtype and other._size == self._size
                            and _c_binary(c_name, c_s, c_r, a, b, t, False)):
                        return out
                elif (oc is float or oc is int) and _c_binary(c_name, c_s, c_r, a, other, t, False):
                    return out
        check_mem_overlap(out, self, other)
        self, other = as_py_number(self), as_py_number(other)
        shape, cdt, rdt = binary_spec(self, other, kind, name)
        if out._size == shape or tuple(out._size) == tuple(shape):
            check_out(out, shape, rdt, name)
        else:
            _check_out_resized(out, shape, rdt, name, None, self, other)
        a, b = _operand(self, cdt), _operand(other, cdt)
        if c_name is None or cdt._np not in _FLAT or not _c_binary(c_name, c_s, c_r, a, b, out._np, fast_bool):
            _write(out, fn_np, a, b, cdt)
            if cdt is _BF16_T and out.dtype is _BF16_T:
                _bf16_binary_nans(out._np, a, b)
        return out

    functional.__name__, inplace.__name__, out_variant.__name__ = name, name + "_", name + "_out"
    return functional, inplace, out_variant


_C_MIN = flat.MIN_ELEMS
_splits = flat.splits
_C_MIN_MATH = flat.MIN_ELEMS_MATH
_FLAT = (np.dtype(np.float32), np.dtype(np.float64))
_REAL_FLOATS = frozenset((np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float64)))
_empty = np.empty
_BOOL = np.dtype(np.bool_)
_EXACT = 1 << 53           # a Python int beyond this is not passed to C as a double (numpy keeps its semantics)


def _c_operand(x, t):
    """x as the C kernels take it beside output t: a c-contiguous array of t's shape, or a Python number
    (a 0-d array gives its value); None when it does not fit."""
    c = x.__class__
    if c is np.ndarray:
        if x.ndim == 0:
            return x[()].item() if x.dtype.kind == "f" else None
        return x if x.shape == t.shape and x.flags.c_contiguous else None
    if c is float or (c is int and -_EXACT <= x <= _EXACT):
        return x
    return None


def _c_binary(c_name, c_s, c_r, a, b, t, to_bool):
    """t = a op b by csrc/elementwise_flat.c when t is big, c-contiguous, a and b are arrays of t's shape
    in the kernel's float dtype (one may be a number), and t aliases an input only exactly. t's dtype is the
    inputs' (bool for a comparison, `to_bool`); True when done, False when nothing was written."""
    if t.size < _C_MIN or not t.flags.c_contiguous or not _splits():
        return False
    a, b = _c_operand(a, t), _c_operand(b, t)
    if a is None or b is None:
        return False
    x = a if a.__class__ is np.ndarray else b
    if x.__class__ is not np.ndarray:
        return False
    dt = x.dtype
    if dt not in _FLAT or t.dtype != (_BOOL if to_bool else dt):
        return False
    if a is x:
        if b.__class__ is np.ndarray:
            return b.dtype == dt and not flat.overlaps(t, a, b) and flat.run(c_name, [a, b, t])
        return not flat.overlaps(t, a) and flat.run(c_s, [a, t], b)
    return not flat.overlaps(t, b) and flat.run(c_r, [b, t], a)


SPLIT_ELEMS = 1 << 18      # from here a float elementwise op is shared out over the pool (memory-bound: a 1M
                           # float add ran 21 GB/s on one thread, torch's two threads 48)
_BIG = min(_C_MIN, SPLIT_ELEMS)   # below this size neither the C kernels nor the split path run
_SPLIT_ALIGN = 64          # elements: every part but the first starts at a multiple of this (a whole number
                           # of SIMD vectors and cache lines), so each element takes the same numpy loop path
                           # as in one unsplit call: the results are bit-identical to the one-thread path


def split_flat(fn, arrays):
    """fn(*parts) over matching parts of flat same-size arrays, shared out over ember's thread pool
    (numpy's ufuncs and ctypes calls release the GIL, so each thread streams its own part). Below
    SPLIT_ELEMS elements, or with one thread, a single call on the calling thread. A forked child
    (a DataLoader worker) makes its own pool (runtime/pool.py)."""
    n = arrays[0].size
    k = get_num_threads()
    if n < SPLIT_ELEMS or k < 2:
        fn(*arrays)
        return
    k = min(k, n // (SPLIT_ELEMS // 4))
    bounds = [n * i // k // _SPLIT_ALIGN * _SPLIT_ALIGN for i in range(k)] + [n]
    run_parts(lambda j: fn(*(a[bounds[j]:bounds[j + 1]] for a in arrays)), k)


def _quiet(uf):
    """uf(*args, out=...) without numpy's floating-point warnings (torch gives inf/nan silently; div's
    one-thread path is quiet too). The errstate is set inside each part: pool threads do not see the
    caller's."""
    def part(*args, out):
        _quiet_all(uf, *args, out=out)
    return part


def _split_ufunc(uf, a, b, to_bool):
    """uf(a, b) into a fresh array, split over ember's thread pool (split_flat)."""
    out = np.empty(a.shape, np.bool_ if to_bool else a.dtype)
    flat = [a.reshape(-1), out.reshape(-1)]
    uf = _quiet(uf)
    if b.__class__ is np.ndarray:
        split_flat(lambda x, y, o: uf(x, y, out=o), [flat[0], b.reshape(-1), flat[1]])
    else:
        split_flat(lambda x, o: uf(x, b, out=o), flat)
    return out


def _split_inplace(uf, a, b):
    """a op= b for a c-contiguous float array and a same-dtype same-shape c-contiguous array (or a
    Python scalar), split over the pool; False (nothing done) when the operands do not fit or overlap."""
    if b.__class__ is np.ndarray:
        if not (b.flags.c_contiguous and b.shape == a.shape and b.dtype == a.dtype):
            return False
        if b is not a and np.may_share_memory(a, b):
            return False
        uf = _quiet(uf)
        split_flat(lambda x, y: uf(x, y, out=x), [a.reshape(-1), b.reshape(-1)])
    else:
        uf = _quiet(uf)
        split_flat(lambda x: uf(x, b, out=x), [a.reshape(-1)])
    return True


def _write(target, fn_np, a, b, cdt):
    t = target._np
    if t.dtype == cdt._np:
        fn_np(a, b, t)
    else:
        tmp = np.empty(t.shape, cdt._np)
        fn_np(a, b, tmp)
        np.copyto(t, tmp, casting="unsafe")


def _ufunc2(uf):
    def f(a, b, out):
        uf(a, b, out=out, casting="unsafe")
    return f


_SWAPPED = ("add", "mul")


def _swapped_uf(uf):
    """uf with its two operands swapped (make_binary's `swap`), keywords passed on."""
    def f(a, b, **kw):
        return uf(b, a, **kw)
    return f


def _ufunc2_swapped(uf):
    """_ufunc2 computing uf(b, a): the second operand's NaN when both are NaN (make_binary's `swap`)."""
    def f(a, b, out):
        uf(b, a, out=out, casting="unsafe")
    return f


# ---------------------------------------------------------------- arithmetic
def _check_alpha(self, other, alpha, name):
    """torch's alpha_check: a bool alpha only for a bool result, a float alpha only for a floating
    or complex result, a complex alpha only for a complex result. Returns the alpha to scale by: the
    number converted to the op's common dtype as c10's checked_convert converts it (RuntimeError "value
    cannot be converted to type int8_t without overflow" where the dtype cannot hold it, uint8 wrapping
    -255..-1; sub negates alpha first, so sub(int8, int8, alpha=-128) overflows too)."""
    if alpha is None:
        return alpha
    from ..._core.promotion import binary_result_type
    d = binary_result_type(self, other)
    if isinstance(alpha, (bool, np.bool_)):
        if d is not D.bool_:
            raise RuntimeError("Boolean alpha only supported for Boolean results.")
        return alpha
    if not isinstance(alpha, (int, np.integer)):
        if not (d.is_floating_point or d.is_complex):
            raise RuntimeError("For integral input tensors, argument alpha must not be a floating point number.")
        if isinstance(alpha, (complex, np.complexfloating)) and not d.is_complex:
            raise RuntimeError("For non-complex input tensors, argument alpha must not be a complex number.")
    if not isinstance(alpha, (int, float, complex, np.number)):
        return alpha                # a symbolic number: checked where it is made concrete
    if isinstance(alpha, (int, np.integer)) and not -2 ** 63 <= alpha < 2 ** 64:
        raise OverflowError("int too big to convert")       # the argument parser's Scalar (int64 or uint64)
    if d is D.bool_:
        return bool(alpha)          # any number converts to bool
    if name == "sub":
        neg = -alpha
        if isinstance(alpha, (int, np.integer)):    # c10 Scalar negation: an int64 wraps, a uint64 too
            # (a uint64 alpha becomes an int64 when -alpha fits one: 2**63 negates to -2**63)
            neg = (neg + 2 ** 63) % 2 ** 64 - 2 ** 63 if -2 ** 63 <= alpha < 2 ** 63 or neg == -2 ** 63 \
                else neg % 2 ** 64
        return _negated(d, check_number(d, neg))
    return check_number(d, alpha)


def _negated(d, v):
    """-v for sub's alpha, an integer wrapped into `d`'s range as the C negation of the converted -alpha
    wraps (int8 alpha=128: -alpha is -128, and scaling by -128 is scaling by 128 modulo 256)."""
    if isinstance(v, int) and not isinstance(v, bool) and d.name in INT_RANGE:
        lo, hi = INT_RANGE[d.name]
        return (-v - lo) % (hi - lo + 1) + lo
    return -v


def _scaled(other, alpha, self=None):
    """alpha * other, computed in the op's result dtype (torch scales inside the kernel, so an int
    `other` times 0.5 added to a float `self` is not truncated first)."""
    if alpha == 1 and not isinstance(alpha, complex):
        return other
    if isinstance(other, Tensor):
        if other._np is None:
            return other
        from ..._core.promotion import binary_result_type
        d = other.dtype if self is None else binary_result_type(self, other)
        with np.errstate(all="ignore"):     # inf * 0 is torch's quiet nan
            r = np.multiply(other._np.astype(d._np, copy=False), alpha)
        return Tensor._wrap_np(r.astype(d._np, copy=False), d)
    if isinstance(self, Tensor):
        from ..._core.promotion import binary_result_type
        d = binary_result_type(self, other)
        if d.is_complex:        # alpha multiplies as a complex number of the op's precision: inf * (100+0j)
            c = np.complex128 if d is D.complex128 else np.complex64        # is inf+nanj, as torch's
            with np.errstate(all="ignore"):
                return (c(other) * c(alpha)).item()
    r = other * alpha
    if isinstance(r, np.generic):
        return r.item()         # a float16/bfloat16 alpha: the product stays a Python number
    if isinstance(r, int) and not isinstance(r, bool) and isinstance(self, Tensor):
        from ..._core.promotion import binary_result_type
        rng = INT_RANGE.get(binary_result_type(self, other).name)
        if rng is not None:     # torch multiplies in the result dtype: the product wraps
            r = (r - rng[0]) % (rng[1] - rng[0] + 1) + rng[0]
    return r


def _is_bool(v):
    """True for a bool tensor or a Python bool (torch wraps it into a bool tensor; numpy.bool_ is read as a
    float by torch's parser, so `b - np.bool_(True)` is the one-bool-tensor error)."""
    return v.__class__ is bool or v.__class__ in _TENSOR_TYPES and v.dtype is D.bool_


def _bool_sub_check(self, other, alpha=1):
    """torch's sub_check: subtraction refuses bool operands, a bool number counting as a bool tensor
    (`b - 1`, `1 - b`, `rsub(b, 1)`, `b.sub_(1)` raise the "a bool tensor" error; `b - True` and
    `b - b` the "two bool tensors" one). An int alpha no int64/uint64 holds fails first, in torch's
    argument parser."""
    sb, ob = _is_bool(self), _is_bool(other)
    if (sb or ob) and alpha.__class__ is int and not -2 ** 63 <= alpha < 2 ** 64:
        raise OverflowError("int too big to convert")
    if sb and ob:
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not supported. "
                           "Use the `^` or `logical_xor()` operator instead.")
    if sb or ob:
        raise RuntimeError("Subtraction, the `-` operator, with a bool tensor is not supported. "
                           "If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.")


class _Fused:
    """add/sub's result computed whole by the prologue (_fused): the kernel returns `t` as it is."""
    __slots__ = ("t",)

    def __init__(self, t):
        self.t = t


_FMA_DTYPES = (D.float32, D.float64)
_addr = flat.clib.address


def _fused_array(self, other, alpha, name):
    """(shape, result dtype, self + alpha * other rounded once) for a float32/float64 result, else None.
    torch's add kernel computes `a + alpha * b` as Vectorized::fmadd(b, alpha, a) (and the compiler contracts
    the scalar loop's expression the same way on AVX2/AVX-512 builds): one rounding, with other and alpha
    converted to the op's dtype first (add(x, 0.1, alpha=3) adds 0.1f * 3f exactly). Two roundings differed
    in ~30% of elements. sub passes -alpha (_check_alpha returns sub's alpha for _scaled, whose result is then
    subtracted), rsub swaps the operands."""
    if alpha.__class__ is bool or not isinstance(alpha, (int, float, np.integer, np.floating)):
        return None
    shape, cdt, rdt = binary_spec(self, other, ARITH, name)
    if rdt not in _FMA_DTYPES:
        return None
    a = _operand(self, cdt)
    b = _operand(other, cdt)
    a = a if a.__class__ is np.ndarray else np.asarray(a, cdt._np)
    b = b if b.__class__ is np.ndarray else np.asarray(b, cdt._np)
    # (with a number or 0-d other, torch's remainder loop past the vectorised steps mixes fused and unfused
    # elements: a few of a row's last 2 * vector-width elements differ; everything is fused here)
    if a.shape == b.shape and a.dtype == b.dtype and a.flags.c_contiguous and b.flags.c_contiguous:
        fn = _fma_kernel(a.dtype)
        if fn is not None:      # the common case in one C call (fma()'s general path broadcasts and copies)
            r = np.empty(a.shape, a.dtype)
            if r.size:
                al = np.full(a.shape, alpha, a.dtype)       # (held: the address alone keeps nothing alive)
                fn(_addr(al), _addr(b), _addr(a), _addr(r), r.size)
            return shape, rdt, r
    from .elementwise_fma import fma
    return shape, rdt, fma(cdt._np.type(alpha), b, a)


_FMA_FNS = {}


def _fma_kernel(dt):
    """csrc/fma.c's fma_f32 / fma_f64 (ctypes), or None when C kernels are off."""
    fn = _FMA_FNS.get(dt, 0)
    if fn == 0:
        from .runtime import clib
        fn = _FMA_FNS[dt] = clib.kernel("fma", "fma_f32" if dt == np.float32 else "fma_f64", "ppppl")
    return fn


def _fused(self, other, alpha, name):
    """The functional add/sub with alpha as a _Fused result, or None (see _fused_array)."""
    r = _fused_array(self, other, alpha, name)
    if r is None:
        return None
    shape, rdt, v = r
    if isinstance(self, Tensor) and self._size == shape and self._np.size and self._np.flags.c_contiguous:
        return _Fused(_wrap_fresh(np.ascontiguousarray(v, rdt._np).reshape(shape), rdt))
    out = _alloc(shape, rdt, self, other)
    np.copyto(out._np, v, casting="unsafe")
    return _Fused(out)


def _add_prologue(self, other, alpha):
    if alpha.__class__ is not int or alpha != 1:
        a = _check_alpha(self, other, alpha, "add")
        f = _fused(self, other, a, "add")
        if f is not None:
            return f
        other = _scaled(other, a, self)
    return other


def _sub_prologue(self, other, alpha):
    _bool_sub_check(self, other, alpha)
    if alpha.__class__ is not int or alpha != 1:
        a = _check_alpha(self, other, alpha, "sub")
        f = _fused(self, other, -a, "sub")
        if f is not None:
            return f
        other = _scaled(other, a, self)
    return other


# (the small path of `add`/`sub` skips the prologue: it runs only with alpha 1 and two same-dtype non-bool
# tensors, where _check_alpha, _scaled and _bool_sub_check have nothing to do)
add, _add_i, _add_o = make_binary(_ufunc2_swapped(np.add), ARITH, "add", np.add, "add", _add_prologue)
_sub_f, _sub_i, _sub_o = make_binary(_ufunc2(np.subtract), ARITH, "sub", np.subtract, "sub", _sub_prologue)
_add_f = add


def _fused_inplace(self, other, alpha, name):
    """add_/sub_ with alpha into self through one rounding (see _fused_array); False when not applicable."""
    check_mem_overlap(self, other)
    r = _fused_array(self, other, alpha, name)
    if r is None:
        return False
    shape, rdt, v = r
    check_inplace(self, shape, rdt, name)
    np.copyto(self._np, v, casting="unsafe")
    return True


def _fused_out(self, other, alpha, name, out):
    check_mem_overlap(out, self, other)
    r = _fused_array(self, other, alpha, name)
    if r is None:
        return False
    shape, rdt, v = r
    if out._size == shape:
        check_out(out, shape, rdt, name)
    else:
        _check_out_resized(out, shape, rdt, name, None, self, other)
    np.copyto(out._np, v, casting="unsafe")
    return True


def add_(self, other, alpha=1):
    if alpha.__class__ is not int or alpha != 1:
        other = as_py_number(other)
        a = _check_alpha(self, other, alpha, "add")
        if _fused_inplace(self, other, a, "add_"):
            return self
        other = _scaled(other, a, self)
    return _add_i(self, other)


def add_out(self, other, alpha=1, out=None):
    if alpha.__class__ is not int or alpha != 1:
        self, other = as_py_number(self), as_py_number(other)
        a = _check_alpha(self, other, alpha, "add")
        if _fused_out(self, other, a, "add", out):
            return out
        other = _scaled(other, a, self)
    return _add_o(self, other, out)


sub = _sub_f


def sub_(self, other, alpha=1):
    _bool_sub_check(self, other, alpha)
    if alpha.__class__ is not int or alpha != 1:
        other = as_py_number(other)
        a = _check_alpha(self, other, alpha, "sub")
        if _fused_inplace(self, other, -a, "sub_"):
            return self
        other = _scaled(other, a, self)
    return _sub_i(self, other)


def sub_out(self, other, alpha=1, out=None):
    _bool_sub_check(self, other, alpha)
    if alpha.__class__ is not int or alpha != 1:
        self, other = as_py_number(self), as_py_number(other)
        a = _check_alpha(self, other, alpha, "sub")
        if _fused_out(self, other, -a, "sub", out):
            return out
        other = _scaled(other, a, self)
    return _sub_o(self, other, out)


def rsub(self, other, alpha=1):
    return sub(other, self, alpha=alpha)


mul, mul_, mul_out = make_binary(_ufunc2_swapped(np.multiply), ARITH, "mul", np.multiply, "mul")


_div_true = make_binary(_ufunc2(np.true_divide), TRUE_DIV, "div", np.true_divide, "div")


def _int_div_check(b):
    bn = np_of(b)
    if np.any(np.asarray(bn) == 0):
        raise RuntimeError("ZeroDivisionError")


def _trunc_div(a, b, out):
    if out.dtype == np.bool_:
        raise NotImplementedError("\"div_trunc_cpu\" not implemented for 'Bool'")
    if np.issubdtype(out.dtype, np.integer):
        _int_div_check(b)
        q = np.floor_divide(a, b)
        fix = (np.remainder(a, b) != 0) & ((np.asarray(a) < 0) != (np.asarray(b) < 0))
        np.add(q, fix, out=out, casting="unsafe")
    else:
        np.trunc(_quiet_di(np.true_divide, a, b), out=out, casting="unsafe")


def _floor_div(a, b, out):
    if out.dtype == np.bool_:
        raise NotImplementedError("\"div_floor_cpu\" not implemented for 'Bool'")
    if np.issubdtype(out.dtype, np.integer):
        _int_div_check(b)
    _quiet_di(np.floor_divide, a, b, out=out, casting="unsafe")


_div_trunc = make_binary(_trunc_div, ARITH, "div")
_div_floor = make_binary(_floor_div, ARITH, "div")
_DIV = {None: _div_true, "trunc": _div_trunc, "floor": _div_floor}


def _div_mode(rounding_mode):
    try:
        return _DIV[rounding_mode]
    except KeyError:
        raise RuntimeError(f"div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '{rounding_mode}'") from None




def div(self, other):
    return _quiet_dio(_div_true[0], self, other)


def div_(self, other):
    return _quiet_dio(_div_true[1], self, other)


def div_out(self, other, out):
    return _quiet_dio(_div_true[2], self, other, out)


def div_mode(self, other, rounding_mode=None):
    return _quiet_dio(_div_mode(rounding_mode)[0], self, other)


def div_mode_(self, other, rounding_mode=None):
    return _quiet_dio(_div_mode(rounding_mode)[1], self, other)


def div_mode_out(self, other, rounding_mode=None, out=None):
    return _quiet_dio(_div_mode(rounding_mode)[2], self, other, out)


floor_divide, floor_divide_, floor_divide_out = _div_floor


def _rem(a, b, out):
    if out.dtype == np.bool_:
        raise NotImplementedError("\"remainder_cpu\" not implemented for 'Bool'")
    if np.issubdtype(out.dtype, np.integer):
        _int_div_check(b)
    if out.dtype.kind != "f":
        _quiet_di(np.remainder, a, b, out=out, casting="unsafe")
        return
    # torch's floating remainder: m = fmod(a, b), plus b where m is nonzero and its sign differs from b's. numpy's
    # remainder is that but for a zero result, which it signs like b (copysign(0, b)) where torch keeps fmod's zero
    # (a's sign): remainder(3e38, -3e38) is 0.0 in torch, -0.0 in numpy
    _quiet_di(np.fmod, a, b, out=out, casting="unsafe")
    with np.errstate(invalid="ignore"):
        mask = (out != 0) & ((np.asarray(b) < 0) != (out < 0))
    np.add(out, b, out=out, where=mask, casting="unsafe")


remainder, remainder_, remainder_out = make_binary(_rem, ARITH, "remainder")


def _pow(a, b, out):
    if out.dtype.kind in "fc" and np.ndim(b) == 0 and b == 2:     # square (torch's square is pow(x, 2))
        np.multiply(a, a, out=out, casting="unsafe")
        return
    if np.issubdtype(out.dtype, np.integer):
        _int_pow(a, b, out)
        return
    _quiet_dio(np.power, a, b, out=out, casting="unsafe")


def _int_pow(a, b, out):
    """c10's powi for an integral result: both operands converted to the result dtype first (wrapping: an
    int8 exponent tensor(1000) is -24), the power taken modulo 2**bits, and a negative exponent giving 1 for
    base 1, +-1 for base -1 (by the exponent's parity) and 0 otherwise. (A negative *number* exponent was
    refused before, by _check_exponent: only tensor exponents arrive here negative.)"""
    dt = out.dtype
    a = np.asarray(a).astype(dt, copy=False)
    b = np.asarray(b).astype(dt, copy=False)
    if dt.kind == "u":
        np.power(a, b, out=out)
        return
    neg = b < 0
    if not neg.any():
        np.power(a, b, out=out)
        return
    r = np.power(a, np.where(neg, 0, b).astype(dt, copy=False))
    at_neg = np.where(a == 1, 1, np.where(a == -1, np.where(b & 1, -1, 1), 0)).astype(dt, copy=False)
    np.copyto(out, np.where(neg, at_neg, r), casting="unsafe")


_pow_f, _pow_i, _pow_o = make_binary(_pow, ARITH, "pow")


def _check_exponent(self, exp):
    """torch's pow(Tensor, Scalar) converts a number exponent to the result dtype with c10's checked_convert
    when that dtype is integral (after refusing a negative int: "Integers to negative integer powers are not
    allowed.") or float16/bfloat16: pow(int8, 1000) raises "value cannot be converted to type int8_t without
    overflow" (numpy would wrap the exponent), an exponent from 2**63 up names int64_t. float32/float64/complex
    results take any exponent; a 0-d tensor exponent is not checked."""
    if not isinstance(self, Tensor) or isinstance(exp, (bool, np.bool_, Tensor)):
        return
    if not isinstance(exp, (int, float, complex, np.number)):
        return
    if isinstance(exp, (int, np.integer)) and not -2 ** 63 <= exp < 2 ** 64:
        raise OverflowError("int too big to convert")       # the argument parser's Scalar (int64 or uint64)
    from ..._core.promotion import binary_result_type
    d = binary_result_type(self, exp)
    if d.name in INT_RANGE:
        if exp < 0:
            raise RuntimeError("Integers to negative integer powers are not allowed.")
        if exp >= 2 ** 63:
            check_number(D.int64, exp)
        check_number(d, exp)
    elif d is D.float16 or d is D.bfloat16:
        check_number(d, exp)


def _complex_half_check(self, other, target=None):
    """torch has no ComplexHalf pow: where its result dtype would be complex32 (float16 with a complex
    number or 0-dim complex tensor; ember computes such results in complex64 elsewhere) pow raises
    NotImplementedError, and an in-place or out= target that cannot hold a complex result the cast error
    naming ComplexHalf."""
    if getattr(self, "dtype", None) is not D.float16 and getattr(other, "dtype", None) is not D.float16:
        return
    from ..._core.promotion import is_complex_half
    if not is_complex_half(self, other):
        return
    if target is not None and not target.dtype.is_complex:
        raise RuntimeError(f"result type ComplexHalf can't be cast to the desired output type {_tname(target.dtype)}")
    raise NotImplementedError("\"pow\" not implemented for 'ComplexHalf'")


def pow(self, other):
    _check_exponent(self, other)
    _complex_half_check(self, other)
    r = _pow_f(self, other)
    if (1 in r._size and self.__class__ in _TENSOR_TYPES and other.__class__ not in _TENSOR_TYPES
            and self._stride is not None):
        # pow(Tensor, Scalar) is a unary TensorIterator: strides by the fast setup of self alone (the binary
        # kernel's number operand would order dims by a size-1 dim's odd stride)
        st = out_strides(r._size, self)
        if tuple(st) != tuple(r.stride()):
            t = empty_tensor(r._size, r.dtype, strides=st)
            t._np[...] = r._np
            r = t
    if r.dtype is _BF16_T and other.__class__ not in _TENSOR_TYPES:
        _bf16_pow_nans(r._np, self._np, other)
    if not r._size or r._np.size or other.__class__ in _TENSOR_TYPES or self.__class__ not in _TENSOR_TYPES:
        return r
    # pow(Tensor, Scalar) is a unary TensorIterator in torch: an empty result is contiguous (a binary
    # op's number operand would order its dims by the input's strides)
    return empty_tensor(r._size, r.dtype)


def pow_(self, other):
    _check_exponent(self, other)
    _complex_half_check(self, other, self)
    return _pow_i(self, other)


def pow_out(self, other, out):
    _check_exponent(self, other)
    _complex_half_check(self, other, out)
    return _pow_o(self, other, out)

eq, eq_, eq_out = make_binary(_ufunc2(np.equal), COMPARE, "eq", np.equal, "eq")
ne, ne_, ne_out = make_binary(_ufunc2(np.not_equal), COMPARE, "ne", np.not_equal, "ne")
lt, lt_, lt_out = make_binary(_ufunc2(np.less), COMPARE, "lt", np.less, "lt")
le, le_, le_out = make_binary(_ufunc2(np.less_equal), COMPARE, "le", np.less_equal, "le")
gt, gt_, gt_out = make_binary(_ufunc2(np.greater), COMPARE, "gt", np.greater, "gt")
ge, ge_, ge_out = make_binary(_ufunc2(np.greater_equal), COMPARE, "ge", np.greater_equal, "ge")


def _logical(uf):
    def f(a, b, out):
        uf(np.asarray(a) != 0, np.asarray(b) != 0, out=out, casting="unsafe")
    return f


logical_and, logical_and_, logical_and_out = make_binary(_logical(np.logical_and), LOGICAL, "logical_and")
logical_or, logical_or_, logical_or_out = make_binary(_logical(np.logical_or), LOGICAL, "logical_or")
logical_xor, logical_xor_, logical_xor_out = make_binary(_logical(np.logical_xor), LOGICAL, "logical_xor")
bitwise_and, bitwise_and_, bitwise_and_out = make_binary(_ufunc2(np.bitwise_and), BITWISE, "bitwise_and")
bitwise_or, bitwise_or_, bitwise_or_out = make_binary(_ufunc2(np.bitwise_or), BITWISE, "bitwise_or")
bitwise_xor, bitwise_xor_, bitwise_xor_out = make_binary(_ufunc2(np.bitwise_xor), BITWISE, "bitwise_xor")


# ---------------------------------------------------------------- unary
def make_unary(fn_np, kind, name, split=False, c_name=None, c_min=_C_MIN, small_uf=None):
    """(functional, inplace, out) kernels for a same-shape op computing `fn_np(a, out)`. `split`: fn_np is
    purely elementwise (and sets its own errstate), so big float inputs are shared out over the pool.
    `c_name`: csrc/elementwise_flat.c's kernel for the op, run on ember's C pool for c-contiguous float32 /
    float64 tensors of at least `c_min` elements (a dtype without that kernel keeps the numpy path).
    `small_uf`: when fn_np is `_u(uf)`, uf itself: a small contiguous real floating tensor (below both the C
    and the split sizes, so fn_np would run on the whole array anyway) then calls it directly under the same
    error state (a CRF's per-tag exp/log of five elements: the general path's dtype rule, flag reads and
    keyword call were most of the op)."""
    small_max = c_min if c_name is not None else _BIG
    bf16_vec = name in _BF16_VECTORISED        # torch's bfloat16 NaN bits: elementwise_bf16
    if split and SPLIT_ELEMS < small_max:
        small_max = SPLIT_ELEMS
    domain = name in DOMAIN_LOW
    run_small = None if not small_uf else quiet_into(small_uf, divide="ignore", invalid="call", over="ignore",
                                                      call=_note_invalid) if domain else \
        quiet_into(small_uf, divide="ignore", invalid="ignore", over="ignore")

    def functional(self):
        if run_small is not None:
            a = self._np
            if a is not None and a.dtype in _REAL_FLOATS and a.size < small_max and a.flags.c_contiguous:
                r = _empty(a.shape, a.dtype)
                run_small(a, r)
                if INVALID[0] and domain:
                    domain_nans(name, a, r)
                return _wrap_fresh(r, self.dtype)
        rdt = unary_dtype(self, kind)
        a = self._np if self.dtype is rdt or kind == ABS else self._np.astype(rdt._np)
        if a.flags.c_contiguous:
            r = np.empty(self._size, rdt._np)
            if (c_name is not None and a.size >= c_min and a.dtype == r.dtype and (c_min < _C_MIN or _splits())
                    and flat.run(c_name, [a, r])):
                return _wrap_fresh(r, rdt)
            if split and a.size >= SPLIT_ELEMS and a.dtype.kind == "f" and r.dtype == a.dtype:
                split_flat(fn_np, [a.reshape(-1), r.reshape(-1)])
            else:
                fn_np(a, r)
                if bf16_vec and rdt is _BF16_T:
                    _bf16_unary_nans(r)
            return _wrap_fresh(r, rdt)
        out = _alloc(self._size, rdt, self)
        fn_np(a, out._np)
        if bf16_vec and rdt is _BF16_T:
            _bf16_unary_nans(out._np)
        return out

    def inplace(self):
        if kind != ARITH:       # an ARITH op's result has self's dtype and shape: nothing for the check to refuse
            check_unary_inplace(self, kind, name)
        st = self._stride
        if st is not None and 0 in st:      # (only self is read: just the internal-overlap rule)
            check_mem_overlap(self)
        a = self._np
        if (c_name is not None and a.size >= c_min and a.flags.c_contiguous and (c_min < _C_MIN or _splits())
                and flat.run(c_name, [a, a])):
            return self
        if split and a.size >= SPLIT_ELEMS and a.dtype.kind == "f" and a.flags.c_contiguous:
            flat_a = a.reshape(-1)
            split_flat(fn_np, [flat_a, flat_a])
        else:
            fn_np(a, a)
            if bf16_vec and self.dtype is _BF16_T:
                _bf16_unary_nans(a)
        return self

    def out_variant(self, out):
        check_mem_overlap(out, self)
        rdt = unary_dtype(self, kind)
        if out._size == self._size:
            check_out(out, self._size, rdt, name, unary_out_rule(kind, self))
        else:
            _check_out_resized(out, self._size, rdt, name, unary_out_rule(kind, self), self)
        a = self._np if self.dtype is rdt or kind == ABS else self._np.astype(rdt._np)
        t = out._np
        if (c_name is not None and a.size >= c_min and t.dtype == a.dtype and t.shape == a.shape
                and (c_min < _C_MIN or _splits())
                and a.flags.c_contiguous and t.flags.c_contiguous and not flat.overlaps(t, a)
                and flat.run(c_name, [a, t])):
            return out
        if t.dtype == rdt._np:
            fn_np(a, t)
        else:
            tmp = np.empty(self._size, rdt._np)
            fn_np(a, tmp)
            np.copyto(t, tmp, casting="unsafe")
        if bf16_vec and rdt is _BF16_T and out.dtype is _BF16_T:
            _bf16_unary_nans(t)
        return out

    functional.__name__, inplace.__name__, out_variant.__name__ = name, name + "_", name + "_out"
    return functional, inplace, out_variant


def _u(uf):
    def f(a, out):
        _quiet_dio(uf, a, out=out, casting="unsafe")
    return f


# ---------------------------------------------------------------- torch's NaN for a number outside the domain
# sqrt/log/log2/log10 of a negative number (log1p below -1) are NaN; numpy's kernels (and the vsqrtps instruction)
# write x86's default NaN, the negative 0xffc00000, where torch's vectorised kernels (Sleef) write +NaN 0x7fc00000
# (float32 log1p: 0xffffffff; float64 all +NaN 0x7ff8000000000000; float16 log1p 0xffff, the others match).
# The ufunc runs with numpy's `invalid` error set to call _note_invalid, so the fix-up pass runs only when some
# element raised the invalid flag: a valid input costs nothing more than the state's (cached) switch. A NaN input
# propagates unchanged (no invalid flag; torch keeps it too). In place (the input already overwritten) the
# elements fixed are those holding the default NaN: a default-NaN input would turn positive there.
DOMAIN_LOW = {"sqrt": 0.0, "log": 0.0, "log2": 0.0, "log10": 0.0, "log1p": -1.0}
_TORCH_NAN = {(np.dtype(np.float32), None): 0x7FC00000, (np.dtype(np.float32), "log1p"): 0xFFFFFFFF,
              (np.dtype(np.float64), None): 0x7FF8000000000000, (np.dtype(np.float16), "log1p"): 0xFFFF}
_DEFAULT_NAN = {np.dtype(np.float32): 0xFFC00000, np.dtype(np.float64): 0xFFF8000000000000,
                np.dtype(np.float16): 0xFE00}
_UINT = {4: np.uint32, 8: np.uint64, 2: np.uint16}
INVALID = [False]


def _note_invalid(kind, flag):
    INVALID[0] = True


def domain_nans(name, a, out):
    """Write torch's NaN (see above) where `a` lies below `name`'s domain; called after the flag was raised."""
    INVALID[0] = False
    if out.__class__ is not np.ndarray or out.dtype.kind != "f":
        return
    bits = _TORCH_NAN.get((out.dtype, name), _TORCH_NAN.get((out.dtype, None)))
    if bits is None or not out.size:
        return
    u = out.view(_UINT[out.itemsize])
    if np.may_share_memory(a, out):
        mask = u == _DEFAULT_NAN[out.dtype]
    else:
        with np.errstate(invalid="ignore"):
            mask = np.broadcast_to(a < DOMAIN_LOW[name], out.shape)
    u[mask] = bits


_quiet_dio_call = quiet(divide="ignore", invalid="call", over="ignore", call=_note_invalid)


def _u_domain(uf, name):
    """_u for an op with a domain (DOMAIN_LOW): torch's NaN outside it."""
    def f(a, out):
        _quiet_dio_call(uf, a, out=out, casting="unsafe")
        if INVALID[0]:
            domain_nans(name, a, out)
    return f


def _opmath(a):
    """`a` as torch's kernels compute a float16/bfloat16 op of several steps: in float32 (its opmath type),
    rounded once into the result; other dtypes as they are."""
    return a.astype(np.float32) if a.dtype.itemsize == 2 and a.dtype.kind in "fV" else a


def _rsqrt_np(a, out):
    np.divide(1, np.sqrt(_opmath(a)), out=out, casting="unsafe")


def _rsqrt(a, out):
    _quiet_di(_rsqrt_np, a, out)


C_MIN_ELEMS = 1 << 12     # from here where/sigmoid/clamp on contiguous float32/64 run csrc/elementwise_flat.c


def _c_run(name, arrays, *args):
    """The kernel `name` of csrc/elementwise_flat.c over `arrays` (c-contiguous, one size, the last one
    written; the others of its float dtype, except a leading bool mask) on ember's C pool (runtime/flat.py).
    False (nothing done) below C_MIN_ELEMS or without C."""
    o = arrays[-1]
    if o.dtype not in _FLAT or o.size < C_MIN_ELEMS:
        return False
    for a in arrays:
        if not a.flags.c_contiguous or a.size != o.size or (a.dtype != o.dtype and a.dtype != np.bool_):
            return False
    if flat.overlaps(o, *arrays[:-1]):
        return False
    return flat.run(name, arrays, *args, dtype=o.dtype)


def _sigmoid(a, out):
    if a.shape == out.shape and _c_run("sigmoid", [a, out]):
        return
    _quiet_over(_sigmoid_np, a, out)


def _sigmoid_np(a, out):
    a = _opmath(a)
    np.divide(1, 1 + np.exp(-a), out=out, casting="unsafe")


def _abs(a, out):
    if a.dtype == np.bool_:
        raise NotImplementedError("\"abs_cpu\" not implemented for 'Bool'")
    else:
        np.absolute(a, out=out, casting="unsafe")


def _bitwise_not(a, out):
    if a.dtype.kind == "f" or a.dtype.kind == "c":
        from ..common import _tname
        raise NotImplementedError(f"\"bitwise_not_cpu\" not implemented for '{_tname(D.from_numpy_dtype(a.dtype))}'")
    np.invert(a, out=out)


def _logical_not(a, out):
    np.logical_not(a, out=out, casting="unsafe")


abs, abs_, abs_out = make_unary(_abs, ABS, "abs", split=True, c_name="abs")
exp, exp_, exp_out = make_unary(_u(np.exp), FLOAT_OUT, "exp", split=True, c_name="exp", c_min=_C_MIN_MATH,
                                small_uf=np.exp)
log, log_, log_out = make_unary(_u_domain(np.log, "log"), FLOAT_OUT, "log", split=True, small_uf=np.log)
sqrt, sqrt_, sqrt_out = make_unary(_u_domain(np.sqrt, "sqrt"), FLOAT_OUT, "sqrt", split=True, c_name="sqrt")
rsqrt, rsqrt_, rsqrt_out = make_unary(_rsqrt, FLOAT_OUT, "rsqrt", split=True)
sin, sin_, sin_out = make_unary(_u(np.sin), FLOAT_OUT, "sin", split=True, small_uf=np.sin)
cos, cos_, cos_out = make_unary(_u(np.cos), FLOAT_OUT, "cos", split=True, small_uf=np.cos)
tanh, tanh_, tanh_out = make_unary(_u(np.tanh), FLOAT_OUT, "tanh", split=True, c_name="tanh", c_min=_C_MIN_MATH,
                                   small_uf=np.tanh)
sigmoid, sigmoid_, sigmoid_out = make_unary(_sigmoid, FLOAT_OUT, "sigmoid", c_name="sigmoid", c_min=_C_MIN_MATH)
bitwise_not, bitwise_not_, bitwise_not_out = make_unary(_bitwise_not, ARITH, "bitwise_not")
logical_not, logical_not_, logical_not_out = make_unary(_logical_not, LOGICAL, "logical_not")


# ---------------------------------------------------------------- clamp / where
def _clamp_np(a, lo, hi, out):
    lo = np_of(lo)
    hi = np_of(hi)
    if lo is None and hi is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    r = a
    # torch's clamp keeps x on a tie with a bound (std::max(x, min): clamp(-0., min=0.) is -0.). numpy's
    # maximum/minimum return the second operand of a tie for float32/float64 at every size and the first for
    # float16, so the operands go in the order that returns x
    first = r.dtype == np.float16
    if lo is not None:
        r = np.maximum(r, lo) if first else np.maximum(lo, r)
    if hi is not None:
        r = np.minimum(r, hi) if first else np.minimum(hi, r)
    np.copyto(out, r, casting="unsafe")


def _clamp_dtype(self, lo, hi):
    from ..._core.promotion import result_type
    return result_type(self, *[v for v in (lo, hi) if v is not None])


def _clamp_bounds(rdt, lo, hi):
    """Python-int bounds of an integer clamp as torch converts them (c10's checked_convert): RuntimeError
    'value cannot be converted to type int8_t without overflow' beyond the dtype, uint8's negatives wrapped
    (numpy 2 raised OverflowError)."""
    if rdt.is_floating_point or rdt.is_complex:
        return lo, hi
    from ..._core.scalar_value import check_number
    return tuple(check_number(rdt, v) if v.__class__ is int else v for v in (lo, hi))


def _c_clamp(self, lo, hi, inplace=False):
    """clamp of a large contiguous float32/64 tensor by Python-number bounds in one C pass: the result (self
    when `inplace`), or None when the operands do not fit (nothing written)."""
    if not (lo is None or lo.__class__ is float or lo.__class__ is int) or \
            not (hi is None or hi.__class__ is float or hi.__class__ is int) or (lo is None and hi is None):
        return None
    a = self._np
    if a is None or a.size < C_MIN_ELEMS or a.dtype not in _FLAT:
        return None
    lo = -np.inf if lo is None else float(lo)
    hi = np.inf if hi is None else float(hi)
    if lo != lo or hi != hi:
        return None
    if inplace:
        return self if _c_run("clamp", [a, a], lo, hi) else None
    r = np.empty(a.shape, a.dtype)
    return _wrap_fresh(r, self.dtype) if _c_run("clamp", [a, r], lo, hi) else None


def _small_clamp(self, lo, hi, inplace):
    """clamp of a small contiguous floating tensor (not bfloat16) by Python-number bounds: the general path's
    two numpy calls (`_clamp_np`: maximum, then minimum; NaN bounds and lo > hi as torch) without its dtype,
    shape and stride work, which cost ~9 us of an 11.7 us call (issue 18). None when it does not apply."""
    a = self._np
    if (a is None or not 0 < a.size < C_MIN_ELEMS or self.dtype is _BF16_T
            or self._stride is not None and (1 in self._size or not a.flags.c_contiguous)
            or not self.dtype.is_floating_point or (lo is None and hi is None)
            or not (lo is None or lo.__class__ is float or lo.__class__ is int)
            or not (hi is None or hi.__class__ is float or hi.__class__ is int)):
        return None
    # (operand order as _clamp_np's: the one whose tie with a bound returns x, as torch's std::max)
    if a.dtype == np.float16:
        if inplace:
            if lo is not None:
                np.maximum(a, lo, out=a)
            if hi is not None:
                np.minimum(a, hi, out=a)
            return self
        r = np.maximum(a, lo) if lo is not None else a
        r = np.minimum(r, hi) if hi is not None else r
        return _wrap_fresh(np.asarray(r), self.dtype)
    if inplace:
        if lo is not None:
            np.maximum(lo, a, out=a)
        if hi is not None:
            np.minimum(hi, a, out=a)
        return self
    if lo is not None:
        r = np.maximum(lo, a)
        if r.__class__ is not _ndarray:     # a 0-d input gives a numpy scalar
            r = np.asarray(r)
        if hi is not None:
            np.minimum(hi, r, out=r)
    else:
        r = np.minimum(hi, a)
        if r.__class__ is not _ndarray:
            r = np.asarray(r)
    return _wrap_fresh(r, self.dtype)


def clamp(self, min=None, max=None):
    r = _small_clamp(self, min, max, False)
    if r is not None:
        return r
    from ..common import broadcast_shapes, shape_of
    r = _c_clamp(self, min, max)
    if r is not None:
        return r
    rdt = _clamp_dtype(self, min, max)
    min, max = _clamp_bounds(rdt, min, max)
    shape = broadcast_shapes(self._size, shape_of(min), shape_of(max))
    out = _alloc(shape, rdt, self)
    _clamp_np(self._np.astype(rdt._np, copy=False), min, max, out._np)
    return out


def clamp_(self, min=None, max=None):
    if _small_clamp(self, min, max, True) is not None:    # (Python-number bounds: nothing overlaps)
        return self
    check_mem_overlap(self, min, max)
    if _c_clamp(self, min, max, inplace=True) is not None:     # Python-number bounds keep a float dtype
        return self
    rdt = _clamp_dtype(self, min, max)
    check_inplace(self, self._size, rdt, "clamp")
    min, max = _clamp_bounds(rdt, min, max)
    _clamp_np(self._np, min, max, self._np)
    return self


def clamp_min_(self, min):
    """In place with a node of its own (ClampMinBackward0, as torch's), not clamp_'s."""
    return clamp_(self, min, None)


def clamp_max_(self, max):
    return clamp_(self, None, max)


def clamp_out(self, min=None, max=None, out=None):
    check_mem_overlap(out, self, min, max)
    r = clamp(self, min, max)
    check_out(out, r._size, r.dtype, "clamp")
    np.copyto(out._np, r._np, casting="unsafe")
    return out


def clamp_min(self, min):
    return clamp(self, min, None)


def clamp_max(self, max):
    return clamp(self, None, max)


_WHERE_UINT8 = []


def where(condition, self, other):
    # The small path (issue 18: 7.1 us against torch's 1.5): a bool condition and two same-dtype tensors, all
    # three of one shape and contiguous (`_stride` None), below the C kernel's size: np.where's fresh
    # contiguous result is the general path's (same dtype, nothing to broadcast, cast or order).
    # A contiguous view (a row `h[i]`) counts too when no dim has size 1 (an odd stride there orders
    # TensorIterator's dims: out_strides).
    if (condition.dtype is _BOOL_T and self.__class__ in _TENSOR_TYPES and other.__class__ in _TENSOR_TYPES
            and other.dtype is self.dtype and self._size == condition._size and other._size == condition._size):
        c = condition._np
        if (c is not None and c.size < C_MIN_ELEMS
                and (condition._stride is None and self._stride is None and other._stride is None
                     or 1 not in self._size and c.flags.c_contiguous and self._np.flags.c_contiguous
                     and other._np.flags.c_contiguous)):
            r = np.where(c, self._np, other._np)
            return _wrap_fresh(r if r.__class__ is _ndarray else np.asarray(r), self.dtype)
    if condition.dtype is not D.bool_ and condition.dtype is not D.uint8:
        raise RuntimeError(f"where expected condition to be a boolean tensor, but got a tensor with dtype "
                           f"{_tname(condition.dtype)}")    # c10's names: Long, Float, Byte...
    if condition.dtype is D.uint8 and not _WHERE_UINT8:
        _WHERE_UINT8.append(True)          # torch's TORCH_WARN_ONCE
        warn_user("where received a uint8 condition tensor. This behavior is deprecated and will be removed in "
                  "a future version of PyTorch. Use a boolean condition instead.")
    shape, dt = where_spec(condition, self, other)
    if (isinstance(self, Tensor) and isinstance(other, Tensor) and self.dtype is dt and other.dtype is dt
            and self._size == shape and other._size == shape and condition._size == shape):
        r = np.empty(shape, dt._np)
        if _c_run("where", [condition._np, self._np, other._np, r]):
            return _wrap_fresh(r, dt)
    out = _alloc(shape, dt, self, other)
    np.copyto(out._np, np.where(condition._np, _operand(self, dt), _operand(other, dt)), casting="unsafe")
    return out


def _neg(a, out):
    if a.dtype == np.bool_:
        raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. "
                           "If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.")
    np.negative(a, out=out)


# (`small_uf`: a small real floating tensor's negation is np.negative itself, as _neg calls it; bool's error
# stays on the general path: -r on a 32-float row 2.2 -> ~1.5 us, torch 1.25)
neg, neg_, neg_out = make_unary(_neg, ARITH, "neg", split=True, c_name="neg", small_uf=np.negative)
