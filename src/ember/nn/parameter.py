"""nn.Parameter and nn.Buffer (torch/nn/parameter.py).

A Parameter is a Tensor subclass sharing the storage (and version counter) of the data it wraps, with
requires_grad=True by default; Module.__setattr__ registers it. `isinstance(t, Parameter)` is also true
for tensors flagged `_is_param` (torch's _ParameterMeta), and `isinstance(t, Buffer)` for `_is_buffer`.
"""
import contextlib
from collections import OrderedDict

import numpy as np

from .._core.dispatch_keys import PYTHON_BIT
from .._core.tensor_impl import FACTORY_REFUSAL
from .._core.tls import state as _tls
from .._core import torch_function as _tf
from .._core.torch_function import _disabled_torch_function_impl
from .._tensor import Tensor
from . import _tensor_util as U


class _ParameterMeta(type(Tensor)):     # torch: _ParameterMeta(torch._C._TensorMeta)
    def __instancecheck__(self, instance):
        if self is Parameter:
            if isinstance(instance, Tensor) and getattr(instance, "_is_param", False):
                return True
        return super().__instancecheck__(instance)


def _default_data():
    return U.empty((0,))


class Parameter(Tensor, metaclass=_ParameterMeta):
    r"""A kind of Tensor that is to be considered a module parameter."""

    _is_param = True

    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            data = _default_data()
        if not isinstance(data, Tensor):
            raise TypeError(f"Parameter.__new__ expected a Tensor as data, but got {type(data).__name__}")
        if _tf.TF_ACTIVE[0] and not _tf.is_torch_function_all_disabled():
            # torch's Tensor._make_subclass is not dispatched and reads nothing through the protocol
            with _tf.DisableTorchFunction():
                return Parameter.__new__(cls, data, requires_grad)
        t = U.alias(data, cls)
        if type(data) not in (Tensor, Parameter) and not issubclass(cls, type(data)):
            # custom tensor subclass: keep its class, flag it as a parameter
            t = U.alias(data, type(data))
            t._is_param = True
        t._set_requires_grad(bool(requires_grad), FACTORY_REFUSAL)     # (torch's message for Parameter)
        return t

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        result = type(self)(U.clone(self) if self._np is not None else self, self.requires_grad)
        memo[id(self)] = result
        return result

    def __repr__(self):
        return "Parameter containing:\n" + super().__repr__()

    # ops on a Parameter return plain tensors (torch: _disabled_torch_function_impl)
    __torch_function__ = _disabled_torch_function_impl


class _BufferMeta(type(Tensor)):
    def __instancecheck__(self, instance):
        if self is Buffer:
            if isinstance(instance, Tensor) and getattr(instance, "_is_buffer", False):
                return True
        return super().__instancecheck__(instance)


class Buffer(Tensor, metaclass=_BufferMeta):
    r"""A kind of Tensor that should not be considered a model parameter (e.g. BatchNorm's running_mean).

    Assigning a Buffer to a Module attribute registers it as a buffer (persistent unless persistent=False).
    """

    # no instance is ever of this class (`Buffer(t)` is t's alias flagged `_is_buffer`): outside the
    # __torch_function__ protocol, so defining it does not make every binding look at its arguments
    __torch_function__ = _disabled_torch_function_impl

    def __new__(cls, data=None, *, persistent=True):
        if data is None:
            data = _default_data()
        t = U.alias(data, type(data))
        t.requires_grad_(data.requires_grad)
        t.persistent = persistent
        t._is_buffer = True
        return t


class _UninitializedMeta(type):
    def __instancecheck__(cls, obj):
        return getattr(type(obj), "_uninitialized", False)


