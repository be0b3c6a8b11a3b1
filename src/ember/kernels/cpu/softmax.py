"""cpu _softmax/_log_softmax: numerically stable (subtract the max along dim first), computed in
place in the output, split across threads along another dim for large inputs."""
import numpy as np

from ..._core.strides import wrap_dim
from ..meta.nn_common import acc, split_run, wrap
from ..meta.softmax import softmax_spec


def _run(self, dim, log):
    x = acc(self)
    out = np.empty(x.shape, x.dtype)
    if x.ndim == 0:
        out[...] = 0.0 if log else 1.0
        if np.isnan(x):
            out[...] = np.nan
        return out
    d = wrap_dim(dim, x.ndim)

    def chunk(xc, oc):
        if xc.size == 0:
            return
        m = np.max(xc, axis=d, keepdims=True)
        m[~np.isfinite(m)] = 0
        np.subtract(xc, m, out=oc)
        if log:
            oc -= np.log(np.sum(np.exp(oc), axis=d, keepdims=True))
        else:
            np.exp(oc, out=oc)
            oc /= np.sum(oc, axis=d, keepdims=True)
    axes = [a for a in range(x.ndim) if a != d and x.shape[a] > 1]
    split_run(chunk, [x, out], axes[0]) if axes else chunk(x, out)
    return out


def _softmax(self, dim, half_to_float):
    shape, dt = softmax_spec(self, dim, half_to_float)
    return wrap(_run(self, dim, False), dt)


def _log_softmax(self, dim, half_to_float):
    shape, dt = softmax_spec(self, dim, half_to_float, "log_softmax")
    return wrap(_run(self, dim, True), dt)


def _softmax_backward_data(grad_output, output, dim, input_dtype):
    g, y = grad_output._np, output._np
    d = wrap_dim(dim, max(y.ndim, 1)) if y.ndim else None
    if y.ndim == 0:
        return wrap(np.zeros_like(g), grad_output.dtype)
    gy = g * y
    gy -= y * np.sum(gy, axis=d, keepdims=True)
    return wrap(gy, grad_output.dtype)


def _log_softmax_backward_data(grad_output, output, dim, input_dtype):
    g, y = grad_output._np, output._np
    if y.ndim == 0:
        return wrap(np.zeros_like(g), grad_output.dtype)
    d = wrap_dim(dim, y.ndim)
    return wrap(g - np.exp(y) * np.sum(g, axis=d, keepdims=True), grad_output.dtype)
