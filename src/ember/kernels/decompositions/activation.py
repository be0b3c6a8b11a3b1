"""CompositeImplicitAutograd kernels of the activations (torch's Activation.cpp composites)."""

from ..._ops import ops

aten = ops.aten


def relu6(self):
    return aten.hardtanh(self, 0, 6)


def relu6_(self):
    return aten.hardtanh_(self, 0, 6)


def prelu(self, weight):
    w = weight
    if self.dim() >= 2 and weight.numel() != 1:
        if weight.numel() != self._size[1]:
            raise RuntimeError(f"Mismatch of parameter numbers and input channel size. Found parameter numbers = "
                               f"{weight.numel()} and channel size = {self._size[1]}.")
        w = weight.reshape([-1] + [1] * (self.dim() - 2))
    return aten.where(self > 0, self, self * w)
