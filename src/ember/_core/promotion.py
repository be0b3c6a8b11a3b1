"""torch.result_type: type promotion across tensors, zero-dim tensors and Python scalars
(c10 ResultTypeState in ATen/native/TypeProperties.cpp).

Operands fall into three priority groups: tensors with dims, zero-dim tensors, and wrapped Python
numbers. Each group promotes internally; a lower group only changes the result when its category
(bool < integer < floating < complex) is higher than the higher group's.
"""
from . import dtype as D
from .tls import state

_CATEGORY = {"b": 0, "u": 1, "i": 1, "f": 2, "c": 3}


def get_default_dtype():
    return getattr(state, "default_dtype", D.float32)


def set_default_dtype(d):
    if d not in (D.float32, D.float64, D.float16, D.bfloat16):
        raise TypeError(f"only floating-point types are supported as the default type, got {d}")
    state.default_dtype = d


def default_complex_dtype():
    return D.complex128 if get_default_dtype() is D.float64 else D.complex64


def scalar_dtype(v):
    """The dtype a Python number takes when it becomes a wrapped tensor."""
    if isinstance(v, bool):
        return D.bool_
    if isinstance(v, int):
        return D.int64
    if isinstance(v, float):
        return get_default_dtype()
    if isinstance(v, complex):
        return default_complex_dtype()
    if type(v).__name__ in ("bool", "bool_") and type(v).__module__ == "numpy":
        return get_default_dtype()      # torch's parser reads numpy.bool_ as a float
    import numbers
    if isinstance(v, numbers.Integral):
        return D.int64
    if isinstance(v, numbers.Real):
        return get_default_dtype()
    raise TypeError(f"expected a Tensor or a Python number, got {type(v).__name__}")


def _promote(a, b):
    if a is None:
        return b
    if b is None:
        return a
    return D.promote_types(a, b)


def _combine(higher, lower):
    if higher is None:
        return lower
    if lower is None:
        return higher
    hk, lk = higher._kind, lower._kind
    if hk == "c":
        return higher
    if lk == "c":
        return higher.to_complex() if hk == "f" else lower
    if hk == "f":
        return higher
    if hk == "b" or lk == "f":
        return D.promote_types(higher, lower)
    return higher


def _category_dtypes(operands):
    """The promoted dtype of each priority group of torch's result_type: tensors with dims (and dtypes given
    as such), 0-dim tensors, wrapped numbers; None for an empty group."""
    dim_r = zero_r = wrapped_r = None
    for o in operands:
        d = getattr(o, "dtype", None)
        if d is not None and hasattr(o, "_size"):
            if o._size:
                dim_r = _promote(dim_r, d)
            else:
                zero_r = _promote(zero_r, d)
        elif isinstance(o, D.dtype):
            dim_r = _promote(dim_r, o)
        else:
            wrapped_r = _promote(wrapped_r, scalar_dtype(o))
    return dim_r, zero_r, wrapped_r


def result_type(*operands):
    dim_r, zero_r, wrapped_r = _category_dtypes(operands)
    return _combine(_combine(dim_r, zero_r), wrapped_r)


def is_complex_half(*operands):
    """True where torch's result_type is complex32 (ComplexHalf), a dtype ember does not have (result_type
    answers complex64 there): a float16 operand of a higher priority group meeting a complex one of a lower
    group (a float16 tensor with a complex number or a 0-dim complex tensor: c10's toComplexType(Half)).
    Ops torch implements no ComplexHalf kernel for (pow) raise its NotImplementedError from this."""
    dim_r, zero_r, wrapped_r = _category_dtypes(operands)
    higher = _combine(dim_r, zero_r)
    if dim_r is D.float16 and zero_r is not None and zero_r._kind == "c":
        return True
    return higher is D.float16 and wrapped_r is not None and wrapped_r._kind == "c"


def binary_result_type(a, b):
    """Fast path of result_type for two operands (the hot path of every binary op)."""
    da = getattr(a, "dtype", None)
    db = getattr(b, "dtype", None)
    if da is not None and db is not None:
        if da is db:
            return da
        try:
            if bool(a._size) == bool(b._size):
                return D.promote_types(da, db)
        except AttributeError:      # a numpy scalar (its dtype is numpy's): a number, for result_type
            pass
    return result_type(a, b)


def can_cast(from_, to):
    """torch.can_cast: casting may not lower the category (complex->float, float->int, int->bool)."""
    for i, (name, v) in enumerate((("from_", from_), ("to", to))):
        if not isinstance(v, D.dtype):
            raise TypeError(f"can_cast(): argument '{name}' (position {i + 1}) must be ember.dtype, "
                            f"not {type(v).__name__}")
    return _CATEGORY[from_._kind] <= _CATEGORY[to._kind]
