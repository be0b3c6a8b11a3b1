"""CompositeImplicitAutograd kernels of dropout (torch's Dropout.cpp)."""

import math
from ..._ops import ops

aten = ops.aten


def dropout(input, p, train):
    _check_p(p)
    if not train or p == 0 or input.numel() == 0:
        return input
    return aten.native_dropout.default(input, p, train)[0]


def _check_p(p):
    if not 0 <= p <= 1:
        raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {p}")


def _feature_noise(input, p, feature, alpha):
    _check_p(p)
    if feature and input.dim() < 2:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    shape = list(input._size[:2]) + [1] * (input.dim() - 2) if feature else list(input._size)
    noise = aten.bernoulli_.float(aten.new_empty.default(input, shape), 1 - p)
    if not alpha:
        return aten.mul.Tensor(input, aten.div.Scalar(noise, 1 - p)) if p < 1 else aten.mul.Tensor(input, noise)
    al = 1.7580993408473766
    a = 1.0 / math.sqrt((al * al * p + 1) * (1 - p))
    b = aten.add.Scalar(aten.mul.Scalar(aten.add.Scalar(noise, -1), al * a), al * a * p)
    return aten.add.Tensor(aten.mul.Tensor(input, aten.mul.Scalar(noise, a)), b)


def _dropout_variant(feature, alpha):
    def f(input, p, train):
        if not train or p == 0 or input.numel() == 0:
            _check_p(p)
            return input
        if p == 1:
            return aten.mul.Scalar(input, 0)
        return _feature_noise(input, p, feature, alpha)
    return f


feature_dropout = _dropout_variant(True, False)


alpha_dropout = _dropout_variant(False, True)


feature_alpha_dropout = _dropout_variant(True, True)


def _in_place(functional):
    """torch's dropout_ family: the same noise as the functional form, written into `self` (no-op in eval)."""
    def f(self, p, train):
        if not train or p == 0 or self.numel() == 0:
            _check_p(p)
            return self
        return aten.copy_.default(self, functional(self, p, train))
    f.__name__ = functional.__name__ + "_"
    return f


dropout_ = _in_place(dropout)


feature_dropout_ = _in_place(feature_dropout)


alpha_dropout_ = _in_place(alpha_dropout)


feature_alpha_dropout_ = _in_place(feature_alpha_dropout)
