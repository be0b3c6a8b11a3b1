"""ember.finfo / ember.iinfo (torch/csrc/TypeInfo.cpp): the numeric limits of a dtype.

The float limits come from each format's parameters (bits, mantissa bits, smallest normal exponent,
largest finite value) rather than from numpy, so bfloat16 and the float8 formats need no ml_dtypes
import. `resolution` is torch's 10 ** -floor(-log10(eps)). A complex dtype describes its real part.
"""
import math

from ._core import dtype as D

# name -> (bits, eps, smallest normal, largest finite value)
_FLOAT = {
    "float64": (64, 2.0 ** -52, 2.0 ** -1022, (2 - 2.0 ** -52) * 2.0 ** 1023),
    "float32": (32, 2.0 ** -23, 2.0 ** -126, (2 - 2.0 ** -23) * 2.0 ** 127),
    "float16": (16, 2.0 ** -10, 2.0 ** -14, 65504.0),
    "bfloat16": (16, 2.0 ** -7, 2.0 ** -126, (2 - 2.0 ** -7) * 2.0 ** 127),
    "float8_e4m3fn": (8, 2.0 ** -3, 2.0 ** -6, 448.0),
    "float8_e5m2": (8, 2.0 ** -2, 2.0 ** -14, 57344.0),
    "float8_e4m3fnuz": (8, 2.0 ** -3, 2.0 ** -7, 240.0),
    # torch reports eps 2**-3 for e5m2fnuz (its numeric_limits::epsilon), not 2**-2
    "float8_e5m2fnuz": (8, 2.0 ** -3, 2.0 ** -15, 57344.0),
}


_MISSING = object()


def _check_type(fname, t):
    if not isinstance(t, D.dtype):
        raise TypeError(f"{fname}(): argument 'type' (position 1) must be ember.dtype, not {type(t).__name__}")


class _Info:
    __slots__ = ()
    __hash__ = None

    def __setattr__(self, name, value):
        raise AttributeError(f"attribute '{name}' of 'ember.{type(self).__name__}' objects is not writable")

    def __eq__(self, other):
        return type(other) is type(self) and other.dtype == self.dtype

    def __ne__(self, other):
        return not self == other


def _g(v):
    return f"{v:g}"


class finfo(_Info):
    """Limits of a floating point (or complex: of its real part) dtype; the default dtype if none."""

    __slots__ = ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution", "dtype")

    def __init__(self, type=_MISSING, *args):
        if args:
            raise TypeError("finfo() received an invalid combination of arguments - expected (ember.dtype type) or ()")
        if type is _MISSING:
            from ._core.promotion import get_default_dtype
            type = get_default_dtype()
        _check_type("finfo", type)
        real = type.to_real()
        if not real.is_floating_point:
            raise TypeError(f"ember.finfo() requires a floating point input type, got {type}. "
                            "Use ember.iinfo to handle integer types")
        bits, eps, tiny, mx = _FLOAT[real.name]
        s = object.__setattr__
        s(self, "bits", bits)
        s(self, "eps", eps)
        s(self, "max", mx)
        s(self, "min", -mx)
        s(self, "tiny", tiny)
        s(self, "smallest_normal", tiny)
        s(self, "resolution", 10.0 ** -math.floor(-math.log10(eps)))
        s(self, "dtype", real.name)

    def __repr__(self):
        return (f"finfo(resolution={_g(self.resolution)}, min={_g(self.min)}, max={_g(self.max)}, "
                f"eps={_g(self.eps)}, smallest_normal={_g(self.smallest_normal)}, tiny={_g(self.tiny)}, "
                f"dtype={self.dtype})")


class iinfo(_Info):
    """Limits of an integer dtype (bool is not one)."""

    __slots__ = ("bits", "max", "min", "dtype")

    def __init__(self, type):
        _check_type("iinfo", type)
        if type is D.bool_:
            raise TypeError("ember.bool is not supported by ember.iinfo")
        if type._kind not in "iu":
            raise TypeError(f"ember.iinfo() requires an integer input type, got {type}. "
                            "Use ember.finfo to handle floating point types")
        bits = type.itemsize * 8
        lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if type._kind == "i" else (0, (1 << bits) - 1)
        s = object.__setattr__
        s(self, "bits", bits)
        s(self, "min", lo)
        s(self, "max", hi)
        s(self, "dtype", type.name)

    def __repr__(self):
        return f"iinfo(min={_g(self.min)}, max={_g(self.max)}, dtype={self.dtype})"
