"""Backward helpers of dropout (torch's derivatives.yaml native_dropout entry): the grad scale."""

__all__ = ["dropout_scale"]


def dropout_scale(p, train):
    if train is None or train:
        return 0.0 if p == 1 else 1.0 / (1.0 - p)
    return 1.0
