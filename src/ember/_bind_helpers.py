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
    if isinstance(v, (list, tuple)):
        for x in v:
            if x.__class__ is not int and not _is_int(x):
                return False
        return True
    return _is_int(v)


def _is_intseq(v):
    """An unsized int[] argument: a list or tuple of ints (a lone int is refused, as torch does)."""
    if isinstance(v, (list, tuple)):
        for x in v:
            if x.__class__ is not int and not _is_int(x):
                return False
        return True
    return False


def _is_double(v):
    """What torch binds to a `float` parameter: any real number (bool included) or a 0-dim tensor."""
    if isinstance(v, Tensor):
        return v.dim() == 0
    return isinstance(v, numbers.Real)


def _is_scalar(v):
    """What torch binds to a `Scalar` parameter: any Python/numpy number or a 0-dim tensor."""
    if isinstance(v, Tensor):
        return v.dim() == 0
    return isinstance(v, numbers.Number)


def _is_tensorlist(v):
    if v.__class__ is not list and v.__class__ is not tuple and not isinstance(v, (list, tuple)):
        return False
    for x in v:
        if x.__class__ is not Tensor and not isinstance(x, Tensor):
            return False
    return True


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


def _argtype(v):
    """The type name torch's argument errors print: the class name (numpy's qualified), Tensor for tensors."""
    if isinstance(v, Tensor):
        return "Tensor"
    t = type(v)
    return f"numpy.{t.__name__}" if t.__module__ == "numpy" else t.__name__


def _bad_arg(fname, argname, position, expected, value):
    where = f"argument '{argname}'" if position is None else f"argument '{argname}' (position {position})"
    return TypeError(f"{fname}(): {where} must be {expected}, not {_argtype(value)}")


def _bad_tensorlist(fname, argname, position, value):
    """torch's two messages: the argument is not a sequence, or one element is not a Tensor."""
    if not isinstance(value, (list, tuple)):
        raise _bad_arg(fname, argname, position, "tuple of Tensors", value)
    i = next(i for i, x in enumerate(value) if not isinstance(x, Tensor))
    raise TypeError(f"{fname}(): expected Tensor as element {i} in argument '{argname}', but got {_argtype(value[i])}")


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
