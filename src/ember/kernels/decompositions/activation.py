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
