"""Helpers for native/derivatives_nn_double.yaml: the derivatives of the nn backward kernels
(convolution_backward, _softmax_backward_data, native_layer_norm_backward, ...), so that second
order (gradient penalties, Hessian-vector products) flows through nn models.

The linear backward kernels (convolution, softmax, pooling, losses) get closed forms in ember ops.
The normalisation backwards are differentiated through a composite: their first-order backward
rewritten in ember ops (`_*_norm_backward_composite`), whose vector-Jacobian product a nested
autograd.grad computes. The composite reads its arguments as `primal + z` with `z` a zero leaf, so the
product is taken w.r.t. `z` (the original tensors need not require grad) while a graph recorded under
create_graph still reaches the original tensors: the double backward is itself differentiable."""
import numpy as np

from .._core.tls import state
from .engine import _add    # None-tolerant sum of grads, as the engine accumulates them
from .formulas import _aten, zeros_like


def _numel(shape):
    n = 1
    for s in shape:
        n *= int(s)
    return n


# ---- softmax / log_softmax ---------------------------------------------------------------------

def softmax_double_backward(grad, grad_output, output, dim):
    """d/d(output) of <grad, output * (grad_output - sum(grad_output * output))>."""
    s = (grad_output * output).sum(dim, keepdim=True)
    return grad * (grad_output - s) - grad_output * (grad * output).sum(dim, keepdim=True)


def softmax_backward_data_(grad, output, dim):
    """The softmax Jacobian is symmetric: the grad_output derivative is the same backward."""
    return output * (grad - (grad * output).sum(dim, keepdim=True))


def log_softmax_double_backward_grad_output(grad, output, dim):
    """d/d(grad_output) of <grad, grad_output - exp(output) * sum(grad_output)>."""
    return grad - (grad * output.exp()).sum(dim, keepdim=True)


def log_softmax_double_backward_output(grad, grad_output, output, dim):
    """d/d(output) of <grad, grad_output - exp(output) * sum(grad_output)>."""
    return -(grad * output.exp()) * grad_output.sum(dim, keepdim=True)


# ---- convolution -------------------------------------------------------------------------------

def _at(grads, i):
    """grads[i], or None when output i got no grad (or the node has fewer outputs: an undefined bias grad)."""
    return grads[i] if i < len(grads) else None


def convolution_double_backward(grads, grad_output, input, weight, stride, padding, dilation, transposed,
                                output_padding, groups, mask):
    """convolution_backward is bilinear: gI(go, w), gW(go, x), gb(go). Its derivatives:
    go <- conv(ggI, w) + conv(x, ggW) + ggb;  w <- weight grad of conv(ggI, w) against go;
    x <- input grad of conv(x, ggW) against go."""
    A = _aten()
    ggI, ggW, ggb = _at(grads, 0), _at(grads, 1), _at(grads, 2)

    def conv(x, w):
        return A.convolution.default(x, w, None, stride, padding, dilation, transposed, output_padding, groups)

    g_go = g_in = g_w = None
    if mask[0]:
        if ggI is not None:
            g_go = conv(ggI, weight)
        if ggW is not None:
            g_go = _add(g_go, conv(input, ggW))
        if ggb is not None:
            g_go = _add(g_go, ggb.reshape([1, -1] + [1] * (grad_output.dim() - 2)))
        if g_go is not None and g_go._size != grad_output._size:
            g_go = g_go.expand(grad_output._size)
    if mask[1] and ggW is not None:
        g_in = A.convolution_backward.default(grad_output, input, ggW, None, stride, padding, dilation, transposed,
                                              output_padding, groups, [True, False, False])[0]
    if mask[2] and ggI is not None:
        g_w = A.convolution_backward.default(grad_output, ggI, weight, None, stride, padding, dilation, transposed,
                                             output_padding, groups, [False, True, False])[1]
    return g_go, g_in, g_w


# ---- pooling -----------------------------------------------------------------------------------

def max_pool_double_backward(grad, indices):
    """max_pool2d_with_indices_backward scatters grad_output to the argmax positions: its transpose
    gathers from them (indices are flat over the last two dims)."""
    g = grad.flatten(-2)
    idx = indices.flatten(-2)
    if g.dim() != idx.dim():
        g = g.expand(list(idx._size[:-1]) + [g._size[-1]])
    return g.gather(-1, idx).reshape(indices._size)


# ---- embedding ---------------------------------------------------------------------------------

def embedding_double_backward(grad, indices, padding_idx, scale_grad_by_freq):
    """Transpose of the row scatter-add: gather the rows at `indices` (zero at padding_idx)."""
    if scale_grad_by_freq:
        # the frequency-scaled first derivative is not the gradient of any function (the scaling
        # also reaches second-order paths through embedding's own backward), so no formula here
        # gives right second derivatives: refuse rather than return wrong ones
        raise RuntimeError("the derivative for 'embedding_dense_backward' is not implemented with "
                           "scale_grad_by_freq=True: the frequency-scaled gradient has no second derivative; "
                           "use scale_grad_by_freq=False for double backward")
    from .formulas import _const
    idx = indices.reshape(-1)
    rows = grad.index_select(0, idx)
    if padding_idx is not None and padding_idx >= 0:
        keep = (idx._np != padding_idx).astype(np.float64)
        rows = rows * _const(keep.reshape(-1, 1), grad.dtype)
    return rows.reshape(list(indices._size) + [grad._size[-1]])


# ---- losses with a backward kernel -------------------------------------------------------------

MEAN = 1     # reduction enum: none 0, mean 1, sum 2


def mse_loss_double_backward_grad_output(grad, self, target, reduction):
    d = (self - target) * grad * 2
    if reduction == 0:
        return d
    d = d.sum()
    return d / max(_numel(self._size), 1) if reduction == MEAN else d


def mse_loss_double_backward_self(grad, grad_output, self, reduction):
    g = grad * grad_output * 2
    return g / max(_numel(self._size), 1) if reduction == MEAN else g


def nll_loss_double_backward_grad_output(grad, target, weight, reduction, ignore_index, two_d=False):
    A = _aten()
    op = A.nll_loss2d_forward.default if two_d else A.nll_loss_forward.default
    return op(grad, target, weight, reduction, ignore_index)[0]


# ---- normalisation: double backward through a composite first-order backward --------------------

def _vjp_composite(fn, primals, cotangents):
    """Gradients of sum_i <cotangents[i], fn(*primals)[i]> w.r.t. each primal (None for None
    primals or unused ones), differentiable when the outer backward records a graph."""
    from .._grad_mode import enable_grad
    from . import grad as _grad
    create = state.grad_enabled
    pairs_c = [c for c in cotangents]
    with enable_grad():
        zs, ins, where = [], [], []
        for i, p in enumerate(primals):
            if p is None:
                ins.append(None)
                continue
            z = zeros_like(p).requires_grad_()
            zs.append(z)
            where.append(i)
            ins.append(p + z)
        outs = fn(*ins)
        used = [(o, c) for o, c in zip(outs, pairs_c) if o is not None and c is not None and o.requires_grad]
        res = [None] * len(primals)
        if not used:
            return res
        gs = _grad([o for o, _ in used], zs, [c for _, c in used], create_graph=create, allow_unused=True)
    for i, g in zip(where, gs):
        res[i] = g
    return res


def _recovered_rstd(var, rstd):
    """(var + eps)^-1/2 with eps read back from the saved rstd (the backward kernels are not given eps):
    equal to the saved rstd, with var's derivative at every order."""
    from .formulas import _const
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
