"""Backward helpers of the element-wise ops (torch's FunctionsManual.cpp): pow, clamp, logit, maximum/fmax, xlogy, copysign."""

import numpy as np

from ..._core.tensor_impl import TensorImpl as Tensor
from ..._core.tls import state as _state
from ._common import _const, const_zeros_like, masked_grad, _aten, _needs_history

__all__ = ["clamp_backward", "clamp_backward_max", "clamp_backward_min", "copysign_tensor_self_backward",
           "fmax_backward", "logit_backward",
           "maximum_backward", "pow_backward_exponent", "pow_backward_self", "sigmoid_grad", "tanh_grad",
           "xlogy_self"]

_REAL_FLOAT = (np.dtype(np.float32), np.dtype(np.float64))


def _direct(grad, result):
    """(g, y) numpy arrays when a backward can be computed in numpy without recording anything: no
    graph (no create_graph), no dispatch mode, no forward-AD tangent, float32/float64 of one shape and
    dtype; else None (the formula then runs in ember ops)."""
    g, y = grad._logical_np(), result._np
    if (g is None or y is None or g.dtype not in _REAL_FLOAT or y.dtype != g.dtype or g.shape != y.shape
            or _state.mode_stack or _needs_history(grad, result) or "_fw_tangent" in grad.__dict__
            or "_fw_tangent" in result.__dict__):
        return None
    return g, y


def sigmoid_grad(grad, result):
    """torch's sigmoid_backward(grad, result) = grad * (result * (1 - result)): three dispatched ops
    (rsub, mul, mul) in ember ops, or two numpy passes when nothing is recorded (an LSTM step runs three
    sigmoids)."""
    d = _direct(grad, result)
    if d is not None:
        g, y = d
        r = np.empty(y.shape, y.dtype)          # (a 0-d result of a ufunc would be a numpy scalar)
        np.subtract(1, y, out=r)
        np.multiply(r, y, out=r)
        np.multiply(r, g, out=r)
        return Tensor._wrap_fresh(r, grad.dtype)
    return grad * (result * (1 - result))


def tanh_grad(grad, result):
    """torch's tanh_backward(grad, result) = grad * (1 - result^2), directly in numpy when nothing is
    recorded (see sigmoid_grad)."""
    d = _direct(grad, result)
    if d is not None:
        g, y = d
        r = np.empty(y.shape, y.dtype)
        np.multiply(y, y, out=r)
        np.subtract(1, r, out=r)
        np.multiply(r, g, out=r)
        return Tensor._wrap_fresh(r, grad.dtype)
    return grad * (1 - result * result)


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


def copysign_tensor_self_backward(grad, self, result):
    """grad * (result / self), 0 where self == 0 (torch's copysign_tensor_self_backward)."""
    return masked_grad((self != 0), grad * (result / self))
