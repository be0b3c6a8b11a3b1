"""torch.testing.make_tensor (torch/testing/_creation.py): a tensor of a given shape, dtype and device filled with
values drawn uniformly from [low, high), with torch's per-dtype defaults, clamping and argument errors."""
import collections.abc
import math
import warnings

__all__ = ["make_tensor"]


def _kind(dtype):
    if dtype.name == "bool":
        return "bool"
    if dtype.is_complex:
        return "complex"
    if dtype.is_floating_point:
        return "float8" if dtype.name.startswith("float8") else "float"
    return "int"


def _low_high(dtype, kind, low, high, lowest, highest, default_low, default_high):
    """torch's modify_low_high: defaults, NaN and order checks, clamping to the dtype's finite range (integer
    bounds rounded up)."""
    low = default_low if low is None else low
    high = default_high if high is None else high
    if any(isinstance(v, float) and math.isnan(v) for v in (low, high)):
        raise ValueError(f"`low` and `high` cannot be NaN, but got low={low} and high={high}")
    elif low == high and kind in ("float", "complex"):
        warnings.warn("Passing `low==high` to `torch.testing.make_tensor` for floating or complex types is deprecated "
                      "since 2.1 and will be removed in 2.3. Use `torch.full(...)` instead.", FutureWarning,
                      stacklevel=3)
    elif low >= high:
        raise ValueError(f"`low` must be less than `high`, but got {low} >= {high}")
    elif high < lowest or low >= highest:
        raise ValueError(f"The value interval specified by `low` and `high` is [{low}, {high}), but {dtype} only "
                         f"supports [{lowest}, {highest})")
    low, high = min(max(low, lowest), highest), min(max(high, lowest), highest)
    if kind in ("bool", "int"):
        return math.ceil(low), math.ceil(high)
    return low, high


def make_tensor(*shape, dtype, device, low=None, high=None, requires_grad=False, noncontiguous=False,
                exclude_zero=False, memory_format=None):
    import ember
    if len(shape) == 1 and isinstance(shape[0], collections.abc.Sequence):
        shape = shape[0]
    shape = tuple(shape)
    if noncontiguous and memory_format is not None:
        raise ValueError("The parameters `noncontiguous` and `memory_format` are mutually exclusive, but got "
                         f"noncontiguous={noncontiguous} and memory_format={memory_format}")
    kind = _kind(dtype)
    if requires_grad and kind in ("bool", "int"):
        raise ValueError(f"`requires_grad=True` is not supported for boolean and integral dtypes, but got "
                         f"dtype={dtype}")
    noncontiguous = noncontiguous and math.prod(shape) > 1
    if noncontiguous:
        shape = (*shape[:-1], 2 * shape[-1])
    if kind == "bool":
        low, high = _low_high(dtype, kind, low, high, 0, 2, 0, 2)
        result = ember.randint(low, high, shape, device=device, dtype=dtype)
    elif kind == "int":
        info = ember.iinfo(dtype)
        low, high = _low_high(dtype, kind, low, high, info.min, info.max + (1 if dtype is not ember.int64 else 0),
                              -9, 10)
        result = ember.randint(low, high, shape, device=device, dtype=dtype)
    else:
        info = ember.finfo(dtype)
        low, high = _low_high(dtype, kind, low, high, info.min, info.max, -9, 9)
        work = ember.float32 if kind == "float8" else dtype
        result = ember.empty(shape, device=device, dtype=work)
        flat = ember.view_as_real(result) if kind == "complex" else result
        # uniform_ needs high - low within the dtype's range: a wider interval is drawn halved, then doubled
        if high - low >= ember.finfo(flat.dtype).max:
            flat.uniform_(low / 2, high / 2).mul_(2)
        else:
            flat.uniform_(low, high)
        result = result.to(dtype) if kind == "float8" else result
    if noncontiguous:
        result = result[..., 1::2]
    elif memory_format is not None:
        result = result.clone(memory_format=memory_format)
    if exclude_zero:
        if kind in ("bool", "int"):
            replace = 1
        else:
            tiny = ember.finfo(dtype).tiny
            replace = complex(tiny, tiny) if kind == "complex" else tiny
        result[result == 0] = replace
    if kind in ("float", "complex", "float8"):
        result.requires_grad = requires_grad
    return result
