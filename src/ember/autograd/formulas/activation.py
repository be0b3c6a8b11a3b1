"""Backward helpers of the activation ops (torch's FunctionsManual.cpp): relu, gelu, silu, mish, softplus,
elu/selu/celu, hardswish/hardsigmoid, glu."""

import numpy as np

from ..._core.tensor_impl import TensorImpl as Tensor
from ..._core.tls import state as _state
from ._common import const_zeros_like, masked_grad, _needs_history, _aten

__all__ = ["HARDSIGMOID_SLOPE", "SELU_ALPHA", "SELU_SCALE", "elu_backward", "gelu_double_backward",
           "glu_backward", "hardswish_backward", "mish_backward", "relu_grad", "silu_backward",
           "softplus_backward"]


def relu_grad(grad, result):
    """torch's threshold_backward(grad, result, 0): 0 where result <= 0, else grad (a NaN result passes
    its grad on). Without a graph to record, one C pass over contiguous float arrays."""
    g, r = grad._logical_np(), result._np
    if g is not None and r is not None and not _needs_history(grad, result) and "_fw_tangent" not in grad.__dict__ \
            and not _state.mode_stack:
        gi = _relu_c().relu_backward(g, r)
        if gi is not None:
            return Tensor._wrap_fresh(gi, grad.dtype)
        if g.shape == r.shape and g.dtype == r.dtype:
            return Tensor._wrap_np(np.where(r <= 0, g.dtype.type(0), g), grad.dtype)
    return masked_grad((result <= 0).logical_not(), grad)


def _relu_c():
    from ...kernels.cpu import activation
    globals()["_relu_c"] = lambda: activation      # later calls skip the import machinery
    return activation


_SQRT_2PI = float(np.sqrt(2.0 * np.pi))


def gelu_double_backward(ggI, grad_output, self, approximate):
    """gelu_backward's derivative for self: d/dself of grad_output * GELU'(self), times ggI (the gradient
    reaching gelu_backward's output). gelu_backward itself is a fused op (kernels/cpu/activations.py)."""
    if approximate == "tanh":
        k = float(np.sqrt(2.0 / np.pi))
        c = 0.044715
        du = (self * self * (3 * c) + 1) * k                        # d/dx of u = k (x + c x^3)
        t = ((self + self * self * self * c) * k).tanh()
        d2 = (1 - t * t) * (du - self * t * du * du + self * self * (3 * c * k))
        return ggI * grad_output * d2
    pdf = (self * self * -0.5).exp() / _SQRT_2PI
    return ggI * grad_output * pdf * (2 - self * self)


def silu_backward(grad, self):
    s = self.sigmoid()
    return grad * s * (1 + self * (1 - s))


def mish_backward(grad, self):
    from ..._generated.nn_functions import softplus
    t = softplus(self).tanh()
    return grad * (t + self * self.sigmoid() * (1 - t * t))


def softplus_backward(grad, self, beta, threshold):
    z = self * beta
    return _aten().where.self(z > threshold, grad, grad * z.sigmoid())


def elu_backward(grad, self, alpha, scale, input_scale):
    neg = grad * (self * input_scale).exp() * (input_scale * alpha * scale)
    return _aten().where.self(self > 0, grad * scale, neg)


HARDSIGMOID_SLOPE = 0.1666666716337204   # torch's kernel multiplies by float(1/6) in every dtype


SELU_ALPHA = 1.6732632423543772848170429916717


SELU_SCALE = 1.0507009873554804934193349852946


def hardswish_backward(grad, self):
    mid = grad * (self / 3 + 0.5)
    return _aten().where.self(self < -3, const_zeros_like(grad), _aten().where.self(self <= 3, mid, grad))


def glu_backward(grad, self, dim):
    a, b = self.chunk(2, dim)
    sb = b.sigmoid()
    from ..._generated.functions import cat
    return cat([grad * sb, grad * a * sb * (1 - sb)], dim)
