"""Backward helpers of the sorting ops (torch's FunctionsManual.cpp): msort."""

from .reduction import value_selecting_backward

__all__ = ["msort_backward"]


def msort_backward(grad, self):
    from ..._generated.functions import sort
    return value_selecting_backward(grad, 0, sort(self.detach(), dim=0, stable=True)[1], self._size, True)
