"""CompositeImplicitAutograd Scalar overloads (where.ScalarOther, bitwise_and.Scalar_Tensor, eq_.Scalar ...):
each forwards its Python number to the Tensor overload of the same name, which takes it as a wrapped
number (torch wraps it with wrapped_scalar_tensor the same way). They exist so that the schema, and with it
the Python binding, accepts a number exactly where torch's does."""

from ..common import _tname
from ..._core import dtype as D
import numpy as np
from ..._ops import ops
from ..._core.promotion import get_default_dtype

aten = ops.aten


def where(condition, self, other):
    return aten.where.self(condition, self, other)


def _binary(name):
    def fn(self, other):
        return getattr(aten, name).Tensor(self, other)
    fn.__name__ = name
    return fn


bitwise_and = _binary("bitwise_and")
bitwise_or = _binary("bitwise_or")
bitwise_xor = _binary("bitwise_xor")
bitwise_and_ = _binary("bitwise_and_")
bitwise_or_ = _binary("bitwise_or_")
bitwise_xor_ = _binary("bitwise_xor_")
eq_ = _binary("eq_")
ne_ = _binary("ne_")
lt_ = _binary("lt_")
le_ = _binary("le_")
gt_ = _binary("gt_")
ge_ = _binary("ge_")


def subtract(self, other, alpha=1):
    return aten.sub.Tensor(self, other, alpha=alpha)


def subtract_(self, other, alpha=1):
    return aten.sub_.Tensor(self, other, alpha=alpha)


def subtract_out(self, other, alpha=1, out=None):
    return aten.sub.out(self, other, alpha=alpha, out=out)


