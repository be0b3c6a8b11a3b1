"""cpu kernels for pointwise math (issue 3): unary/binary/ternary ops built on the same factories as
kernels/cpu/elementwise.py; outputs are allocated from the meta rules in kernels/meta/elementwise.py."""
import numpy as np

from .elementwise_bf16 import VECTORISED_UNARY, unary_nans

from ..._core import dtype as D
from ..._core.tensor_impl import TensorImpl as Tensor
from ..common import check_out, np_of
from ..meta.elementwise_common import ARITH, BITWISE, FLOAT_OUT, check_inplace, check_mem_overlap
from .elementwise import DOMAIN_LOW, INVALID, domain_nans, _note_invalid, make_binary, _alloc, _ufunc2
from . import elementwise_special
from .elementwise_fma import fma
from ..meta.elementwise_math import UNARY_KINDS, ternary_spec, unary_kind_dtype, unary_out_rule
from ..out_rules import same_dtype
from .runtime.fp_errors import quiet

_wrap_fresh = Tensor._wrap_fresh


_quiet_all = quiet(divide="ignore", invalid="ignore", over="ignore", under="ignore")
_quiet_dio = quiet(divide="ignore", invalid="ignore", over="ignore")
_quiet_di = quiet(divide="ignore", invalid="ignore")


def _quiet(f):
    def g(*a, **k):
        return _quiet_all(f, *a, **k)
    return g


_quiet_all_call = quiet(divide="ignore", invalid="call", over="ignore", under="ignore", call=_note_invalid)


def _domain(f, name):
    """_quiet(f) for an op with a domain (elementwise.py's DOMAIN_LOW): torch's NaN outside it."""
    def g(a, *args, **kw):
        r = _quiet_all_call(f, a, *args, **kw)
        if INVALID[0]:
            domain_nans(name, a, r)
        return r
    return g


def make_unary_p(fn, name, kind=None):
    """(functional, inplace, out) for a same-shape op `fn(a, *params) -> ndarray` (params are the
    schema's extra arguments). Result dtype from kernels/meta/elementwise_math.py's table."""
    kind = UNARY_KINDS.get(name, FLOAT_OUT) if kind is None else kind
    rule = unary_out_rule(kind, name)
    fn = _domain(fn, name) if name in DOMAIN_LOW else _quiet(fn)
    bf16_vec = name in VECTORISED_UNARY         # torch's bfloat16 NaN bits (elementwise_bf16)

    def _compute(self, args, kw, rdt):
        a = self._np
        if rdt.is_floating_point and a.dtype != rdt._np or a.dtype.kind == "b" and rdt is D.int64:
            a = a.astype(rdt._np)
        r = fn(a, *args, **kw)
        if bf16_vec and rdt is D.bfloat16 and type(r) is np.ndarray and not np.may_share_memory(r, self._np):
            unary_nans(r)
        return r

    def functional(self, *args, **kw):
        rdt = unary_kind_dtype(self, kind, name)
        r = _compute(self, args, kw, rdt)
        if (type(r) is np.ndarray and r.dtype == rdt._np and r.shape == self._size and r.flags.c_contiguous
                and self.is_contiguous() and not np.may_share_memory(r, self._np)):
            return _wrap_fresh(r, rdt)          # a fresh result in the layout _alloc would give: no copy
        out = _alloc(self._size, rdt, self)
        np.copyto(out._np, r, casting="unsafe")
        return out

    def inplace(self, *args, **kw):
        check_mem_overlap(self)
        rdt = unary_kind_dtype(self, kind, name)
        check_inplace(self, self._size, rdt, name)
        np.copyto(self._np, _compute(self, args, kw, rdt), casting="unsafe")
        return self

    def out_variant(self, *args, out=None, **kw):
        check_mem_overlap(out, self)
        rdt = unary_kind_dtype(self, kind, name)
        r = _compute(self, args, kw, rdt)
        check_out(out, self._size, rdt, name, rule)
        np.copyto(out._np, r, casting="unsafe")
        return out

    functional.__name__, inplace.__name__, out_variant.__name__ = name, name + "_", name + "_out"
    return functional, inplace, out_variant


def _define(name, fn, kind=None):
    f, i, o = make_unary_p(fn, name, kind)
    g = globals()
    g[name], g[name + "_"], g[name + "_out"] = f, i, o


