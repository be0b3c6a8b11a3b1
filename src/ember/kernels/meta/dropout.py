"""Meta function for native_dropout: output like input plus a bool keep-mask."""
from ..._core import dtype as D
from ..common import alloc
from .softmax import _like


def dropout_check(p, train):
    if train is not False and not 0 <= p <= 1:
        raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {p}")


def native_dropout(input, p, train):
    dropout_check(p, train)
    return alloc(input._size, input.dtype, input.device), alloc(input._size, D.bool_, input.device)


def native_dropout_backward(grad_output, mask, scale):
    return _like(grad_output)
