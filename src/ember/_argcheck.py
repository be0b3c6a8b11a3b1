"""Argument type checks for the hand-written public functions (the ones that are not generated
bindings: ember.split, ember.meshgrid, F.interpolate, ...). Torch's own bindings reject a wrong type
with TypeError "f(): argument 'x' (position n) must be T, not U"; these give the same error before a
hand-written function would fail later with an AttributeError or a ValueError from deep inside."""
from ._bind_helpers import _argtype, _bad_arg, _is_int, _is_intlist, _is_double
from ._core.dtype import dtype as _dtype
from ._tensor import Tensor


def tensor(fname, argname, pos, v, optional=False):
    if not (isinstance(v, Tensor) or optional and v is None):
        raise _bad_arg(fname, argname, pos, "Tensor", v)


def tensors(fname, argname, pos, seq):
    """Every element of a tensor sequence is a Tensor (torch: "expected Tensor as element i ...")."""
    for i, x in enumerate(seq):
        if not isinstance(x, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument {pos - 1 if pos else 0}, "
                            f"but got {_argtype(x)}")


def integer(fname, argname, pos, v, optional=False):
    if not (_is_int(v) or optional and v is None):
        raise _bad_arg(fname, argname, pos, "int", v)


def int_list(fname, argname, pos, v, optional=False):
    if not (_is_intlist(v) or optional and v is None):
        raise _bad_arg(fname, argname, pos, "tuple of ints", v)


def number(fname, argname, pos, v, optional=False):
    if not (_is_double(v) or optional and v is None):
        raise _bad_arg(fname, argname, pos, "float", v)


def boolean(fname, argname, pos, v):
    if not isinstance(v, bool) and type(v).__name__ != "bool_":
        raise _bad_arg(fname, argname, pos, "bool", v)


def dtype(fname, argname, pos, v, optional=True):
    if not (isinstance(v, _dtype) or v in (float, int, bool, complex) or optional and v is None):
        raise _bad_arg(fname, argname, pos, "ember.dtype", v)


def string(fname, argname, pos, v, optional=False):
    if not (isinstance(v, str) or optional and v is None):
        raise _bad_arg(fname, argname, pos, "str", v)
