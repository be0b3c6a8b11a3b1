"""torch's legacy tensor constructors: `torch.Tensor(...)` and the typed classes `torch.FloatTensor`,
`LongTensor`, ... (torch/csrc/utils/tensor_new.cpp legacy_tensor_ctor).

`Tensor(*sizes)` / `Tensor(torch.Size)` is an uninitialized tensor of those sizes; `Tensor(sequence)` copies
the data, converted to the class's dtype (the default dtype for `Tensor`); `Tensor(tensor)` is that tensor's
alias (of the class's dtype for a typed class); `Tensor()` is empty. Only `device=` (cpu) is accepted as a
keyword. `isinstance(t, ember.FloatTensor)` is true for a float32 tensor, as in torch.
"""
import numbers

import numpy as np

from ._core import dtype as D
from ._core.promotion import get_default_dtype
from ._core.size import Size
from ._core.tensor_impl import TensorImpl


def _argtype(v):
    if isinstance(v, TensorImpl):
        return "Tensor"
    if isinstance(v, D.dtype):
        return "torch.dtype"
    return type(v).__name__


_SIGS = ("(*, torch.device device = None)", "(torch.Storage storage)", "(Tensor other)",
         "(tuple of ints size, *, torch.device device = None)", "(object data, *, torch.device device = None)")


def _check_kwargs(args, kwargs):
    device = kwargs.pop("device", None)
    if kwargs:
        got = ", ".join([_argtype(a) for a in args] + [f"{k}={_argtype(v)}" for k, v in kwargs.items()])
        raise TypeError(f"new() received an invalid combination of arguments - got ({got}), but expected one of:\n"
                        + "\n".join(" * " + sig for sig in _SIGS))
    if device is not None:
        from ._core.device import device as _device
        d = _device(device) if not isinstance(device, int) or isinstance(device, bool) else _device("cuda", device)
        if d.type != "cpu":
            raise RuntimeError(f"legacy constructor expects device type: cpu but device type: {d.type} was passed")


def _sizes(args):
    for i, a in enumerate(args):
        if isinstance(a, bool) or not isinstance(a, (numbers.Integral,)):
            raise TypeError(f"new(): argument 'size' failed to unpack the object at pos {i + 1} with error \"type "
                            f"must be tuple of ints,but got {type(a).__name__}\"")
    sizes = [int(a) for a in args]
    for s in sizes:
        if s < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: {sizes}")
    return tuple(sizes)


def legacy_new(dtype, args, kwargs):
    """The tensor `torch.Tensor(*args, **kwargs)` (dtype None) or `torch.<Type>Tensor(...)` builds."""
    from . import functional as _functional
    from ._generated import functions as _F
    _check_kwargs(args, dict(kwargs))
    typed = dtype is not None
    dt = dtype or get_default_dtype()
    if not args:
        return _F.empty(0, dtype=dt)
    first = args[0]
    if isinstance(first, TensorImpl) and len(args) == 1:
        if typed and first.dtype != dt:
            raise TypeError(f"expected {_type_name(dt)} (got {_type_name(first.dtype)})")
        return first.view_as(first)
    if isinstance(first, Size) and len(args) == 1:
        return _F.empty(tuple(_sizes(tuple(first))), dtype=dt)
    if isinstance(first, numbers.Integral) and not isinstance(first, bool):
        return _F.empty(tuple(_sizes(args)), dtype=dt)
    if len(args) == 1:
        if isinstance(first, (str, bytes)):
            raise TypeError(f"new(): invalid data type '{type(first).__name__}'")
        if isinstance(first, (list, tuple, np.ndarray)) and not (isinstance(first, np.ndarray) and first.ndim == 0):
            return _functional.tensor(first, dtype=dt)
        kind = type(first)
        name = kind.__name__ if kind.__module__ == "builtins" else f"{kind.__module__.split('.')[0]}.{kind.__name__}"
        raise TypeError(f"new(): data must be a sequence (got {name})")
    return _F.empty(tuple(_sizes(args)), dtype=dt)


def _type_name(dt):
    return "ember." + _NAMES.get(dt, dt.name) + "Tensor"


class _LegacyTensorType(type):
    """The metaclass of the typed legacy classes: calling one builds a tensor of its dtype, and
    isinstance checks the dtype."""

    def __call__(cls, *args, **kwargs):
        return legacy_new(cls.dtype, args, kwargs)

    def __instancecheck__(cls, obj):
        return isinstance(obj, TensorImpl) and obj.dtype == cls.dtype and obj.device.type == "cpu"

    def __repr__(cls):
        return f"<class 'ember.{cls.__name__}'>"


_NAMES = {D.float32: "Float", D.float64: "Double", D.float16: "Half", D.bfloat16: "BFloat16", D.uint8: "Byte",
          D.int8: "Char", D.int16: "Short", D.int32: "Int", D.int64: "Long", D.bool_: "Bool"}


def _typed(dt):
    name = _NAMES[dt] + "Tensor"
    return _LegacyTensorType(name, (), {"dtype": dt, "is_cuda": False, "is_sparse": False, "__module__": "ember",
                                        "__doc__": f"ember.{name}(...): the legacy constructor for {dt} tensors."})


FloatTensor = _typed(D.float32)
DoubleTensor = _typed(D.float64)
HalfTensor = _typed(D.float16)
BFloat16Tensor = _typed(D.bfloat16)
ByteTensor = _typed(D.uint8)
CharTensor = _typed(D.int8)
ShortTensor = _typed(D.int16)
IntTensor = _typed(D.int32)
LongTensor = _typed(D.int64)
BoolTensor = _typed(D.bool_)

def set_default_tensor_type(t, /):
    """Deprecated in torch since 2.1 (same warning): sets the default floating dtype from a legacy class or its
    dotted name ("torch.DoubleTensor"; "ember.DoubleTensor" names the same class)."""
    import warnings
    warnings.warn("torch.set_default_tensor_type() is deprecated as of PyTorch 2.1, please use "
                  "torch.set_default_dtype() and torch.set_default_device() as alternatives.", UserWarning,
                  stacklevel=2)
    if isinstance(t, str):
        module, _, name = t.rpartition(".")
        if module not in ("torch", "ember") or name not in globals():
            raise ModuleNotFoundError(f"No module named '{t.rpartition('.')[0]}'") if module not in ("torch", "ember") \
                else AttributeError(f"module '{module}' has no attribute '{name}'")
        t = globals()[name]
    if not isinstance(t, _LegacyTensorType):
        raise TypeError("invalid type object: only floating-point types are supported as the default type")
    if not t.dtype.is_floating_point:
        raise TypeError("only floating-point types are supported as the default type")
    from ._core.promotion import set_default_dtype
    set_default_dtype(t.dtype)


__all__ = ["set_default_tensor_type", "FloatTensor", "DoubleTensor", "HalfTensor", "BFloat16Tensor", "ByteTensor", "CharTensor", "ShortTensor",
           "IntTensor", "LongTensor", "BoolTensor"]
