"""OpInfo entries of the element-wise ops (unary/binary/ternary math, comparisons, Scalar overloads) (torch's common_methods_invocations.py op_db, this family's part)."""
import numpy as np

from .._opinfo import DType, OpInfo, SampleInput
from .._samples import BROADCAST, binary, make, unary
from ._common import F, FI, FIB, S, _aten, _info, _mask, _u, _unary_shapes, _with_args


def _b(name, ref=None, domain=(-3.0, 3.0), rhs_domain=None, dtypes=F, inplace=True, out=True, scalar_rhs=True, **kw):
    return OpInfo(name, binary(domain, rhs_domain, scalar_rhs), ref=ref, dtypes=dtypes, supports_out=out,
                  inplace_variant=name + "_" if inplace else None, **kw)


def _ternary(name, ref, scalar_weight=False, kwargs=({},), inplace=True):
    def f(op, dtype):
        out = []
        for i, (sa, sb) in enumerate(BROADCAST[:4]):
            for k in kwargs:
                w = 0.3 if scalar_weight else make(sb, dtype, 0.0, 1.0, seed=9)
                out.append(SampleInput(make(sa, dtype, seed=i), (make(sb, dtype, 1.0, 3.0, seed=i + 1), w), dict(k),
                                       f"{sa}x{sb}-{k}"))
        return out
    return OpInfo(name, f, ref=ref, dtypes=F, supports_out=True, inplace_variant=name + "_" if inplace else None)


def _isclose(dt):
    a = make((3, 4), dt)
    near = (a + (np.asarray(1e-6, a.dtype) if a.dtype.kind == "f" else 0)).astype(dt)
    far = make((3, 4), dt, seed=5)
    out = [S(a, near), S(a, far), S(a, far, 0.5, 1.0), S(a, near, rtol=0.0, atol=0.0),
           S(make((2, 1, 4), dt), make((3, 1), dt, seed=1))]
    if dt.startswith("float"):
        special = np.array([np.inf, -np.inf, np.nan, 1.0, np.inf, 0.0], dt)
        other = np.array([np.inf, np.inf, np.nan, 1.0 + 1e-6, 1e30, 1e-9], dt)
        out += [S(special, other), S(special, other, equal_nan=True)]
    return out


def _rsub_scalar(op, dt):
    return [SampleInput(make((2, 3), dt, seed=1), (2.5, 3)), SampleInput(make((4,), dt, seed=2), (-1,)),
            SampleInput(make((2, 2), dt, seed=3), (1.5,), {"alpha": 0.5})]


# -- division with rounding: div(rounding_mode=None/"trunc"/"floor"), floor_divide, //, remainder, %, fmod --------
# Samples have more than three elements, negative dividends and divisors, exact multiples (quotients on an
# integer, where floor and trunc differ from the true quotient by nothing) and Scalar divisors.
_ROUNDINGS = (None, "trunc", "floor")


def _divisors(shape, dt, seed):
    mag = make(shape, dt, 1.0, 4.0, seed=seed)
    if dt.startswith("int"):
        mag = np.maximum(mag, 1)
    sign = np.where(np.random.default_rng(seed).random(shape) < 0.4, -1, 1)
    return (mag * sign).astype(dt)


def _division_pairs(dt):
    a = make((4, 5), dt, -9.0, 9.0, seed=1)
    b = _divisors((4, 5), dt, 2)
    pow2 = np.array([1, 2, 4, -2, -4] * 4, dt).reshape(4, 5) if dt.startswith("int") else \
        np.array([0.5, 2.0, 4.0, -0.5, -2.0] * 4, dt).reshape(4, 5)
    exact = (pow2 * make((4, 5), "int64", -3, 3, seed=4)).astype(dt)
    big = make((2, 3, 4), dt, -20.0, 20.0, seed=5)
    scalar = 3 if dt.startswith("int") else -2.5
    return [(a, b, "4x5"), (exact, pow2, "exact-multiples"), (big, _divisors((4,), dt, 6), "broadcast"),
            (a, scalar, "scalar-divisor")]


