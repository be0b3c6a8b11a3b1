"""Meta functions for pointwise math: result dtype per op kind, broadcast shapes for ternary ops (lerp,
addcmul, addcdiv), and the meta kernels themselves (`unary_meta` also makes those of the activations,
kernels/meta/activation.py). The cpu kernels in kernels/cpu/elementwise_math.py allocate from these same
rules."""
import numpy as np

from ..._core import dtype as D
from ..._core.device import META
from ..._core.promotion import get_default_dtype, result_type
from ..._core.strides import wrap_dim
from ..._core.tensor_impl import TensorImpl as Tensor
from ..common import broadcast_shapes, c_type_name, check_out, empty_tensor, shape_of, _tname
from ..out_rules import same_dtype
from .elementwise_common import ARITH, BITWISE, FLOAT_OUT, check_inplace, meta_binary, meta_binary_inplace, meta_binary_out, out_strides

# unary kinds: "float" (integers compute in the default float dtype), "same" (dtype kept), "bool"
# (predicates), "square" (bool -> int64), "float_only" (integer inputs are an error: the activations,
# whose table is in kernels/meta/activation.py)
UNARY_KINDS = {n: "float" for n in ("exp2 expm1 log1p log2 log10 asin acos atan sinh cosh tan asinh acosh atanh "
                                    "erf erfc erfinv reciprocal logit deg2rad rad2deg").split()}
UNARY_KINDS.update({n: "same" for n in "floor ceil trunc round sign sgn frac nan_to_num".split()})
UNARY_KINDS.update({n: "bool" for n in "isnan isinf isfinite isposinf isneginf signbit".split()})
UNARY_KINDS["square"] = "square"
# the kernel torch's "not implemented for 'Long'" message names, where it is not "<op>_cpu"
_FLOAT_ONLY_KERNEL = {"gelu": "GeluKernelImpl", "selu": "elu_cpu", "celu": "elu_cpu"}
# float_only ops whose torch CPU kernel has no complex version either ("leaky_relu_cpu" not implemented for
# 'ComplexFloat'); silu keeps complex, as torch's does
_REAL_ONLY = frozenset("gelu mish softplus elu selu celu leaky_relu hardsigmoid hardswish log_sigmoid hardshrink "
                       "glu".split())


def unary_out_rule(kind, name):
    """The out= dtype rule of a unary op of this kind: the "same" ops are built with TensorIterator's
    check_all_same_dtype (nan_to_num with its own message), the "bool" ones take a bool `out` only, the float
    ones cast into `out` (the default rule)."""
    from .. import out_rules
    if name == "nan_to_num":
        return out_rules.NAN_TO_NUM
    if UNARY_KINDS.get(name) != kind:        # the activations reuse the kinds, with TensorIterator's usual rule
        return None
    return {"same": out_rules.same_dtype, "bool": out_rules.boolean_output(name)}.get(kind)


def unary_kind_dtype(x, kind, name="op"):
    d = x.dtype
    if kind == "same":
        return d
    if kind == "bool":
        return D.bool_
    if kind == "square":
        return D.int64 if d is D.bool_ else d
    if kind == "float_only":
        if not (d.is_floating_point or d.is_complex) or (d.is_complex and name in _REAL_ONLY):
            raise NotImplementedError(f"\"{_FLOAT_ONLY_KERNEL.get(name, name + '_cpu')}\" not implemented for "
                                      f"'{_tname(d)}'")
        return d
    return d if (d.is_floating_point or d.is_complex) else get_default_dtype()


_ADDCDIV_INT = ("Integer division with addcdiv is no longer supported, and in a future release addcdiv will perform "
                "a true division of tensor1 and tensor2. The historic addcdiv behavior can be implemented as "
                "(input + value * torch.trunc(tensor1 / tensor2)).to(input.dtype) for integer inputs and as "
                "(input + value * tensor1 / tensor2) for float inputs. The future addcdiv behavior is just the latter "
                "implementation: (input + value * tensor1 / tensor2), for all dtypes.")


def ternary_spec(self, a, b, name, **kw):
    """(shape, dtype) for lerp(self, end, weight) / addcmul / addcdiv(self, tensor1, tensor2)."""
    shape = broadcast_shapes(shape_of(self), shape_of(a), shape_of(b))
    if name == "lerp":
        for what, t in (("end", a), ("weight", b)):
            if isinstance(t, Tensor) and t.dtype is not self.dtype:
                raise RuntimeError(f"expected dtype {c_type_name(self.dtype)} for `{what}` but got dtype "
                                   f"{c_type_name(t.dtype)}")
        if not (self.dtype.is_floating_point or self.dtype.is_complex):     # torch's kernels: floating only
            k = "lerp_kernel_tensor" if isinstance(b, Tensor) else "lerp_kernel_scalar"
            raise NotImplementedError(f'"{k}" not implemented for \'{_tname(self.dtype)}\'')
        return shape, self.dtype
    rdt = result_type(self, a, b)
    if name == "addcdiv" and not (rdt.is_floating_point or rdt.is_complex):
        raise RuntimeError(_ADDCDIV_INT)
    return shape, rdt