# ------------------------------------------------------------------ float-valued unary
for _n, _f in {"exp2": np.exp2, "expm1": np.expm1, "log1p": np.log1p, "log2": np.log2, "log10": np.log10,
               "asin": np.arcsin, "acos": np.arccos, "atan": np.arctan, "sinh": np.sinh, "cosh": np.cosh,
               "tan": np.tan, "asinh": np.arcsinh, "acosh": np.arccosh, "atanh": np.arctanh,
               "erf": elementwise_special.erf, "erfc": elementwise_special.erfc, "erfinv": elementwise_special.erfinv,
               "reciprocal": lambda a: np.divide(1, a)}.items():
    _define(_n, _f)


def _logit(a, eps=None):
    if eps is not None:
        a = np.clip(a, eps, 1 - eps)
    return np.log(a / (1 - a))


_define("logit", _logit)


# ------------------------------------------------------------------ dtype-preserving unary
def _rounding(uf):
    def f(a):
        return a if a.dtype.kind in "iub" else uf(a)
    return f


def _sign(a):
    return a if a.dtype.kind == "b" else np.sign(a)


def _frac(a):
    if a.dtype.kind in "iub":
        raise RuntimeError(f"\"frac_cpu\" not implemented for '{_tn(a)}'")
    return a - np.trunc(a)


def _tn(a):
    from ..common import _tname
    return _tname(D.from_numpy_dtype(a.dtype))


def _round_decimals(a, decimals=0):
    if a.dtype.kind in "iub":
        if decimals != 0:
            raise RuntimeError("round_cpu not implemented for integral types with decimals != 0")
        return a
    if decimals == 0:
        return np.rint(a)
    if decimals > 0:
        s = 10.0 ** decimals
        return np.rint(a * s) / s
    s = 10.0 ** -decimals
    return np.rint(a / s) * s


for _n, _f in {"floor": _rounding(np.floor), "ceil": _rounding(np.ceil), "trunc": _rounding(np.trunc),
               "round": _rounding(np.rint), "sign": _sign, "sgn": _sign, "frac": _frac,
               "square": np.square}.items():
    _define(_n, _f)
round_decimals, round__decimals, round_decimals_out = make_unary_p(_round_decimals, "round")


def nan_to_num_np(a, nan=None, posinf=None, neginf=None):
    if a.dtype.kind in "iub":
        return a
    return np.nan_to_num(a, nan=0.0 if nan is None else nan, posinf=posinf, neginf=neginf)


_define("nan_to_num", nan_to_num_np)

# ------------------------------------------------------------------ predicates (bool results)
isnan = make_unary_p(lambda a: np.isnan(a) if a.dtype.kind in "fc" else np.zeros(a.shape, bool), "isnan")[0]
isinf = make_unary_p(lambda a: np.isinf(a) if a.dtype.kind in "fc" else np.zeros(a.shape, bool), "isinf")[0]
isfinite = make_unary_p(lambda a: np.isfinite(a) if a.dtype.kind in "fc" else np.ones(a.shape, bool), "isfinite")[0]
isposinf, _, isposinf_out = make_unary_p(lambda a: np.isposinf(a) if a.dtype.kind == "f" else np.zeros(a.shape, bool),
                                         "isposinf")
isneginf, _, isneginf_out = make_unary_p(lambda a: np.isneginf(a) if a.dtype.kind == "f" else np.zeros(a.shape, bool),
                                         "isneginf")
signbit, _, _signbit_out = make_unary_p(lambda a: np.signbit(a) if a.dtype.kind in "fiV" else np.zeros(a.shape, bool),
                                        "signbit")


def signbit_out(self, *, out):
    from ..meta.elementwise_math import check_signbit_out
    check_signbit_out(out)
    return _signbit_out(self, out=out)


# ------------------------------------------------------------------ binary
def _fmod(a, b, out):
    if out.dtype == np.bool_:
        raise NotImplementedError("\"fmod_cpu\" not implemented for 'Bool'")
    if np.issubdtype(out.dtype, np.integer) and np.any(np.asarray(b) == 0):
        raise RuntimeError("ZeroDivisionError")
    _quiet_di(np.fmod, a, b, out=out, casting="unsafe")


def _quiet2(uf):
    def f(a, b, out):
        _quiet_dio(uf, a, b, out=out, casting="unsafe")
    return f


def _xlogy(a, b, out):
    with np.errstate(divide="ignore", invalid="ignore"):
        a, b = np.asarray(a), np.asarray(b)
        r = np.where(np.isnan(b), np.nan, np.where(a == 0, 0.0, a * np.log(b)))
        np.copyto(out, r, casting="unsafe")