def _division(modes=(None,)):
    def f(op, dt):
        out = []
        for a, b, name in _division_pairs(dt):
            for mode in modes:
                if mode is None and dt.startswith("int") and op.inplace_variant:
                    continue     # int true division is float: an in-place int result cannot hold it
                kw = {} if mode is None else {"rounding_mode": mode}
                out.append(SampleInput(a, (b,), kw, f"{name}-{mode}"))
        return out
    return f


def _trunc_divide(a, b):
    a, b = np.asarray(a), np.asarray(b)
    if a.dtype.kind in "iu":
        q = np.abs(a) // np.abs(b)
        return (q * np.sign(a) * np.sign(b)).astype(a.dtype)
    return np.trunc(np.true_divide(a, b)).astype(a.dtype)


def _div_ref(a, b, rounding_mode=None):
    if rounding_mode is None:
        return np.true_divide(a, b)
    if rounding_mode == "trunc":
        return _trunc_divide(a, b)
    return np.floor_divide(a, b)


def _reflected(op, dt):
    a = _divisors((4, 5), dt, 7)
    return [SampleInput(a, (7 if dt.startswith("int") else 7.5,), {}, "scalar-dividend")]


def _nextafter_samples(op, dt):
    a = make((3, 4), dt, seed=1)
    b = np.where(_mask((3, 4), 2), a, make((3, 4), dt, seed=3)).astype(dt)      # equal pairs stay put
    return [SampleInput(a, (b,), {}, "3x4"), SampleInput(make((2, 1, 4), dt, seed=4), (make((3, 1), dt, seed=5),), {},
                                                          "broadcast"),
            SampleInput(np.array([0.0, 1.0, -1.0, np.inf], dt), (np.array([1.0, np.inf, -np.inf, 0.0], dt),), {}, "edges")]


def _shift_counts(shape, dt, seed):
    width = np.dtype(dt).itemsize * 8
    return np.random.default_rng(seed).integers(0, width + 3, shape).astype(dt)  # some counts past the width


def _shift_samples(op, dt):
    a = make((4, 5), dt, -100, 100, seed=1)
    return [SampleInput(a, (_shift_counts((4, 5), dt, 2),), {}, "4x5"),
            SampleInput(make((2, 1, 5), dt, -9, 9, seed=3), (_shift_counts((3, 1), dt, 4),), {}, "broadcast"),
            SampleInput(a, (3,), {}, "scalar-count")]


def _shift_scalar_self(op, dt):
    return [SampleInput(3, (_shift_counts((4, 5), dt, 5),), {}, "scalar-self")]


def _shift_ref(left):
    def ref(a, b):
        a, b = np.asarray(a), np.asarray(b)
        dt = np.result_type(a, b) if a.ndim or b.ndim else a.dtype
        a, b = a.astype(dt), b.astype(dt)
        bits = dt.itemsize * 8
        if left:
            bad = (b < 0) | (b >= bits)
            u = a.astype(f"u{dt.itemsize}") << np.where(bad, 0, b).astype(f"u{dt.itemsize}")
            return np.where(bad, 0, u.astype(dt)).astype(dt)
        top = bits - (dt.kind == "i")
        return (a >> np.where((b < 0) | (b >= top), top, b).astype(dt)).astype(dt)
    return ref


def _logspace_samples(op, dt):
    return [SampleInput(0.0, (3.0, 4), {}, "0-3"), SampleInput(-1.0, (2.0, 5), {"base": 2.0}, "base-2"),
            SampleInput(1.5, (2.7, 3), {}, "fractional"), SampleInput(1.0, (2.0, 1), {}, "one-step"),
            SampleInput(2.0, (0.0, 0), {}, "empty"), SampleInput(np.asarray(1.0, "float32"), (2.0, 6), {}, "tensor-start"),
            SampleInput(0.5, (np.asarray(2.0, "float32"), 6), {}, "tensor-end"),
            SampleInput(np.asarray(0.0, "float32"), (np.asarray(2.0, "float32"), 6), {}, "tensor-both")]