def isclose(self, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """|self - other| <= atol + rtol |other| (finite), or exactly equal (infinities), or both nan (equal_nan)."""
    if self.dtype is not other.dtype:
        raise RuntimeError(f"{_tname(self.dtype)} did not match {_tname(other.dtype)}")
    if self.dtype.is_complex and equal_nan:
        raise RuntimeError("isclose with equal_nan=True is not supported for complex inputs.")
    if rtol < 0:
        raise RuntimeError(f"rtol must be greater than or equal to zero, but got {rtol:g}")
    if atol < 0:
        raise RuntimeError(f"atol must be greater than or equal to zero, but got {atol:g}")
    close = self == other
    if equal_nan and self.dtype.is_floating_point:
        close = close | (self.isnan() & other.isnan())
    if rtol == 0 and atol == 0:
        return close
    a, b = self, other
    if not (self.dtype.is_floating_point or self.dtype.is_complex):
        dt = get_default_dtype()
        a, b = self.to(dt), other.to(dt)
    with np.errstate(invalid="ignore", over="ignore"):       # inf - inf, inf * 0: nan, not close (no warning)
        allowed = atol + (rtol * b).abs()
        actual = (a - b).abs()
        return close | (actual.isfinite() & (actual <= allowed))


def allclose(self, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    return bool(isclose(self, other, rtol, atol, equal_nan).all().item())


# ------------------------------------------------------------------ aliases (torch's arcsin -> asin, clip -> clamp)
def _alias(target):
    """arcsin(x) / arcsin(x, out=y): the packet aten.<target> picks the overload whose schema binds."""
    def f(*args, **kw):
        return getattr(aten, target)(*args, **kw)
    f.__name__ = target
    return f


def _alias_(target):
    def f(self, *args, **kw):
        return getattr(aten, target + "_")(self, *args, **kw)
    f.__name__ = target + "_"
    return f


for _a, _t in {"arcsin": "asin", "arccos": "acos", "arctan": "atan", "arcsinh": "asinh", "arccosh": "acosh",
               "arctanh": "atanh", "arctan2": "atan2", "clip": "clamp"}.items():
    globals()[_a] = globals()[_a + "_out"] = _alias(_t)
    globals()[_a + "_"] = _alias_(_t)
clip_Tensor = clip_Tensor_out = _alias("clamp")



def _binding_alias(target):
    """numpy / array-API spellings (torch.divide, torch.greater, ...): torch's Python binding of `target`
    with the same arguments, so a Python number binds as it does there (to the Scalar overload, or as a
    wrapped number where only a Tensor form exists, e.g. divide(t, 2, rounding_mode=...))."""
    def f(*args, **kw):
        from ..._generated import functions
        return getattr(functions, target)(*args, **kw)
    f.__name__ = target
    return f


for _a, _t in {"absolute": "abs", "negative": "neg", "fix": "trunc", "divide": "div", "true_divide": "div",
               "multiply": "mul", "greater": "gt", "greater_equal": "ge", "less": "lt", "less_equal": "le",
               "not_equal": "ne"}.items():
    globals()[_a] = _binding_alias(_t)
clip__Tensor = _alias_("clamp")


def positive(self):
    if self.dtype == D.bool_:
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return self


def isreal(self):
    """Real and integral dtypes are all-True; a complex tensor is real where its imaginary part is 0."""
    if not self.dtype.is_complex:
        return aten.ones_like.default(self, dtype=D.bool_, memory_format="preserve_format")
    return aten.eq.Scalar(self.imag, 0)


def negative_(self):
    return aten.neg_.default(self)


def fix_(self):
    return aten.trunc_.default(self)


def square(self):
    """torch's square is pow(self, 2) (its node is PowBackward0)."""
    return aten.pow.Tensor_Scalar(self, 2)


def square_(self):
    return aten.pow_.Scalar(self, 2)


def divide_Scalar(self, other):
    """divide.Scalar / true_divide.Scalar run div.Scalar (torch's: DivBackward1), not the binding's wrapped number."""
    return aten.div.Scalar(self, other)


def multiply_Scalar(self, other):
    return aten.mul.Scalar(self, other)


def max_other(self, other):
    """torch.max(a, b): the elementwise maximum (torch's max.other is maximum)."""
    return aten.maximum.default(self, other)


def min_other(self, other):
    """torch.min(a, b): the elementwise minimum."""
    return aten.minimum.default(self, other)


# ------------------------------------------------------------------ float_power (torch's: pow in double precision)
def _fp_dtype(*xs):
    from ..._core import dtype as D
    cplx = any(isinstance(x, complex) or (hasattr(x, "dtype") and x.dtype.is_complex) for x in xs)
    return D.complex128 if cplx else D.float64


def _fp_cast(x, dt):
    if hasattr(x, "dtype"):
        return x if x.dtype is dt else aten._to_copy.default(x, dtype=dt)
    return complex(x) if dt.is_complex else float(x)


def _fp_out_check(out, dt, what="output given to float_power"):
    if out.dtype is not dt:
        raise RuntimeError(f"the {what} has dtype {_tname(out.dtype)} but the operation's result requires dtype "
                           f"{_tname(dt)}")


def _float_power(overload):
    def f(self, exponent):
        dt = _fp_dtype(self, exponent)
        return getattr(aten.pow, overload)(_fp_cast(self, dt), _fp_cast(exponent, dt))
    f.__name__ = "float_power_" + overload
    return f


def _float_power_out(overload):
    def f(self, exponent, *, out):
        dt = _fp_dtype(self, exponent)
        _fp_out_check(out, dt)
        from ..common import resize_out
        from ..._grad_mode import no_grad
        with no_grad():
            r = getattr(aten.pow, overload)(_fp_cast(self, dt), _fp_cast(exponent, dt))
            resize_out(out, r._size)
            aten.copy_.default(out, r)      # through the dispatcher: tracing and functionalization see it
        return out
    f.__name__ = "float_power_" + overload + "_out"
    return f


def _float_power_(overload):
    def f(self, exponent):
        dt = _fp_dtype(self, exponent)
        _fp_out_check(self, dt, "base given to float_power_")
        return getattr(aten.pow_, overload)(self, _fp_cast(exponent, dt))
    f.__name__ = "float_power__" + overload
    return f


float_power_Tensor_Tensor, float_power_Tensor_Scalar, float_power_Scalar = (
    _float_power(o) for o in ("Tensor_Tensor", "Tensor_Scalar", "Scalar"))
float_power_Tensor_Tensor_out, float_power_Tensor_Scalar_out, float_power_Scalar_out = (
    _float_power_out(o) for o in ("Tensor_Tensor", "Tensor_Scalar", "Scalar"))
float_power__Tensor, float_power__Scalar = _float_power_("Tensor"), _float_power_("Scalar")


# ------------------------------------------------------------------ ldexp, shifts of a Python number (issue 19)
def ldexp(self, other):
    """self * 2**other (torch's ldexp is this composite)."""
    return aten.mul.Tensor(self, aten.pow.Scalar(2.0, other))


def ldexp_(self, other):
    return aten.mul_.Tensor(self, aten.pow.Scalar(2.0, other))


def ldexp_out(self, other, *, out):
    from ..._core.promotion import can_cast, result_type
    scale = aten.pow.Scalar(2.0, other)
    if not can_cast(result_type(self, scale), out.dtype):        # torch names ldexp, not the result type
        raise RuntimeError(f"ldexp can't be cast to the desired output type {_tname(out.dtype)}")
    return aten.mul.out(self, scale, out=out)


bitwise_left_shift = _binary("bitwise_left_shift")
bitwise_right_shift = _binary("bitwise_right_shift")


def bitwise_left_shift_Scalar_Tensor_out(self, other, *, out):
    return aten.bitwise_left_shift.Tensor_out(self, other, out=out)


def bitwise_right_shift_Scalar_Tensor_out(self, other, *, out):
    return aten.bitwise_right_shift.Tensor_out(self, other, out=out)


# in-place aliases torch keeps for numpy/array-API names (Tensor.absolute_, divide_, multiply_, greater_...): the
# in-place op they name, as torch's CompositeImplicitAutograd kernels call it (a mode sees that op)
def absolute_(self):
    return aten.abs_.default(self)


def divide_(self, other, rounding_mode=None):
    if rounding_mode is None:
        return aten.div_.Tensor(self, other)
    return aten.div_.Tensor_mode(self, other, rounding_mode=rounding_mode)


def divide__Scalar(self, other):
    return aten.div_.Scalar(self, other)


def multiply_(self, other):
    return aten.mul_.Tensor(self, other)


def multiply__Scalar(self, other):
    return aten.mul_.Scalar(self, other)


def _comparison_(op):
    def tensor(self, other):
        return getattr(aten, op).Tensor(self, other)

    def scalar(self, other):
        return getattr(aten, op).Scalar(self, other)
    return tensor, scalar


greater_, greater__Scalar = _comparison_("gt_")
greater_equal_, greater_equal__Scalar = _comparison_("ge_")
less_, less__Scalar = _comparison_("lt_")
less_equal_, less_equal__Scalar = _comparison_("le_")
not_equal_, not_equal__Scalar = _comparison_("ne_")