atan2, atan2_, atan2_out = make_binary(_quiet2(np.arctan2), FLOAT_OUT, "atan2")
hypot, hypot_, hypot_out = make_binary(_quiet2(np.hypot), ARITH, "hypot")
fmod_Tensor, fmod__Tensor, fmod_Tensor_out = make_binary(_fmod, ARITH, "fmod")
fmod_Scalar, fmod__Scalar, fmod_Scalar_out = fmod_Tensor, fmod__Tensor, fmod_Tensor_out
# torch's maximum/minimum never pass a NaN operand's bits on: ATen's vectorised loop (AVX-512 here: 16 float32
# or 8 float64 lanes) blends in an all-ones lane (0xffffffff) wherever an operand is NaN, its scalar tail returns
# the canonical quiet NaN (0x7fc00000). So a NaN's bits depend on its place in the loop: with contiguous operands
# (or numbers) the loop is the whole flat result, its last n % lanes elements the tail; otherwise each row of
# the last dim is a loop of its own (ember's rule; torch's may coalesce rows differently). numpy returns the
# NaN operand itself.
_count_nonzero = np.count_nonzero
_NAN_LANES = {np.dtype(np.float32): (16, np.uint32, 0x7FC00000, 0xFFFFFFFF),
              np.dtype(np.float64): (8, np.uint64, 0x7FF8000000000000, 0xFFFFFFFFFFFFFFFF)}


def _nan_bits_max_min(uf):
    def f(a, b, out):
        uf(a, b, out=out, casting="unsafe")
        spec = _NAN_LANES.get(out.dtype)
        if spec is None or not out.size:
            return
        nan = out != out
        if not _count_nonzero(nan):        # (half the cost of isnan(...).any() on small arrays)
            return
        lanes, ui, canon, ones = spec
        flat_loop = out.flags.c_contiguous and all(
            np.ndim(x) == 0 or (x.shape == out.shape and x.flags.c_contiguous) for x in (a, b))
        rows = out.reshape(1, -1) if flat_loop else out.reshape(-1, out.shape[-1]) if out.ndim else out.reshape(1, 1)
        nrows = nan.reshape(rows.shape)
        n = rows.shape[1]
        body = n - n % lanes
        bits = rows.view(ui)
        tail = nrows.copy()
        tail[:, :body] = False
        nrows[:, body:] = False
        bits[nrows] = ones
        bits[tail] = canon
        if not np.shares_memory(rows, out):
            out[...] = rows.reshape(out.shape)
    return f


maximum, _, maximum_out = make_binary(_nan_bits_max_min(np.maximum), ARITH, "maximum")
minimum, _, minimum_out = make_binary(_nan_bits_max_min(np.minimum), ARITH, "minimum")
def _fmax_first(a, b, out):
    """torch's fmax: the NaN-ignoring maximum, the first operand of a tie (fmax(0., -0.) is 0., fmax(-0., 0.) -0.)
    at every size and dtype. numpy's fmax returns either operand of a tie depending on the dtype and on the
    element's place in its SIMD loop, so the choice is written out."""
    with np.errstate(invalid="ignore"):
        np.copyto(out, np.where((b > a) | (np.asarray(a) != a), b, a), casting="unsafe")


def _fmin_first(a, b, out):
    """torch's fmin (see _fmax_first)."""
    with np.errstate(invalid="ignore"):
        np.copyto(out, np.where((b < a) | (np.asarray(a) != a), b, a), casting="unsafe")


fmax, _, fmax_out = make_binary(_fmax_first, ARITH, "fmax")
fmin, _, fmin_out = make_binary(_fmin_first, ARITH, "fmin")
logaddexp, _, logaddexp_out = make_binary(_quiet2(np.logaddexp), ARITH, "logaddexp")
copysign_Tensor, copysign__Tensor, copysign_out = make_binary(_quiet2(np.copysign), FLOAT_OUT, "copysign")
copysign_Scalar, copysign__Scalar, copysign_Scalar_out = copysign_Tensor, copysign__Tensor, copysign_out


def _heaviside(a, b, out):
    """0 where self < 0 (and nan), `values` where self == 0, 1 where self > 0."""
    a, b = np.asarray(a), np.asarray(b)
    with np.errstate(invalid="ignore"):
        np.copyto(out, np.where(a == 0, b, a > 0), casting="unsafe")


