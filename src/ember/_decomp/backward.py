"""torch._decomp.decompositions, backward ops of pointwise and row functions: softmax and log_softmax, gelu,
dropout and mse_loss backwards, written in pointwise ops and row sums (core aten)."""
import math

from ember._ops import ops

from .registry import register_decomposition

aten = ops.aten


@register_decomposition(aten._softmax_backward_data.default)
def _softmax_backward_data(grad_output, output, dim, input_dtype):
    inner = aten.sum.dim_IntList(aten.mul.Tensor(grad_output, output), [dim], True)
    return aten.mul.Tensor(output, aten.sub.Tensor(grad_output, inner))


@register_decomposition(aten._log_softmax_backward_data.default)
def _log_softmax_backward_data(grad_output, output, dim, input_dtype):
    total = aten.sum.dim_IntList(grad_output, [dim], True)
    return aten.sub.Tensor(grad_output, aten.mul.Tensor(aten.exp.default(output), total))


@register_decomposition(aten.gelu_backward.default)
def gelu_backward(grad_output, self, *, approximate="none"):
    if approximate == "tanh":
        k = math.sqrt(2 / math.pi)
        x2 = aten.mul.Tensor(self, self)
        inner = aten.mul.Tensor(aten.add.Tensor(self, aten.mul.Tensor(aten.mul.Tensor(x2, self), 0.044715)), k)
        t = aten.tanh.default(inner)
        left_d = aten.mul.Tensor(aten.add.Tensor(t, 1), 0.5)
        tanh_d = aten.rsub.Scalar(aten.mul.Tensor(t, t), 1)
        inner_d = aten.mul.Tensor(aten.add.Tensor(aten.mul.Tensor(x2, 3 * 0.044715), 1), k)
        right_d = aten.mul.Tensor(aten.mul.Tensor(aten.mul.Tensor(self, 0.5), tanh_d), inner_d)
        return aten.mul.Tensor(grad_output, aten.add.Tensor(left_d, right_d))
    cdf = aten.mul.Tensor(aten.add.Tensor(aten.erf.default(aten.mul.Tensor(self, 1 / math.sqrt(2))), 1), 0.5)
    pdf = aten.mul.Tensor(aten.exp.default(aten.mul.Tensor(aten.mul.Tensor(self, self), -0.5)),
                          1 / math.sqrt(2 * math.pi))
    return aten.mul.Tensor(grad_output, aten.add.Tensor(cdf, aten.mul.Tensor(self, pdf)))


@register_decomposition(aten.native_dropout_backward.default)
def native_dropout_backward(grad_output, mask, scale):
    return aten.mul.Tensor(aten.mul.Tensor(grad_output, mask), scale)


@register_decomposition(aten.mse_loss_backward.default)
def mse_loss_backward(grad_output, self, target, reduction):
    norm = 2 / self.numel() if reduction == 1 else 2
    return aten.mul.Tensor(aten.mul.Tensor(aten.sub.Tensor(self, target), grad_output), norm)
