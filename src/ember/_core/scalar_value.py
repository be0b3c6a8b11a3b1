"""c10's `checked_convert` (c10/util/TypeCast.h): a Python number about to be stored into a tensor of a dtype
(fill_, full, masked_fill, index_fill, `x[i] = number`), RuntimeError where the dtype cannot hold it.

torch unpacks an int to int64 and a float to double, then converts with an overflow check: an integer dtype
takes its range (uint8 also -255..-1, which wrap as the C cast does; NaN never fits), float32/complex64
take finite values up to their largest (infinities and NaN convert), float64 takes every double, bool takes
anything; float16/bfloat16 too take finite values up to their largest, but torch checks them on some paths only
(`reduced=False` skips them: fill_/full of one element, `x[i] = number`, which store inf). A complex value
with an imaginary part fits only a complex dtype.

The value returned for float16/bfloat16 is rounded to float32 first: c10::Half and c10::BFloat16 are built
from a float, so torch rounds a double twice (1 + 2**-11 + 2**-40 stores 1.0 in float16, numpy's one rounding
gives 1.0009766); a NaN for bfloat16 is returned positive (c10's scalar conversion writes 0x7fc0 for every
NaN, ml_dtypes keeps the sign)."""
import numpy as np

# c10's names of the dtypes in "value cannot be converted to type ... without overflow"
C_NAMES = {"uint8": "uint8_t", "int8": "int8_t", "int16": "int16_t", "int32": "int", "int64": "int64_t",
           "float16": "c10::Half", "bfloat16": "c10::BFloat16", "float32": "float", "float64": "double",
           "complex64": "c10::complex<float>", "complex128": "c10::complex<double>"}
INT_RANGE = {"uint8": (0, 255), "int8": (-128, 127), "int16": (-2 ** 15, 2 ** 15 - 1),
             "int32": (-2 ** 31, 2 ** 31 - 1), "int64": (-2 ** 63, 2 ** 63 - 1)}
# float16/bfloat16: torch 2.13 checks them in fill_/full of 0 or 2+ elements, masked_fill and index_fill (fill_
# of a 1-element tensor and `x[i] = 1e6` store inf): callers pass reduced=False where torch does not check
_FLOAT_MAX = {"float32": 3.4028234663852886e38, "complex64": 3.4028234663852886e38}
_REDUCED_MAX = {"float16": 65504.0, "bfloat16": 3.3895313892515355e38}


def _overflow(cname):
    return RuntimeError(f"value cannot be converted to type {cname} without overflow")


def check_number(dtype, value, reduced=True):
    """The value to store for a Python number (bool, int, float, complex; numpy scalars as their Python
    kind) into `dtype`: the value itself, a negative int for uint8 wrapped, a float16/bfloat16 value rounded
    to float32. Anything else (a tensor, a symbolic number) is returned as it is: its checks are elsewhere.
    `reduced=False`: float16/bfloat16 values are not range-checked (module docstring)."""
    name = dtype.name
    if isinstance(value, (bool, np.bool_)):
        return value
    if isinstance(value, (int, np.integer)):
        v = int(value)
        if not -2 ** 63 <= v < 2 ** 64:     # a Scalar holds an int64 or a uint64 (2**63 and up fit no int dtype)
            raise OverflowError("int too big to convert")       # the argument parser's Scalar conversion
        if name == "bool":
            return value if v < 2 ** 63 else True       # (a uint64 value: nonzero, and numpy's bool cast of it fails)
        r = INT_RANGE.get(name)
        if r is not None and (v > r[1] or v < (-r[1] if r[0] == 0 else r[0])):     # uint8 takes -255..-1 too
            raise _overflow(C_NAMES[name])
        lim = _REDUCED_MAX.get(name)
        if lim is not None:
            if reduced and not -lim <= v <= lim:
                raise _overflow(C_NAMES[name])
            return _reduced(dtype, v)
        return v % 256 if name == "uint8" else v
    if name == "bool":
        return value
    if isinstance(value, (float, np.floating)):
        real, imag = float(value), 0.0
    elif isinstance(value, (complex, np.complexfloating)):
        real, imag = value.real, value.imag
    else:
        return value
    cname = C_NAMES.get(name)
    if cname is None:
        return value
    if imag != 0 and not dtype.is_complex:
        raise _overflow("float" if name == "float32" else cname if name in INT_RANGE else "double")
    if not dtype.is_complex:
        value = real            # a complex with no imaginary part stores its real part
    r = INT_RANGE.get(name)
    if r is not None:
        if real != real or not r[0] <= real <= r[1]:
            raise _overflow(cname)
        return value
    lim = _FLOAT_MAX.get(name)
    if lim is not None:
        for x in (real, imag):
            if x - x == 0 and not -lim <= x <= lim:       # finite and beyond the dtype (inf and NaN convert)
                raise _overflow(cname)
    lim = _REDUCED_MAX.get(name)
    if lim is not None:
        if reduced and real - real == 0 and not -lim <= real <= lim:
            raise _overflow(cname)
        return _reduced(dtype, _NAN if real != real and name == "bfloat16" else real)
    return value


_NAN = float("nan")


def _reduced(dtype, v):
    """v as a numpy scalar of float16/bfloat16 `dtype`, rounded through float32 as c10 builds it (an overflow
    to inf without numpy's warning)."""
    with np.errstate(over="ignore"):
        return dtype._np.type(np.float32(v))


__all__ = ["check_number", "C_NAMES", "INT_RANGE"]