def _checked_heaviside(f):
    from ..meta.elementwise_math import check_heaviside, check_heaviside_out

    def g(self, values, *a, **k):
        if "out" in k:
            check_heaviside_out(self, values, k["out"])
        check_heaviside(self, values)
        return f(self, values, *a, **k)
    g.__name__ = f.__name__
    return g


heaviside, heaviside_, heaviside_out = (_checked_heaviside(f) for f in make_binary(_heaviside, ARITH, "heaviside"))
def _integral(uf, name):
    def f(a, b, out):
        from ..meta.elementwise_math import check_integral
        check_integral(out.dtype, name)
        uf(a, b, out=out, casting="unsafe")
    return f


gcd, gcd_, gcd_out = make_binary(_integral(np.gcd, "gcd"), ARITH, "gcd")
lcm, lcm_, lcm_out = make_binary(_integral(np.lcm, "lcm"), ARITH, "lcm")
xlogy_Tensor, xlogy__Tensor, xlogy_OutTensor = make_binary(_xlogy, FLOAT_OUT, "xlogy")
xlogy_Scalar_Self = xlogy_Scalar_Other = xlogy_Tensor
xlogy__Scalar_Other = xlogy__Tensor
xlogy_OutScalar_Self = xlogy_OutScalar_Other = xlogy_OutTensor


# ------------------------------------------------------------------ ternary
def _ternary(compute, name, rule=None):
    def functional(self, a, b, **kw):
        shape, rdt = ternary_spec(self, a, b, name, **kw)
        out = _alloc(shape, rdt, self, a, b)
        np.copyto(out._np, _quiet(compute)(self, a, b, rdt, **kw), casting="unsafe")
        return out

    def inplace(self, a, b, **kw):
        check_mem_overlap(self, a, b)
        shape, rdt = ternary_spec(self, a, b, name, **kw)
        check_inplace(self, shape, rdt, name)
        np.copyto(self._np, _quiet(compute)(self, a, b, rdt, **kw), casting="unsafe")
        return self

    def out_variant(self, a, b, out=None, **kw):
        check_mem_overlap(out, self, a, b)
        shape, rdt = ternary_spec(self, a, b, name, **kw)
        r = _quiet(compute)(self, a, b, rdt, **kw)
        check_out(out, shape, rdt, name, rule)
        np.copyto(out._np, r, casting="unsafe")
        return out
    return functional, inplace, out_variant


def _cast(x, rdt):
    v = np_of(x)
    return v.astype(rdt._np, copy=False) if isinstance(v, np.ndarray) else v


def _lerp(self, end, weight, rdt):
    """torch's Lerp.h in its vectorized (FMA) build: weight < 0.5 (complex: |weight| < 0.5) gives
    fma(weight, end - self, self), otherwise fma(weight - 1, end - self, end), each step in the compute dtype
    (float32 for float16/bfloat16) with the weight taken in it too; complex takes the plain formula."""
    cdt = rdt._np
    if cdt.kind == "c":
        s, e, w = _cast(self, rdt), _cast(end, rdt), _cast(weight, rdt)
        d = e - s
        return np.where(np.abs(w) < 0.5, s + w * d, e - d * (1 - w))
    op = np.dtype(np.float32) if cdt.itemsize == 2 else cdt
    s, e = np.asarray(np_of(self), op), np.asarray(np_of(end), op)
    w = np.asarray(np_of(weight), op)
    d = e - s
    small = np.abs(w) < 0.5                 # one fma per element, its operands picked per branch (as torch's
    coeff = np.where(small, w, w - op.type(1))          # vectorized kernel blends them)
    return fma(coeff, d, np.where(small, s, e)).astype(cdt, copy=False)


def _addcmul(self, t1, t2, rdt, value=1):
    return _cast(self, rdt) + value * (_cast(t1, rdt) * _cast(t2, rdt))


def _addcdiv(self, t1, t2, rdt, value=1):
    return _cast(self, rdt) + value * (_cast(t1, rdt) / _cast(t2, rdt))


lerp_Scalar, lerp__Scalar, lerp_Scalar_out = _ternary(_lerp, "lerp")
lerp_Tensor, lerp__Tensor, lerp_Tensor_out = _ternary(_lerp, "lerp", same_dtype)
addcmul, addcmul_, addcmul_out = _ternary(_addcmul, "addcmul")
addcdiv, addcdiv_, addcdiv_out = _ternary(_addcdiv, "addcdiv")


# ------------------------------------------------------------------ clamp with tensor bounds (in-place / out)
def clamp__Tensor(self, min=None, max=None):
    from .elementwise import clamp
    check_mem_overlap(self, min, max)
    r = clamp(self, min, max)
    check_inplace(self, r._size, r.dtype, "clamp")
    np.copyto(self._np, r._np, casting="unsafe")
    return self


