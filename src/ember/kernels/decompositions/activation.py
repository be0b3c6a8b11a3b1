"""CompositeImplicitAutograd kernels of the activations (torch's Activation.cpp composites)."""

from ..._ops import ops

aten = ops.aten


def relu6(self):
    return aten.hardtanh(self, 0, 6)


def relu6_(self):
    return aten.hardtanh_(self, 0, 6)


SELU_ALPHA = 1.6732632423543772848170429916717
SELU_SCALE = 1.0507009873554804934193349852946


def selu(self):
    """torch's selu is elu with fixed alpha and scale (its node is EluBackward0)."""
    return aten.elu.default(self, SELU_ALPHA, SELU_SCALE)


def selu_(self):
    return aten.elu_.default(self, SELU_ALPHA, SELU_SCALE)


def prelu(self, weight):
    w = weight
    if self.dim() >= 2 and weight.numel() != 1:
        if weight.numel() != self._size[1]:
            raise RuntimeError(f"Mismatch of parameter numbers and input channel size. Found parameter numbers = "
                               f"{weight.numel()} and channel size = {self._size[1]}.")
        w = weight.reshape([-1] + [1] * (self.dim() - 2))
    return aten.where(self > 0, self, self * w)


# ------------------------------------------------------------------ rrelu (Activation.cpp / RreLU)
def _check_rrelu_bounds(lower, upper):
    if float(lower) > float(upper):
        raise RuntimeError("Lower bound should be less than or equal to the upper bound")


def rrelu(self, lower=0.125, upper=1.0 / 3, training=False, generator=None):
    """rrelu_with_noise with a fresh noise tensor: its grad_fn is RreluWithNoiseBackward0, as torch's."""
    _check_rrelu_bounds(lower, upper)
    noise = aten.empty_like.default(self, memory_format="contiguous_format")
    return aten.rrelu_with_noise.default(self, noise, lower, upper, training, generator)


def rrelu_(self, lower=0.125, upper=1.0 / 3, training=False, generator=None):
    _check_rrelu_bounds(lower, upper)
    noise = aten.empty_like.default(self, memory_format="contiguous_format")
    return aten.rrelu_with_noise_.default(self, noise, lower, upper, training, generator)


def rrelu_with_noise_backward(grad_output, self, noise, lower, upper, training, self_is_result):
    """Training: the slopes drawn in the forward (`noise`, 1 where the input was positive); eval: leaky_relu's
    backward at the mean slope. Written in ops, so it is differentiable again."""
    if training:
        return aten.mul.Tensor(noise, grad_output)
    slope = (float(lower) + float(upper)) / 2
    if self_is_result and slope < 0:
        raise RuntimeError("In-place leakyReLu backward calculation is triggered with a negative slope which is not "
                           "supported. This is caused by calling in-place forward function with a negative slope, "
                           "please call out-of-place version instead. File an issue at "
                           "https://github.com/pytorch/pytorch if you do require supporting in-place leakRelu "
                           "backward calculation with negative slope")
    return aten.where.self(aten.gt.Scalar(self, 0), grad_output, aten.mul.Scalar(grad_output, slope))
