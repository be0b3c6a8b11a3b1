"""cpu _softmax/_log_softmax: numerically stable (subtract the max along dim first)."""
import numpy as np

from ..._core.strides import wrap_dim
from ..meta.nn_common import acc, wrap
from ..meta.softmax import softmax_spec


def _shifted(self, dim):
    x = acc(self)
    if x.ndim == 0:
        return x - x, 0
    d = wrap_dim(dim, x.ndim)
    m = np.max(x, axis=d, keepdims=True) if x.size else 0
    m = np.where(np.isfinite(m), m, 0)
    return x - m, d


def _softmax(self, dim, half_to_float):
    shape, dt = softmax_spec(self, dim, half_to_float)
    z, d = _shifted(self, dim)
    e = np.exp(z)
    return wrap(e / np.sum(e, axis=d, keepdims=True), dt)


def _log_softmax(self, dim, half_to_float):
    shape, dt = softmax_spec(self, dim, half_to_float, "log_softmax")
    z, d = _shifted(self, dim)
    return wrap(z - np.log(np.sum(np.exp(z), axis=d, keepdims=True)), dt)