# ------------------------------------------------------------------ meta kernels
def unary_meta(name, kind):
    """(functional, in-place, out) meta kernels of a same-shape unary op of dtype kind `kind`."""
    def f(self, *args, **kw):
        return empty_tensor(self._size, unary_kind_dtype(self, kind, name), META, out_strides(self._size, self))

    def f_(self, *args, **kw):
        check_inplace(self, self._size, unary_kind_dtype(self, kind, name), name)
        return self

    rule = unary_out_rule(kind, name)

    def f_out(self, *args, out=None, **kw):
        check_out(out, self._size, unary_kind_dtype(self, kind, name), name, rule)
        return out
    return f, f_, f_out


for _n, _kind in UNARY_KINDS.items():
    globals()[_n], globals()[_n + "_"], globals()[_n + "_out"] = unary_meta(_n, _kind)
round_decimals, round__decimals, round_decimals_out = unary_meta("round", UNARY_KINDS["round"])

for _n, _k in {"atan2": FLOAT_OUT, "hypot": ARITH, "fmod": ARITH, "maximum": ARITH, "minimum": ARITH,
               "fmax": ARITH, "fmin": ARITH, "logaddexp": ARITH, "xlogy": FLOAT_OUT, "copysign": FLOAT_OUT,
               "heaviside": ARITH, "gcd": ARITH, "lcm": ARITH, "logaddexp2": ARITH, "nextafter": ARITH}.items():
    globals()[_n], globals()[_n + "_"], globals()[_n + "_out"] = (
        meta_binary(_k, _n), meta_binary_inplace(_k, _n), meta_binary_out(_k, _n))
fmod_Tensor = fmod_Scalar = fmod
copysign_Tensor = copysign_Scalar = copysign
copysign__Tensor = copysign__Scalar = copysign_
copysign_Scalar_out = copysign_out


def check_heaviside(self, values):
    """torch's heaviside refuses mixed dtypes instead of promoting."""
    if self.dtype is not values.dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes.")


def check_heaviside_out(self, values, out):
    """heaviside.out: `out` must share the inputs' dtype too."""
    check_heaviside(self, values)
    if out.dtype is not self.dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes.")


def check_signbit_out(out):
    if out.dtype is not D.bool_:
        raise RuntimeError("signbit does not support non-boolean outputs.")


def _checked(f):
    def g(self, values, *a, **k):
        if "out" in k:
            check_heaviside_out(self, values, k["out"])
        check_heaviside(self, values)
        return f(self, values, *a, **k)
    g.__name__ = f.__name__
    return g


def _signbit_checked(f):
    def g(self, *, out):
        check_signbit_out(out)
        return f(self, out=out)
    g.__name__ = f.__name__
    return g


signbit_out = _signbit_checked(signbit_out)


heaviside, heaviside_, heaviside_out = _checked(heaviside), _checked(heaviside_), _checked(heaviside_out)
fmod__Tensor = fmod__Scalar = fmod_
fmod_Tensor_out = fmod_Scalar_out = fmod_out
xlogy_Tensor = xlogy_Scalar_Self = xlogy_Scalar_Other = xlogy
xlogy__Tensor = xlogy__Scalar_Other = xlogy_
xlogy_OutTensor = xlogy_OutScalar_Self = xlogy_OutScalar_Other = xlogy_out


def _ternary(name, rule=None):
    def f(self, a, b, **kw):
        shape, rdt = ternary_spec(self, a, b, name)
        return empty_tensor(shape, rdt, META, out_strides(shape, self, a, b))

    def f_(self, a, b, **kw):
        shape, rdt = ternary_spec(self, a, b, name)
        check_inplace(self, shape, rdt, name)
        return self

    def f_out(self, a, b, out=None, **kw):
        shape, rdt = ternary_spec(self, a, b, name)
        check_out(out, shape, rdt, name, rule)
        return out
    return f, f_, f_out


lerp_Scalar, lerp__Scalar, lerp_Scalar_out = _ternary("lerp")
# lerp.Tensor's TensorIterator is built with check_all_same_dtype: `out` too has self's dtype
lerp_Tensor, lerp__Tensor, lerp_Tensor_out = _ternary("lerp", same_dtype)
addcmul, addcmul_, addcmul_out = _ternary("addcmul")
addcdiv, addcdiv_, addcdiv_out = _ternary("addcdiv")


def clamp__Tensor(self, min=None, max=None):
    return self


def clamp_min__Tensor(self, min):
    return clamp__Tensor(self, min, None)


def clamp_max__Tensor(self, max):
    return clamp__Tensor(self, None, max)


def clamp_Tensor_out(self, min=None, max=None, out=None):
    from .elementwise import clamp
    r = clamp(self, min, max)
    check_out(out, r._size, r.dtype, "clamp")
    return out