def _division_infos():
    return [
        OpInfo("div", _division(_ROUNDINGS), ref=_div_ref, dtypes=F, supports_out=True, inplace_variant="div_"),
        OpInfo("div", _division(("trunc", "floor")), ref=_div_ref, dtypes=("int64",), supports_out=True,
               inplace_variant="div_"),
        OpInfo("floor_divide", _division(), ref=np.floor_divide, dtypes=FI, supports_out=True,
               inplace_variant="floor_divide_"),
        OpInfo("remainder", _division(), ref=np.remainder, dtypes=FI, supports_out=True,
               inplace_variant="remainder_"),
        OpInfo("fmod", _division(), ref=np.fmod, dtypes=FI, supports_out=True, inplace_variant="fmod_"),
        OpInfo("Tensor.__floordiv__", _division(), ref=np.floor_divide, dtypes=FI, method_variant=False,
               aten_name="floor_divide"),
        OpInfo("Tensor.__mod__", _division(), ref=np.remainder, dtypes=FI, method_variant=False,
               aten_name="remainder"),
        OpInfo("Tensor.__rfloordiv__", _reflected, ref=lambda a, b: np.floor_divide(b, a), dtypes=FI,
               method_variant=False, aten_name="floor_divide"),
        OpInfo("Tensor.__rmod__", _reflected, ref=lambda a, b: np.remainder(b, a), dtypes=FI,
               method_variant=False, aten_name="remainder"),
    ]


# -- keyword modes and Scalar forms: alpha=, Tensor bounds of clamp, a Scalar base of ** -----------------------
def _alpha(op, dt):
    a, b = make((4, 5), dt, seed=11), make((4, 5), dt, seed=12)
    alphas = (2, -3) if dt.startswith("int") else (0.5, -2.0, 3)
    out = [SampleInput(a, (b,), {"alpha": al}, f"4x5-alpha={al}") for al in alphas]
    out.append(SampleInput(a, (make((5,), dt, seed=13),), {"alpha": alphas[0]}, "broadcast-alpha"))
    out.append(SampleInput(a, (3 if dt.startswith("int") else 1.5,), {"alpha": alphas[-1]}, "scalar-alpha"))
    return out


def _clamp_tensors(op, dt):
    x = make((4, 5), dt, -5.0, 5.0, seed=14)
    lo = make((4, 5), dt, -3.0, 0.0, seed=15)
    hi = make((5,), dt, 0.0, 3.0, seed=16)
    return [SampleInput(x, (lo, hi), {}, "both"), SampleInput(x, (), {"min": lo}, "min-only"),
            SampleInput(x, (), {"max": hi}, "max-only"), SampleInput(x, (hi, lo), {}, "min-above-max")]


def _clamp_ref(x, min=None, max=None):
    out = x if min is None else np.maximum(x, min)
    return out if max is None else np.minimum(out, max)


def _scalar_base(op, dt):
    return [SampleInput(make((4, 5), dt, -2.0, 2.0, seed=17), (2.0,), {}, "base-2"),
            SampleInput(make((3,), dt, 0.0, 3.0, seed=18), (0.5,), {}, "base-0.5")]


def _keyword_infos():
    return [
        OpInfo("add", _alpha, ref=lambda a, b, alpha=1: a + alpha * np.asarray(b), dtypes=FI, supports_out=True,
               inplace_variant="add_"),
        OpInfo("sub", _alpha, ref=lambda a, b, alpha=1: a - alpha * np.asarray(b), dtypes=FI, supports_out=True,
               inplace_variant="sub_"),
        OpInfo("clamp", _clamp_tensors, ref=_clamp_ref, dtypes=FI, supports_out=True, inplace_variant="clamp_"),
        OpInfo("Tensor.__rpow__", _scalar_base, ref=lambda a, base: np.power(base, a), dtypes=F,
               method_variant=False, aten_name="pow"),
    ]


