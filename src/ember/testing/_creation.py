"""torch.testing._creation: make_tensor, a random tensor of a given shape, dtype and value range for tests."""
import collections.abc
import functools
import math
import warnings

import ember


def _dtypes(*names):
    return tuple(getattr(ember, n) for n in names if hasattr(ember, n))


_INTEGRAL_TYPES = _dtypes("uint8", "int8", "int16", "int32", "int64", "uint16", "uint32", "uint64")
_FLOATING_TYPES = _dtypes("float16", "bfloat16", "float32", "float64")
_FLOATING_8BIT_TYPES = _dtypes("float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz")
_COMPLEX_TYPES = _dtypes("complex32", "complex64", "complex128")
_BOOLEAN_OR_INTEGRAL_TYPES = (ember.bool, *_INTEGRAL_TYPES)
_FLOATING_OR_COMPLEX_TYPES = (*_FLOATING_TYPES, *_COMPLEX_TYPES)


def _uniform_random_(t, low, high):
    # uniform_ needs high - low to be finite in t's dtype: draw from the halved range and double
    if high - low >= ember.finfo(t.dtype).max:
        return t.uniform_(low / 2, high / 2).mul_(2)
    return t.uniform_(low, high)


def _low_high(dtype, low, high, *, lowest_inclusive, highest_exclusive, default_low, default_high):
    """The user's bounds, defaulted, checked and clamped to what dtype can hold (ceiled for integers)."""
    low = default_low if low is None else low
    high = default_high if high is None else high
    if any(isinstance(v, float) and math.isnan(v) for v in (low, high)):
        raise ValueError(f"`low` and `high` cannot be NaN, but got {low=} and {high=}")
    if low == high and dtype in _FLOATING_OR_COMPLEX_TYPES:
        warnings.warn("Passing `low==high` to `torch.testing.make_tensor` for floating or complex types is deprecated "
                      "since 2.1 and will be removed in 2.3. Use `torch.full(...)` instead.", FutureWarning,
                      stacklevel=4)
    elif low >= high:
        raise ValueError(f"`low` must be less than `high`, but got {low} >= {high}")
    elif high < lowest_inclusive or low >= highest_exclusive:
        raise ValueError(f"The value interval specified by `low` and `high` is [{low}, {high}), but {dtype} only "
                         f"supports [{lowest_inclusive}, {highest_exclusive})")
    low = min(max(low, lowest_inclusive), highest_exclusive)
    high = min(max(high, lowest_inclusive), highest_exclusive)
    if dtype in _BOOLEAN_OR_INTEGRAL_TYPES:
        # low ceiled to stay inside the interval; randint's high is exclusive, so it is ceiled as well
        return math.ceil(low), math.ceil(high)
    return low, high


def make_tensor(*shape, dtype, device, low=None, high=None, requires_grad=False, noncontiguous=False,
                exclude_zero=False, memory_format=None):
    """A tensor of `shape` on `device` with values drawn uniformly from [low, high) (defaults by dtype: bool [0, 2),
    unsigned [0, 10), signed integers [-9, 10), floating and complex [-9, 9)); see torch.testing.make_tensor."""
    if len(shape) == 1 and isinstance(shape[0], collections.abc.Sequence):
        shape = shape[0]
    shape = tuple(shape)
    if noncontiguous and memory_format is not None:
        shown = f"ember.{memory_format}" if isinstance(memory_format, str) else repr(memory_format)  # torch's repr
        raise ValueError(f"The parameters `noncontiguous` and `memory_format` are mutually exclusive, but got "
                         f"{noncontiguous=} and memory_format={shown}")
    if requires_grad and dtype in _BOOLEAN_OR_INTEGRAL_TYPES:
        raise ValueError(f"`requires_grad=True` is not supported for boolean and integral dtypes, but got {dtype=}")
    noncontiguous = noncontiguous and functools.reduce(lambda x, y: x * y, shape, 1) > 1
    if noncontiguous:
        shape = (*shape[:-1], 2 * shape[-1])      # twice the last dim, so the strided view holds distinct values

    if dtype is ember.bool:
        low, high = _low_high(dtype, low, high, lowest_inclusive=0, highest_exclusive=2, default_low=0,
                              default_high=2)
        result = ember.randint(low, high, shape, device=device, dtype=dtype)
    elif dtype in _INTEGRAL_TYPES:
        info = ember.iinfo(dtype)
        # randint converts its bounds to int64, so int64's largest value cannot be drawn
        low, high = _low_high(dtype, low, high, lowest_inclusive=info.min,
                              highest_exclusive=info.max + (1 if dtype is not ember.int64 else 0),
                              default_low=-9, default_high=10)
        result = ember.randint(low, high, shape, device=device, dtype=dtype)
    elif dtype in _FLOATING_OR_COMPLEX_TYPES:
        info = ember.finfo(dtype)
        low, high = _low_high(dtype, low, high, lowest_inclusive=info.min, highest_exclusive=info.max,
                              default_low=-9, default_high=9)
        result = ember.empty(shape, device=device, dtype=dtype)
        _uniform_random_(ember.view_as_real(result) if dtype in _COMPLEX_TYPES else result, low, high)
    elif dtype in _FLOATING_8BIT_TYPES:
        info = ember.finfo(dtype)
        low, high = _low_high(dtype, low, high, lowest_inclusive=info.min, highest_exclusive=info.max,
                              default_low=-9, default_high=9)
        result = ember.empty(shape, device=device, dtype=ember.float32)
        _uniform_random_(result, low, high)
        result = result.to(dtype)
    else:
        raise TypeError(f"The requested dtype '{dtype}' is not supported by torch.testing.make_tensor(). To request "
                        "support, file an issue at: https://github.com/pytorch/pytorch/issues")

    if noncontiguous:
        result = result[..., 1::2]                # offset by one to catch offset bugs too
    elif memory_format is not None:
        result = result.clone(memory_format=memory_format)
    if exclude_zero:
        result[result == 0] = 1 if dtype in _BOOLEAN_OR_INTEGRAL_TYPES else ember.finfo(dtype).tiny
    if dtype in _FLOATING_OR_COMPLEX_TYPES:
        result.requires_grad = requires_grad
    return result