def check_integral(np_dtype, name):
    """gcd/lcm exist for integer dtypes only (torch's "gcd_cpu" not implemented for 'Float')."""
    if np_dtype.kind not in "iu":
        from ..._core import dtype as D
        raise NotImplementedError(f"\"{name}_cpu\" not implemented for '{_tname(D.from_numpy_dtype(np_dtype))}'")


def _integral_only(f, name):
    def g(*a, **k):
        r = f(*a, **k)
        check_integral(np.dtype(r.dtype._np), name)
        return r
    g.__name__ = f.__name__
    return g


for _n in ("gcd", "lcm"):
    for _s in ("", "_", "_out"):
        globals()[_n + _s] = _integral_only(globals()[_n + _s], _n)


# ------------------------------------------------------------------ isin
def isin_spec(elements, test_elements):
    """(shape, compute dtype) of isin: the elements' shape (0-d for a Scalar element), compared in the
    promoted dtype of both operands."""
    shape = elements._size if isinstance(elements, Tensor) else ()
    return shape, result_type(elements, test_elements)


def isin(elements, test_elements, *, assume_unique=False, invert=False):
    shape, _ = isin_spec(elements, test_elements)
    dev = (elements if isinstance(elements, Tensor) else test_elements).device
    return empty_tensor(shape, D.bool_, dev)


isin_Tensor_Tensor = isin_Tensor_Scalar = isin_Scalar_Tensor = isin


for _n, _op in (("bitwise_left_shift", "lshift"), ("bitwise_right_shift", "rshift")):
    globals()[_n], globals()[_n + "_"], globals()[_n + "_out"] = (
        meta_binary(BITWISE, _op), meta_binary_inplace(BITWISE, _op), meta_binary_out(BITWISE, _op))


def frexp(self):
    """(mantissa in self's dtype, int32 exponent), both laid out like self."""
    if not self.dtype.is_floating_point:
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    st = out_strides(self._size, self)
    return empty_tensor(self._size, self.dtype, self.device, st), empty_tensor(self._size, D.int32, self.device, st)


def frexp_out(self, *, mantissa, exponent):
    if not self.dtype.is_floating_point:
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    if mantissa.dtype is not self.dtype:
        raise RuntimeError(f"torch.frexp() expects mantissa to have dtype {c_type_name(self.dtype)} but got "
                           f"{c_type_name(mantissa.dtype)}")
    if exponent.dtype is not D.int32:
        raise RuntimeError(f"torch.frexp() expects exponent to have int dtype but got {c_type_name(exponent.dtype)}")
    check_out(mantissa, self._size, self.dtype, "frexp")
    check_out(exponent, self._size, D.int32, "frexp")
    return mantissa, exponent


# ------------------------------------------------------------------ torch's refs as meta kernels
# (see meta/elementwise.py's ref_binary) torch's meta gcd/lcm/heaviside take any dtype and promote (only its cpu
# kernels refuse floats or mixed dtypes), and so do bitwise_left_shift / bitwise_right_shift (only torch's operator
# forms, aten.__lshift__ and kin, check "lshift: Expected input tensor to have an integral dtype": ember's `<<` is
# bitwise_left_shift itself, so `f << 1` on meta is float32 here); lerp takes integer tensors and
# checks `end` (and a weight that is not 0-d) against self's dtype with a message of its own.
from .elementwise import ref_binary, ref_cast_check     # noqa: E402


def _integral(dt):
    return not (dt.is_floating_point or dt.is_complex or dt is D.bool_)


for _n in ("gcd", "lcm", "heaviside"):
    globals()[_n], globals()[_n + "_"], globals()[_n + "_out"] = ref_binary(_n)
for _n, _op in (("bitwise_left_shift", "lshift"), ("bitwise_right_shift", "rshift")):
    globals()[_n], globals()[_n + "_"], globals()[_n + "_out"] = ref_binary(_op)


def _lerp_spec(self, end, weight):
    for what, t in (("end", end), ("weight", weight)):
        if isinstance(t, Tensor) and t.dtype is not self.dtype and (what == "end" or t._size):
            raise RuntimeError(f"expected dtype {self.dtype} for `{what}`, but got dtype {t.dtype}")
    return broadcast_shapes(shape_of(self), shape_of(end), shape_of(weight)), self.dtype


def _lerp(self, end, weight, **kw):
    shape, rdt = _lerp_spec(self, end, weight)
    return empty_tensor(shape, rdt, META, out_strides(shape, self, end, weight))


def _lerp_(self, end, weight, **kw):
    shape, rdt = _lerp_spec(self, end, weight)
    if tuple(shape) != tuple(self._size):
        raise RuntimeError(f"output with shape {list(self._size)} doesn't match the broadcast shape {list(shape)}")
    return self


def _lerp_out(self, end, weight, out=None, **kw):
    shape, rdt = _lerp_spec(self, end, weight)
    ref_cast_check(rdt, out)
    check_out(out, shape, out.dtype, "lerp")
    return out


lerp_Scalar = lerp_Tensor = _lerp
lerp__Scalar = lerp__Tensor = _lerp_
lerp_Scalar_out = lerp_Tensor_out = _lerp_out