# -- the remaining overload forms (issue 20's overload coverage): aliases, comparisons, bitwise and logical
# ops with out= and Scalar operands, in-place comparisons (Tensor.eq_ keeps self's dtype, so the generic
# in-place check, which expects a dtype change to fail, cannot run them: they are compared with torch as
# functions of their own), Scalar operands of where/xlogy, and the overloads torch's Python bindings hide
# (add_.Scalar ...), called through ops.aten on both sides.
def _where_scalars(op, dt):
    cond = np.random.default_rng(21).random((3, 4)) < 0.5
    x, y = make((3, 4), dt, seed=22), make((4,), dt, seed=23)
    num = 2 if dt.startswith("int") else 0.5
    return [SampleInput(cond, (x, num), {}, "scalar-other"), SampleInput(cond, (num, y), {}, "scalar-self"),
            SampleInput(cond, (num, -1), {}, "scalars"), SampleInput(cond, (x, y), {}, "tensors")]


def _where_tensors(op, dt):
    """where's out= form: only where.self has one (torch refuses a number with out=, as ember does)."""
    return [s for s in _where_scalars(op, dt) if s.name == "tensors"]


def _xlogy_scalar_other(op, dt):
    return [SampleInput(make((3, 4), dt, -2.0, 2.0, seed=24), (2.5,), {}, "other-2.5"),
            SampleInput(np.array([0.5, 1.0, 2.0], dt), (0.5,), {}, "other-0.5")]


def _xlogy_scalar_self(op, dt):
    return [SampleInput(2.0, (make((3, 4), dt, 0.1, 3.0, seed=25),), {}, "self-2"),
            SampleInput(0.0, (np.array([0.0, 1.0, np.nan], dt),), {}, "self-0")]


def _scalar_rhs(op, dt):
    num = 3 if dt.startswith("int") else 2.5
    return [SampleInput(make((3, 4), dt, seed=26), (num,), {}, "3x4"), SampleInput(make((), dt, seed=27), (num,), {},
                                                                                  "0-dim")]


def _scalar_rhs_alpha(op, dt):
    return _scalar_rhs(op, dt) + [SampleInput(make((2, 3), dt, seed=28), (2,), {"alpha": 3}, "alpha")]


def _arrays(samples):
    """samples whose numpy scalars (make((), "bool") is an np.bool_) are 0-dim arrays, so they become tensors."""
    fix = lambda a: np.asarray(a) if isinstance(a, np.generic) else a  # noqa: E731

    def f(op, dt):
        return [SampleInput(fix(s.input), tuple(fix(a) for a in s.args), s.kwargs, s.name) for s in samples(op, dt)]
    return f


def _inplace_compare(name, samples, dtypes=FI):
    return OpInfo(f"Tensor.{name}_", samples, dtypes=dtypes, method_variant=False, aten_name=name + "_")


