"""cpu native_dropout: a keep-mask drawn from the default ember generator (so ember.manual_seed
makes it reproducible), output = input * mask / (1 - p)."""
import numpy as np

from ..._core import dtype as D
from ..._random import _gen
from ..meta.dropout import dropout_check
from .runtime.arrays import wrap


def native_dropout(input, p, train):
    dropout_check(p, train)
    x = input._np
    if train is False:
        return wrap(x.copy(), input.dtype), wrap(np.ones(x.shape, bool), D.bool_)
    mask = _gen(None).random(x.shape) < (1 - p)
    scale = 0.0 if p == 1 else 1.0 / (1 - p)
    return wrap(x * mask * np.asarray(scale, x.dtype), input.dtype), wrap(mask, D.bool_)


def native_dropout_backward(grad_output, mask, scale):
    return wrap(grad_output._np * mask._np * np.asarray(scale, grad_output._np.dtype), grad_output.dtype)
