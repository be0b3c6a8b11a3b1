"""cpu native_layer_norm / native_batch_norm / native_group_norm: vectorised mean/var over the
normalised axes; batch_norm updates running stats in place (unbiased variance) when training."""
import numpy as np

from ..._core import dtype as D

from ..meta import normalization as M
from ..meta.nn_common import acc, wrap, np_or_none


def _affine(y, weight, bias, shape):
    if weight is not None:
        y = y * acc(weight).reshape(shape)
    if bias is not None:
        y = y + acc(bias).reshape(shape)
    return y


def native_layer_norm(input, normalized_shape, weight, bias, eps):
    shape, stat, axis = M.layer_norm_spec(input, normalized_shape, weight, bias)
    x = acc(input)
    axes = tuple(range(axis, x.ndim))
    mean = x.mean(axis=axes, keepdims=True) if x.size else np.zeros(stat, x.dtype)
    var = ((x - mean) ** 2).mean(axis=axes, keepdims=True) if x.size else np.zeros(stat, x.dtype)
    rstd = 1.0 / np.sqrt(var + eps)
    y = _affine((x - mean) * rstd, weight, bias, x.shape[axis:])
    dt = input.dtype
    return wrap(y, dt), wrap(mean, dt), wrap(rstd, dt)


def native_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps):
    shape, stat = M.batch_norm_spec(input, weight, bias, running_mean, running_var, training)
    x = acc(input)
    c = x.shape[1]
    axes = (0,) + tuple(range(2, x.ndim))
    bshape = (1, c) + (1,) * (x.ndim - 2)
    if training:
        mean = x.mean(axis=axes)
        var = x.var(axis=axes)
        n = x.size // c
        if running_mean is not None:
            rm = running_mean._np
            rm[...] = (1 - momentum) * rm + momentum * mean
        if running_var is not None:
            rv = running_var._np
            rv[...] = (1 - momentum) * rv + momentum * var * (n / max(n - 1, 1))
        invstd = 1.0 / np.sqrt(var + eps)
        y = (x - mean.reshape(bshape)) * invstd.reshape(bshape)
        save_mean, save_invstd = mean, invstd
    else:
        rm, rv = acc(running_mean), acc(running_var)
        y = (x - rm.reshape(bshape)) / np.sqrt(rv.reshape(bshape) + eps)
        save_mean = save_invstd = np.empty((0,), x.dtype)
    y = _affine(y, weight, bias, bshape)
    st = D.float32 if input.dtype in (D.float16, D.bfloat16) else input.dtype
    return wrap(y, input.dtype), wrap(save_mean, st), wrap(save_invstd, st)


def native_group_norm(input, weight, bias, N, C, HxW, group, eps):
    M.group_norm_spec(input, weight, bias, N, C, HxW, group)
    x = acc(input)
    g = x.reshape(N, group, -1)
    mean = g.mean(axis=2) if g.size else np.zeros((N, group), x.dtype)
    var = g.var(axis=2) if g.size else np.zeros((N, group), x.dtype)
    rstd = 1.0 / np.sqrt(var + eps)
    y = ((g - mean[..., None]) * rstd[..., None]).reshape(x.shape)
    y = _affine(y, weight, bias, (1, C) + (1,) * (x.ndim - 2))
    dt = input.dtype
    return wrap(y, dt), wrap(mean, dt), wrap(rstd, dt)