class UninitializedTensorMixin(metaclass=_UninitializedMeta):
    """What the lazy modules' placeholders share: no shape until `materialize(shape)` gives them storage and
    turns them into `cls_to_become` (torch/nn/parameter.py). Its methods are copied into the two placeholder
    classes rather than inherited: a second base would change their layout, and `materialize` reassigns
    `__class__` (isinstance against the mixin still holds)."""

    def materialize(self, shape, device=None, dtype=None):
        import ember
        device = self.data.device if device is None else device
        dtype = self.data.dtype if dtype is None else dtype
        Tensor.data.fset(self, ember.empty(shape, device=device, dtype=dtype))
        self.__class__ = self.cls_to_become
        self._ks &= ~PYTHON_BIT

    @property
    def data(self):
        with _python_key_excluded():
            return Tensor.data.fget(self)

    @data.setter
    def data(self, other):
        # Module._apply on a lazy module (`.double()`, `.to(...)`) replaces the data of a placeholder: it stays one
        Tensor.data.fset(self, other)
        self._ks |= PYTHON_BIT

    def requires_grad_(self, requires_grad=True):
        raise _uninitialized_use(type(self), "Tensor.requires_grad_")

    def numel(self):
        raise _uninitialized_use(type(self), "Tensor.numel")

    def dim(self):
        raise _uninitialized_use(type(self), "Tensor.dim")

    @classmethod
    def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
        # torch lets conversions and copies through (its _allowed_methods); any other op is an error
        if func.overloadpacket.__name__ not in _ALLOWED_OPS:
            owner = next((t for t in types if getattr(t, "_uninitialized", False)), cls)
            raise _uninitialized_use(owner, func)
        with _python_key_excluded():
            return func(*args, **(kwargs or {}))

    def __repr__(self):
        return f"<{self.__class__.__name__}>"

    @property
    def shape(self):
        raise RuntimeError("Can't access the shape of an uninitialized parameter or buffer. This error usually "
                           "happens in `load_state_dict` when trying to load an uninitialized parameter into an "
                           "initialized one. Call `forward` to initialize the parameters before accessing their "
                           "attributes.")

    def __reduce_ex__(self, proto):
        return (self.__class__, (self.requires_grad,))

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        result = type(self)(self.requires_grad, self.data.device, self.data.dtype)
        memo[id(self)] = result
        return result


# the aten ops torch's UninitializedTensorMixin._allowed_methods reach: dtype/device conversions and copy_
_ALLOWED_OPS = frozenset(("_to_copy", "to", "copy_", "_has_compatible_shallow_copy_type", "lift_fresh"))


def _uninitialized_use(cls, func):
    return ValueError(f"Attempted to use an uninitialized parameter in {func}. This error happens when you are "
                      "using a `LazyModule` or explicitly manipulating "
                      f"`torch.nn.parameter.{cls.__name__}` objects. When using LazyModules Call `forward` with a "
                      "dummy batch to initialize the parameters before calling torch functions")


@contextlib.contextmanager
def _python_key_excluded():
    old = _tls.exclude
    _tls.exclude = old | PYTHON_BIT
    try:
        yield
    finally:
        _tls.exclude = old


def _placeholder(cls, requires_grad, device, dtype):
    import ember
    t = U.alias(ember.empty(0, device=device, dtype=dtype), cls)
    Tensor.requires_grad_(t, requires_grad)
    t._ks |= PYTHON_BIT       # every op on it reaches __torch_dispatch__, which raises torch's ValueError
    return t


def _uninitialized(cls):
    for name in ("materialize", "__repr__", "shape", "__reduce_ex__", "__deepcopy__", "data", "requires_grad_",
                 "numel", "dim", "__torch_dispatch__"):
        setattr(cls, name, UninitializedTensorMixin.__dict__[name])
    cls._uninitialized = True
    return cls


@_uninitialized
class UninitializedParameter(Parameter):
    """A Parameter of a lazy module whose shape is not known yet (LazyLinear's weight until the first forward)."""

    cls_to_become = Parameter

    def __new__(cls, requires_grad=True, device=None, dtype=None):
        return _placeholder(cls, requires_grad, device, dtype)


@_uninitialized
class UninitializedBuffer(Tensor):
    """A buffer of a lazy module whose shape is not known yet (LazyBatchNorm's running_mean until the first
    forward)."""

    # ops on it raise through __torch_dispatch__ (torch raises the same ValueError from a __torch_function__);
    # outside the protocol, so `import ember.nn` does not make every binding look at its arguments
    __torch_function__ = _disabled_torch_function_impl

    cls_to_become = Tensor

    def __new__(cls, requires_grad=False, device=None, dtype=None, persistent=True):
        t = _placeholder(cls, requires_grad, device, dtype)
        t.persistent = persistent
        return t


def is_lazy(param):
    return isinstance(param, UninitializedTensorMixin)
