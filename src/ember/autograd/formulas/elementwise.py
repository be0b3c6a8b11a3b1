"""Backward helpers of the element-wise ops (torch's FunctionsManual.cpp): pow, clamp, logit, maximum/fmax, xlogy."""

import numpy as np

from ..._core.tensor_impl import TensorImpl as Tensor
from ._common import _const, const_zeros_like, masked_grad, _aten

__all__ = ["clamp_backward", "clamp_backward_max", "clamp_backward_min", "fmax_backward", "logit_backward",
           "maximum_backward", "pow_backward_exponent", "pow_backward_self", "xlogy_self"]


def pow_backward_self(grad, self, exponent):
    if not isinstance(exponent, Tensor):
        if exponent == 0:
            return const_zeros_like(grad)
        return grad * (exponent * self.pow(exponent - 1))
    return masked_grad(exponent != 0, grad * (exponent * self.pow(exponent - 1)))


def pow_backward_exponent(grad, self, exponent, result):
    if not isinstance(self, Tensor):
        if self == 0:
            return masked_grad(exponent < 0, grad * result * float("-inf"))  # torch: 0 where exp >= 0
        return grad * result * float(np.log(self))
    cond = (self == 0) & (exponent >= 0)
    return masked_grad(cond.logical_not(), grad * result * self.log())


def clamp_backward(grad, self, min, max):
    mask = None
    if min is not None:
        mask = self >= min
    if max is not None:
        m2 = self <= max
        mask = m2 if mask is None else mask & m2
    if mask is None:
        return grad
    return masked_grad(mask, grad)


def clamp_backward_min(grad, self, min, max):
    if min is None:
        return None
    m = self < min
    if max is not None:
        m = m & (min < max)
    return masked_grad(m, grad)


def clamp_backward_max(grad, self, min, max):
    if max is None:
        return None
    m = self > max
    if min is not None:
        m = m | (max < min)
    return masked_grad(m, grad)


def logit_backward(grad, self, eps):
    if eps is None:
        lo, hi = 0.0, 1.0
        out = grad / (self * (1 - self))
        bad = (self < lo) | (self > hi)
        return _aten().where.self(bad, _const(np.full((), np.nan), grad.dtype), out)
    out = grad / (self * (1 - self))
    return masked_grad(((self < eps) | (self > 1 - eps)).logical_not(), out)


def maximum_backward(grad, self, other, which):
    half = _aten().where.self(self == other, grad / 2, grad)
    return masked_grad((self < other).logical_not() if which == 0 else (self > other).logical_not(), half)


def fmax_backward(grad, self, other, which, is_max=True):
    cmp = (self >= other) if is_max else (self <= other)
    keep_other = cmp | other.isnan()
    return masked_grad(keep_other if which == 0 else keep_other.logical_not(), grad)


def xlogy_self(grad, self, other):
    from ..._generated.functions import xlogy
    return grad * xlogy((self != 0).to(grad.dtype), other)