def _overload_form_infos():
    cmp = {"eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal, "gt": np.greater,
           "ge": np.greater_equal}
    logical = {"logical_and": np.logical_and, "logical_or": np.logical_or, "logical_xor": np.logical_xor}
    bitwise = {"bitwise_and": np.bitwise_and, "bitwise_or": np.bitwise_or, "bitwise_xor": np.bitwise_xor}
    ints = ("int64", "bool")
    return [
        _u("arccos", np.arccos, (-0.99, 0.99)),
        _u("arccosh", np.arccosh, (1.0, 4.0)),
        _u("arcsinh", np.arcsinh),
        _u("arctanh", np.arctanh, (-0.9, 0.9)),
        _u("rsqrt", lambda a: 1 / np.sqrt(a), (0.1, 5.0)),
        *[_b(n, f, dtypes=FI, inplace=False) for n, f in cmp.items() if n not in ("eq", "lt", "ge")],
        *[_inplace_compare(n, binary()) for n in cmp],
        *[OpInfo(n, _arrays(binary(scalar_rhs=False)), ref=f, dtypes=FIB, supports_out=True)
          for n, f in logical.items()],
        OpInfo("logical_not", _arrays(unary()), ref=np.logical_not, dtypes=FIB, supports_out=True),
        # (integer and bool inputs: the autograd and AOT sweeps take float inputs to require grad)
        *[_inplace_compare(n, _arrays(binary(scalar_rhs=False)), ("int64", "bool")) for n in logical],
        _inplace_compare("logical_not", _arrays(unary()), ("int64", "bool")),
        *[OpInfo(n, _arrays(binary()), ref=f, dtypes=ints, supports_out=True, inplace_variant=n + "_")
          for n, f in bitwise.items()],
        OpInfo("bitwise_not", _arrays(unary()), ref=np.invert, dtypes=ints, supports_out=True,
               inplace_variant="bitwise_not_"),
        *[OpInfo(n, lambda op, dt: [SampleInput(3, (make((3, 4), dt, seed=29),), {}, "scalar-self")], dtypes=ints,
                 method_variant=False) for n in bitwise],
        OpInfo("clip", _clamp_tensors, ref=_clamp_ref, dtypes=FI, supports_out=True, inplace_variant="clip_"),
        _with_args("clip", [((-1.0, 1.0), {}), ((None, 0.5), {})], lambda a, lo, hi: np.clip(a, lo, hi)),
        OpInfo("subtract", _alpha, ref=lambda a, b, alpha=1: a - alpha * np.asarray(b), dtypes=FI,
               supports_out=True, inplace_variant="subtract_"),
        OpInfo("where", _where_scalars, dtypes=FI, method_variant=False),
        OpInfo("where", _where_tensors, dtypes=FI, method_variant=False, supports_out=True),
        _u("resolve_neg", lambda a: a, inplace=False, out=False),
        # aliases (torch.divide is div, torch.greater is gt, ...): their own overloads
        # (no in-place forms: ember has no absolute_, negative_, fix_, divide_, multiply_ yet; torch has them)
        _u("absolute", np.abs, dtypes=FI, inplace=False), _u("negative", np.negative, dtypes=FI, inplace=False),
        _u("fix", np.trunc, dtypes=FI, inplace=False),
        _b("divide", np.true_divide, rhs_domain=(0.5, 3.0), inplace=False),
        _b("multiply", np.multiply, dtypes=FI, inplace=False),
        # (float32: rounded quotients are piecewise constant, nothing for the float64 gradcheck sweep)
        OpInfo("divide", _division(("trunc", "floor")), ref=_div_ref, dtypes=("float32",), supports_out=True),
        *[_b(n, f, dtypes=FI, inplace=False) for n, f in (("greater", np.greater), ("greater_equal", np.greater_equal),
                                                          ("less", np.less), ("less_equal", np.less_equal),
                                                          ("not_equal", np.not_equal))],
        _aten("divide.Scalar", _scalar_rhs, F), _aten("multiply.Scalar", _scalar_rhs),
        _aten("true_divide.Scalar", _scalar_rhs, F),
        OpInfo("clamp_min", lambda op, dt: [SampleInput(make((3, 4), dt, seed=31), (make((4,), dt, seed=32),), {}, "t")],
               ref=np.maximum, dtypes=FI, method_variant=True),
        OpInfo("clamp_max", lambda op, dt: [SampleInput(make((3, 4), dt, seed=33), (make((4,), dt, seed=34),), {}, "t")],
               ref=np.minimum, dtypes=FI, method_variant=True),
        OpInfo("fill", lambda op, dt: [SampleInput(make((3, 4), dt), (2,), {}, "number"),
                                       SampleInput(make((2, 3), dt), (np.asarray(3, dt),), {}, "0-dim")],
               dtypes=FI, method_variant=False),
        OpInfo("Tensor.to", lambda op, dt: [SampleInput(make((3, 4), dt), ("cpu",), {}, "device"),
                                            SampleInput(make((2,), dt), ("cpu",), {"copy": True}, "copy"),
                                            SampleInput(make((2, 3), dt), ("cpu", DType("float64")), {}, "device-dtype")],
               dtypes=FI, method_variant=False, check_strides=False, aten_name="to", supports_meta=False),
        OpInfo("Tensor.new_full", lambda op, dt: [SampleInput(make((3,), dt), ((2, 3), 1.5), {}, "2x3")], dtypes=FI,
               method_variant=False, aten_name="new_full"),
        OpInfo("Tensor.new_empty_strided", lambda op, dt: [SampleInput(make((3,), dt), ((2, 3), (1, 2)), {}, "2x3")],
               dtypes=FI, method_variant=False, aten_name="new_empty_strided",
               output_func=lambda outs: [np.zeros_like(o) for o in outs]),     # values are uninitialised
        OpInfo("eye", lambda op, dt: [SampleInput(3, (), {}, "3"), SampleInput(2, (4,), {}, "2x4")], dtypes=("float32",),
               method_variant=False, supports_out=True),
        OpInfo("logspace", _logspace_samples, dtypes=("float32",), method_variant=False, supports_out=True,
               supports_meta=False),       # (its Tensor overloads read start/end with item(), as torch's)
        OpInfo("scalar_tensor", lambda op, dt: [SampleInput(2.5, (), {}, "2.5"), SampleInput(-1, (), {}, "-1")],
               dtypes=("float32",), method_variant=False),
        OpInfo("polygamma", lambda op, dt: [SampleInput(n, (make((3, 4), dt, 0.5, 3.0),), {}, f"n={n}") for n in (1, 2)],
               dtypes=F, method_variant=False, supports_out=True),
        OpInfo("rsub", binary(scalar_rhs=False), ref=lambda a, b: b - a, dtypes=FI, method_variant=False),
        _with_args("clamp_min", [((0.5,), {}), ((-1,), {})], lambda a, lo: np.maximum(a, lo), dtypes=FI,
                   inplace=False),
        _with_args("clamp_max", [((0.5,), {}), ((-1,), {})], lambda a, hi: np.minimum(a, hi), dtypes=FI,
                   inplace=False),
        OpInfo("xlogy", _xlogy_scalar_other, dtypes=F, supports_out=True, inplace_variant="xlogy_"),
        # (float32: test_op_db's gradcheck takes the sample's first array for its input, here `other`)
        OpInfo("xlogy", _xlogy_scalar_self, dtypes=("float32",), supports_out=True, method_variant=False),
        _aten("add.Scalar", _scalar_rhs_alpha), _aten("sub.Scalar", _scalar_rhs_alpha),
        _aten("mul.Scalar", _scalar_rhs), _aten("div.Scalar", _scalar_rhs, F),
        _aten("add_.Scalar", _scalar_rhs_alpha), _aten("sub_.Scalar", _scalar_rhs_alpha),
        _aten("subtract_.Scalar", _scalar_rhs_alpha), _aten("mul_.Scalar", _scalar_rhs),
        _aten("div_.Scalar", _scalar_rhs, F),
    ]