def clamp_min__Tensor(self, min):
    return clamp__Tensor(self, min, None)


def clamp_max__Tensor(self, max):
    return clamp__Tensor(self, None, max)


def clamp_Tensor_out(self, min=None, max=None, out=None):
    from .elementwise import clamp_out
    return clamp_out(self, min, max, out=out)


# ------------------------------------------------------------------ isin
def isin(elements, test_elements, *, assume_unique=False, invert=False):
    """Whether each element occurs in `test_elements`, both compared in their promoted dtype."""
    from ..meta.elementwise_math import isin_spec
    shape, cdt = isin_spec(elements, test_elements)
    a = np.asarray(elements._np if isinstance(elements, Tensor) else elements, dtype=cdt._np)
    b = np.asarray(test_elements._np if isinstance(test_elements, Tensor) else test_elements, dtype=cdt._np)
    r = np.isin(a, b, invert=invert)
    return _wrap_fresh(np.array(r, dtype=np.bool_, order="C").reshape(shape), D.bool_)


isin_Tensor_Tensor = isin_Tensor_Scalar = isin_Scalar_Tensor = isin


# ------------------------------------------------------------------ deg2rad/rad2deg, logaddexp2, nextafter,
# frexp, bit shifts (issue 19)
_define("deg2rad", np.deg2rad)
_define("rad2deg", np.rad2deg)


def _float_only(uf, name):
    """A binary float kernel: integral (and bool) compute dtypes are not implemented in torch."""
    def f(a, b, out):
        if out.dtype.kind not in "fc":
            raise NotImplementedError(f"\"{name}_cpu\" not implemented for '{_tn(out)}'")
        _quiet_all(uf, a, b, out=out, casting="unsafe")
    return f


logaddexp2, _, logaddexp2_out = make_binary(_float_only(np.logaddexp2, "logaddexp2"), ARITH, "logaddexp2")
nextafter, nextafter_, nextafter_out = make_binary(_float_only(np.nextafter, "nextafter"), ARITH, "nextafter")


def _frexp_np(self):
    if not self.dtype.is_floating_point:
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    m, e = np.frexp(self._np)
    return m, e.astype(np.int32)


def frexp(self):
    from ..meta.elementwise_math import frexp as meta
    m, e = _frexp_np(self)
    mo, eo = meta(self)
    mantissa, exponent = _alloc(self._size, mo.dtype, self), _alloc(self._size, eo.dtype, self)
    np.copyto(mantissa._np, m)
    np.copyto(exponent._np, e)
    return mantissa, exponent


def frexp_out(self, *, mantissa, exponent):
    from ..meta.elementwise_math import frexp_out as meta
    meta(self, mantissa=mantissa, exponent=exponent)
    m, e = _frexp_np(self)
    np.copyto(mantissa._np, m)
    np.copyto(exponent._np, e)
    return mantissa, exponent


def _shift(left):
    """torch's shifts: a shift by a negative count or by at least the width gives 0 (left) or the sign
    fill (right) instead of C's undefined behaviour; left shifts wrap around as unsigned."""
    name = "lshift" if left else "rshift"

    def f(a, b, out):
        if out.dtype.kind not in "iu":
            raise NotImplementedError(f"\"{name}_cpu\" not implemented for '{_tn(out)}'")
        a, b = np.asarray(a, out.dtype), np.asarray(b, out.dtype)
        bits = out.dtype.itemsize * 8
        if left:
            bad = (b < 0) | (b >= bits)
            u = a.astype(np.dtype(f"u{out.dtype.itemsize}"))
            r = np.left_shift(u, np.where(bad, 0, b).astype(u.dtype)).astype(out.dtype)
            np.copyto(out, np.where(bad, 0, r), casting="unsafe")
        else:
            top = bits - (1 if out.dtype.kind == "i" else 0)
            bad = (b < 0) | (b >= top)
            np.copyto(out, np.right_shift(a, np.where(bad, top, b).astype(out.dtype)), casting="unsafe")
    return f


def _shift_kernels(left, name):
    return make_binary(_shift(left), BITWISE, name)


bitwise_left_shift, bitwise_left_shift_, bitwise_left_shift_out = _shift_kernels(True, "lshift")
bitwise_right_shift, bitwise_right_shift_, bitwise_right_shift_out = _shift_kernels(False, "rshift")
