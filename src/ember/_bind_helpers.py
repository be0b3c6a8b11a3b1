"""Small helpers the generated Python bindings use for overload matching and errors."""
import collections
import numbers

from ._core.dtype import dtype as _dtype
from ._tensor import Tensor


def _is_num(v):
    return isinstance(v, (int, float, complex)) or isinstance(v, numbers.Number)


def _is_real(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool) or (isinstance(v, numbers.Real) and not isinstance(v, bool))


def _is_int(v):
    return (isinstance(v, int) and not isinstance(v, bool)) or (
        isinstance(v, Tensor) and v.dim() == 0 and not v.dtype.is_floating_point and not v.dtype.is_complex
        and v.dtype.name != "bool") or (hasattr(v, "__index__") and not isinstance(v, (bool, Tensor, float)))


def _is_intlist(v):
    if _is_int(v):
        return True
    return isinstance(v, (list, tuple)) and all(_is_int(x) for x in v)


def _is_dtype(v):
    return isinstance(v, _dtype) or v in (float, int, bool, complex)


def _typename(v):
    if isinstance(v, Tensor):
        return "Tensor"
    if isinstance(v, (list, tuple)):
        return f"{type(v).__name__} of [{', '.join(_typename(x) for x in v)}]"
    return type(v).__name__


def _no_match(name, args, kwargs, sigs, method):
    got = ", ".join([_typename(a) for a in (args[1:] if method else args)] +
                    [f"{k}={_typename(v)}" for k, v in kwargs.items()])
    expected = "\n".join(" * " + s for s in sigs)
    return TypeError(f"{name}() received an invalid combination of arguments - got ({got}), but expected one of:\n{expected}")


def _bad_arg(fname, argname, position, expected, value):
    return TypeError(f"{fname}(): argument '{argname}' (position {position}) must be {expected}, not {_typename(value)}")


_RT = {}


def return_type(name, fields):
    """A named tuple type like torch.return_types.max(values=..., indices=...)."""
    cls = _RT.get((name, fields))
    if cls is None:
        base = collections.namedtuple(name, fields)

        def __repr__(self):
            inner = ",\n".join(f"{f}={v!r}" for f, v in zip(self._fields, self))
            return f"ember.return_types.{name}(\n{inner})"

        cls = _RT[(name, fields)] = type(name, (base,), {"__repr__": __repr__, "__slots__": ()})
        cls.__module__ = "ember.return_types"
    return cls
