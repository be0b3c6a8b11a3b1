"""Backward helpers of the normalisations (torch's FunctionsManual.cpp): batch_norm's first backward and
the double backward of layer/batch/group norm through a composite first-order backward."""

import numpy as np

from ._common import _aten, _numel, _at, _vjp_composite

__all__ = ["batch_norm_backward_", "batch_norm_double_backward", "group_norm_double_backward",
           "layer_norm_double_backward"]


def batch_norm_backward_(grad, input, weight, running_mean, running_var, save_mean, save_invstd, training, eps,
                         mask):
    if training:                # the running stats are updated in place and not read in training mode
        running_mean = running_var = None
    return _aten().native_batch_norm_backward.default(grad, input, weight, running_mean, running_var, save_mean,
                                                      save_invstd, training, eps, list(mask))


def _recovered_rstd(var, rstd):
    """(var + eps)^-1/2 with eps read back from the saved rstd (the backward kernels are not given eps):
    equal to the saved rstd, with var's derivative at every order."""
    from ._common import _const
    eps = 1.0 / np.square(rstd._np.astype(np.float64)) - var._np.astype(np.float64)
    return (var + _const(eps, var.dtype)).rsqrt()


def _layer_norm_backward_composite(normalized_shape, rstd_saved):
    k = len(normalized_shape)

    def fn(go, x, w):
        axes = list(range(x.dim() - k, x.dim()))
        lead = list(range(x.dim() - k))
        n = _numel(normalized_shape)
        xc = x - x.mean(axes, keepdim=True)
        var = (xc * xc).mean(axes, keepdim=True)
        r = _recovered_rstd(var, rstd_saved.reshape(var._size))
        xhat = xc * r
        g = go * w if w is not None else go
        dx = r / n * (g * n - g.sum(axes, keepdim=True) - xhat * (g * xhat).sum(axes, keepdim=True))
        dw = (go * xhat).sum(lead) if w is not None else None
        db = go.sum(lead) if lead else go
        return dx, dw, db
    return fn


def layer_norm_double_backward(grads, grad_out, input, normalized_shape, rstd, weight, mask):
    fn = _layer_norm_backward_composite(normalized_shape, rstd)
    return _vjp_composite(fn, (grad_out, input, weight), [_at(grads, i) for i in range(3)])


def batch_norm_double_backward(grads, grad_out, input, weight, running_mean, running_var, train, eps, mask):
    c = input._size[1]
    bshape = [1, c] + [1] * (input.dim() - 2)
    axes = [0] + list(range(2, input.dim()))

    def fn(go, x, w):
        wb = w.reshape(bshape) if w is not None else None
        if train:
            m = _numel(x._size) // c
            xc = x - x.mean(axes, keepdim=True)
            r = ((xc * xc).mean(axes, keepdim=True) + eps).rsqrt()
            xhat = xc * r
            g = go * wb if wb is not None else go
            dx = r / m * (g * m - g.sum(axes, keepdim=True) - xhat * (g * xhat).sum(axes, keepdim=True))
        else:
            r = (running_var.reshape(bshape) + eps).rsqrt()
            xhat = (x - running_mean.reshape(bshape)) * r
            dx = (go * wb if wb is not None else go) * r
        dw = (go * xhat).sum(axes)
        db = go.sum(axes)
        return dx, dw, db
    return _vjp_composite(fn, (grad_out, input, weight), [_at(grads, i) for i in range(3)])


def group_norm_double_backward(grads, grad_out, input, rstd, weight, N, C, group, mask):
    N, C, group = int(N), int(C), int(group)

    def fn(go, x, w):
        xs = x.reshape(N, group, -1)
        k = xs._size[2]
        xc = xs - xs.mean(-1, keepdim=True)
        var = (xc * xc).mean(-1, keepdim=True)
        r = _recovered_rstd(var, rstd.reshape(var._size))
        xhat = (xc * r).reshape(N, C, -1)
        go3 = go.reshape(N, C, -1)
        g = go3 * w.reshape(1, C, 1) if w is not None else go3
        gg, xh = g.reshape(N, group, -1), xhat.reshape(N, group, -1)
        dx = r / k * (gg * k - gg.sum(-1, keepdim=True) - xh * (gg * xh).sum(-1, keepdim=True))
        dw = (go3 * xhat).sum([0, 2]) if w is not None else None
        db = go3.sum([0, 2])
        return dx.reshape(x._size), dw, db
    return _vjp_composite(fn, (grad_out, input, weight), [_at(grads, i) for i in range(3)])