op_db = [
    _u("exp2", np.exp2),
    _u("expm1", np.expm1),
    _u("log1p", np.log1p, (-0.9, 3.0)),
    _u("log2", np.log2, (0.1, 5.0)),
    _u("log10", np.log10, (0.1, 5.0)),
    _u("erf"),
    _u("erfc"),
    _u("erfinv", domain=(-0.99, 0.99)),
    _u("asin", np.arcsin, (-0.99, 0.99)),
    _u("acos", np.arccos, (-0.99, 0.99)),
    _u("atan", np.arctan),
    _u("arcsin", np.arcsin, (-0.99, 0.99)),
    _u("arctan", np.arctan),
    _u("sinh", np.sinh),
    _u("cosh", np.cosh),
    _u("tan", np.tan, (-1.2, 1.2)),
    _u("asinh", np.arcsinh),
    _u("acosh", np.arccosh, (1.0, 4.0)),
    _u("atanh", np.arctanh, (-0.9, 0.9)),
    _u("sign", np.sign, dtypes=FI),
    _u("sgn", np.sign),
    _u("floor", np.floor, dtypes=FI),
    _u("ceil", np.ceil, dtypes=FI),
    _u("round", np.round, dtypes=FI),
    _u("trunc", np.trunc, dtypes=FI),
    _u("frac", lambda a: a - np.trunc(a)),
    _u("reciprocal", lambda a: 1 / a, (0.5, 3.0)),
    _u("square", np.square, dtypes=FI),
    _u("logit", lambda a: np.log(a / (1 - a)), (0.05, 0.95)),
    _u("nan_to_num", np.nan_to_num, dtypes=FI),
    _u("isnan", np.isnan, dtypes=FI, inplace=False, out=False),
    _u("isinf", np.isinf, dtypes=FI, inplace=False, out=False),
    _u("isfinite", np.isfinite, dtypes=FI, inplace=False, out=False),
    _u("isposinf", np.isposinf, dtypes=F, inplace=False),
    _u("isneginf", np.isneginf, dtypes=F, inplace=False),
    _u("signbit", np.signbit, dtypes=FI, inplace=False),
    _with_args("round", [((), {"decimals": 2}), ((), {"decimals": -1})], lambda a, decimals: np.round(a, decimals)),
    _b("atan2", np.arctan2, scalar_rhs=False),
    _b("arctan2", np.arctan2, scalar_rhs=False),
    _b("hypot", np.hypot, scalar_rhs=False),
    _b("fmod", np.fmod, rhs_domain=(0.5, 3.0)),
    _b("maximum", np.maximum, inplace=False, scalar_rhs=False, dtypes=FI),
    _b("minimum", np.minimum, inplace=False, scalar_rhs=False, dtypes=FI),
    _b("fmax", np.fmax, inplace=False, scalar_rhs=False),
    _b("fmin", np.fmin, inplace=False, scalar_rhs=False),
    _b("copysign", np.copysign),
    OpInfo("isin", lambda op, dt: [
        SampleInput(make((3, 4), dt, -3, 3, seed=1), (make((5,), dt, -3, 3, seed=1)[:3].copy(),), {}, "subset"),
        SampleInput(make((3, 4), dt, -3, 3, seed=2), (make((2, 3), dt, -3, 3, seed=2),), {"invert": True}, "invert"),
        SampleInput(make((0,), dt), (make((4,), dt),), {}, "empty"),
        SampleInput(2, (make((5,), dt, -3, 3, seed=3),), {}, "number-element"),
        SampleInput(make((3, 4), dt, -3, 3, seed=4), (1,), {"invert": True}, "number-test-elements")],
           ref=lambda a, b, invert=False: np.isin(a, b, invert=invert), dtypes=FI, supports_out=True,
           method_variant=False),
    _b("gcd", np.gcd, domain=(-20, 20), scalar_rhs=False, dtypes=("int64",)),
    _b("lcm", np.lcm, domain=(-20, 20), scalar_rhs=False, dtypes=("int64",)),
    _b("float_power", lambda a, b: np.power(np.asarray(a, np.float64), np.asarray(b, np.float64)), domain=(0.5, 3.0),
       dtypes=FI, rtol=1e-6, atol=1e-6),       # in-place: float64 self only (torch refuses the others)
    OpInfo("float_power", lambda op, dt: [SampleInput(2, (make((3, 4), dt, -2, 3, seed=5),), {}, "number-base"),
                                          SampleInput(0.5, (make((5,), dt, -2, 2, seed=6),), {}, "fraction-base")],
           ref=lambda a, b: np.power(np.float64(a), np.asarray(b, np.float64)), dtypes=FI, supports_out=True,
           method_variant=False, rtol=1e-6, atol=1e-6),
    _b("heaviside", lambda a, b: np.where(a == 0, b, a > 0).astype(np.result_type(a, b)), scalar_rhs=False, dtypes=FI),
    _b("xlogy", lambda a, b: np.where(a == 0, 0.0, a * np.log(b)), rhs_domain=(0.1, 3.0)),
    _b("logaddexp", np.logaddexp, inplace=False, scalar_rhs=False),
    _u("deg2rad", np.deg2rad, dtypes=FI),
    _u("rad2deg", np.rad2deg, dtypes=FI),
    _b("logaddexp2", np.logaddexp2, inplace=False, scalar_rhs=False),
    OpInfo("nextafter", _nextafter_samples, ref=np.nextafter, dtypes=F, supports_out=True, inplace_variant="nextafter_"),
    _b("ldexp", lambda a, b: a * np.exp2(b).astype(np.result_type(a, np.float32)), rhs_domain=(-4, 4), scalar_rhs=False,
       dtypes=F),
    OpInfo("ldexp", lambda op, dt: [SampleInput(make((3, 4), dt, seed=1), (make((3, 4), "int64", -4, 4, seed=2),), {},
                                                "int-exponent")],
           ref=lambda a, b: a * np.exp2(b).astype(a.dtype), dtypes=F, supports_out=True, inplace_variant="ldexp_"),
    _u("frexp", lambda a: tuple(np.frexp(a)[:1]) + (np.frexp(a)[1].astype(np.int32),), inplace=False),
    OpInfo("bitwise_left_shift", _shift_samples, ref=_shift_ref(True), dtypes=("int64", "int32", "uint8"),
           supports_out=True, inplace_variant="bitwise_left_shift_"),
    OpInfo("bitwise_right_shift", _shift_samples, ref=_shift_ref(False), dtypes=("int64", "int32", "uint8"),
           supports_out=True, inplace_variant="bitwise_right_shift_"),
    OpInfo("bitwise_left_shift", _shift_scalar_self, ref=_shift_ref(True), dtypes=("int64",), supports_out=True,
           method_variant=False),
    OpInfo("bitwise_right_shift", _shift_scalar_self, ref=_shift_ref(False), dtypes=("int64",), supports_out=True,
           method_variant=False),
    OpInfo("Tensor.__lshift__", _shift_samples, ref=_shift_ref(True), dtypes=("int64",), method_variant=False,
           aten_name="bitwise_left_shift"),
    OpInfo("Tensor.__rshift__", _shift_samples, ref=_shift_ref(False), dtypes=("int64",), method_variant=False,
           aten_name="bitwise_right_shift"),
    _ternary("lerp", lambda a, b, w: a + w * (b - a)),
    _ternary("lerp", lambda a, b, w: a + w * (b - a), True),
    _ternary("addcmul", lambda a, b, c, value=1: a + value * b * c, kwargs=({}, {"value": 0.5})),
    _ternary("addcdiv", lambda a, b, c, value=1: a + value * b / c, kwargs=({}, {"value": 2})),
    _b("add", np.add, dtypes=FI),
    _b("sub", np.subtract, dtypes=FI),
    _b("mul", np.multiply, dtypes=FI),
    _b("div", np.true_divide, rhs_domain=(0.5, 3.0)),
    _b("pow", np.power, domain=(0.5, 2.0)),
    _b("eq", np.equal, dtypes=FI, inplace=False),
    _b("lt", np.less, dtypes=FI, inplace=False),
    _b("ge", np.greater_equal, dtypes=FI, inplace=False),
    _u("neg", np.negative, dtypes=FI),
    _u("abs", np.abs, dtypes=FI),
    _u("exp", np.exp),
    _u("log", np.log, (0.1, 5.0)),
    _u("sqrt", np.sqrt, (0.0, 5.0)),
    _u("sin", np.sin),
    _u("cos", np.cos),
    _u("tanh", np.tanh),
    _u("sigmoid", lambda a: 1 / (1 + np.exp(-a))),
    _with_args("clamp", [((-1.0, 1.0), {}), ((None, 0.5), {})], lambda a, lo, hi: np.clip(a, lo, hi)),
    OpInfo("where", lambda op, dt: [SampleInput(s.input, name=s.name) for s in _unary_shapes(dt) if s.input.ndim],
           dtypes=FIB, supports_meta=False, method_variant=False, ref=lambda x: tuple(np.nonzero(x))),
    _info("isclose", _isclose, dtypes=F + ("int64", "bool"), method_variant=True),
    OpInfo("rsub", _rsub_scalar, dtypes=("float32", "float64"), method_variant=False),
] + _division_infos() + _keyword_infos() + _overload_form_infos()
