"""nn.Parameter and nn.Buffer (torch/nn/parameter.py).

A Parameter is a Tensor subclass sharing the storage (and version counter) of the data it wraps, with
requires_grad=True by default; Module.__setattr__ registers it. `isinstance(t, Parameter)` is also true
for tensors flagged `_is_param` (torch's _ParameterMeta), and `isinstance(t, Buffer)` for `_is_buffer`.
"""
from collections import OrderedDict

import numpy as np

from .._tensor import Tensor
from . import _tensor_util as U


class _ParameterMeta(type):
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
        t = U.alias(data, cls)
        if type(data) not in (Tensor, Parameter) and not issubclass(cls, type(data)):
            # custom tensor subclass: keep its class, flag it as a parameter
            t = U.alias(data, type(data))
            t._is_param = True
        t.requires_grad_(requires_grad)
        return t

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        result = type(self)(U.clone(self) if self._np is not None else self, self.requires_grad)
        memo[id(self)] = result
        return result

    def __repr__(self):
        return "Parameter containing:\n" + super().__repr__()

    __torch_function__ = None


class _BufferMeta(type):
    def __instancecheck__(self, instance):
        if self is Buffer:
            if isinstance(instance, Tensor) and getattr(instance, "_is_buffer", False):
                return True
        return super().__instancecheck__(instance)


class Buffer(Tensor, metaclass=_BufferMeta):
    r"""A kind of Tensor that should not be considered a model parameter (e.g. BatchNorm's running_mean).

    Assigning a Buffer to a Module attribute registers it as a buffer (persistent unless persistent=False).
    """

    def __new__(cls, data=None, *, persistent=True):
        if data is None:
            data = _default_data()
        t = U.alias(data, type(data))
        t.requires_grad_(data.requires_grad)
        t.persistent = persistent
        t._is_buffer = True
        return t


class UninitializedParameter(Parameter):
    """Placeholder for lazy modules (not materialised in ember yet)."""


def is_lazy(param):
    return isinstance(param, UninitializedParameter)
