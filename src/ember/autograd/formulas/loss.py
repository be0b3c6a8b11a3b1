"""Backward helpers of the losses (torch's FunctionsManual.cpp, loss part): the losses without a backward
kernel, and the double backward of the ones with a kernel (mse_loss, nll_loss)."""

from ._common import const_zeros_like, const_ones_like, sum_to, _aten, _numel
from ..._core.strides import same_shape

__all__ = ["bce_with_logits_backward", "bce_with_logits_target_backward", "binary_cross_entropy_backward",
           "binary_cross_entropy_target_backward", "huber_loss_backward",
           "l1_loss_backward", "mse_loss_double_backward_grad_output",
           "mse_loss_double_backward_self", "nll_loss_double_backward_grad_output", "smooth_l1_loss_backward",
           "soft_margin_loss_backward"]


_MEAN = 1     # reduction enum: none 0, mean 1, sum 2


def _reduced(grad, g, reduction):
    """Elementwise d(loss)/dx `g` times the incoming grad, for a loss reduced by `reduction`."""
    if reduction == _MEAN:
        return g * grad / max(_numel(g._size), 1)
    return g * grad


def _to(g, t):
    return sum_to(g, t._size) if not same_shape(g._size, t._size) else g


def l1_loss_backward(grad, self, target, reduction):
    return _to(_reduced(grad, (self - target).sign(), reduction), self)


def smooth_l1_loss_backward(grad, self, target, reduction, beta):
    d = self - target
    g = d.sign() if beta == 0 else (d / beta).clamp(-1.0, 1.0)
    return _to(_reduced(grad, g, reduction), self)


def huber_loss_backward(grad, self, target, reduction, delta):
    return _to(_reduced(grad, (self - target).clamp(-delta, delta), reduction), self)


def soft_margin_loss_backward(grad, self, target, reduction):
    z = -(self * target)
    return _to(_reduced(grad, -target * z.sigmoid(), reduction), self)


def _w(g, weight):
    return g if weight is None else g * weight


def binary_cross_entropy_backward(grad, self, target, weight, reduction):
    g = (self - target) / ((1 - self) * self).clamp(min=1e-12)
    return _to(_reduced(grad, _w(g, weight), reduction), self)


def binary_cross_entropy_target_backward(grad, self, target, weight, reduction):
    g = (1 - self).log().clamp(min=-100.0) - self.log().clamp(min=-100.0) + target * 0
    return _to(_reduced(grad, _w(g, weight), reduction), target)


def bce_with_logits_backward(grad, self, target, weight, pos_weight, reduction):
    s = self.sigmoid()
    if pos_weight is None:
        g = s - target
    else:
        pt = pos_weight * target
        g = s * (1 - target + pt) - pt
    return _to(_reduced(grad, _w(g, weight), reduction), self)


def bce_with_logits_target_backward(grad, self, target, weight, pos_weight, reduction):
    from ..._generated.nn_functions import softplus
    if pos_weight is None:
        g = -self + target * 0
    else:
        g = pos_weight * softplus(-self) - softplus(self) + target * 0
    return _to(_reduced(grad, _w(g, weight), reduction), target)


def mse_loss_double_backward_grad_output(grad, self, target, reduction):
    d = (self - target) * grad * 2
    if reduction == 0:
        return d
    d = d.sum()
    return d / max(_numel(self._size), 1) if reduction == _MEAN else d


def mse_loss_double_backward_self(grad, grad_output, self, reduction):
    g = grad * grad_output * 2
    return g / max(_numel(self._size), 1) if reduction == _MEAN else g


def nll_loss_double_backward_grad_output(grad, target, weight, reduction, ignore_index, two_d=False):
    A = _aten()
    op = A.nll_loss2d_forward.default if two_d else A.nll_loss_forward.default
    return op(grad, target, weight, reduction, ignore_index)[0]
