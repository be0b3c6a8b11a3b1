"""CompositeImplicitAutograd kernels of softmax and log_softmax (torch's SoftMax.cpp wrappers over _softmax)."""

from ..._ops import ops

aten = ops.aten


def softmax(self, dim, dtype=None):
    x = self if dtype is None else aten.to.dtype(self, dtype)
    return aten._softmax.default(x, dim, False)


def log_softmax(self, dim, dtype=None):
    x = self if dtype is None else aten.to.dtype(self, dtype)
    return aten._log_softmax.default(x, dim, False)
