"""torch._decomp.decompositions, the normalization family: var_mean, batch norm, group norm and their
backwards, layer norm's backward, written in reductions, pointwise ops and views (core aten).

Each function takes the op's arguments as its schema names them and calls `ember.ops.aten.*` only; an input
these formulas do not cover (complex numbers) returns NotImplemented, so make_fx keeps the op as it is.
"""
import math

from ember._ops import ops

from .registry import register_decomposition

aten = ops.aten


def _reduce_dims(x, dim):
    if dim is None:
        return list(range(x.dim()))
    dims = [dim] if isinstance(dim, int) else list(dim)
    dims = [d % x.dim() if x.dim() else 0 for d in dims]
    return dims or list(range(x.dim()))


def _var_mean(x, dims, correction, keepdim):
    n = math.prod(x.shape[d] for d in dims) if x.dim() else 1
    mean = aten.mean.dim(x, dims, True)
    centered = aten.sub.Tensor(x, mean)
    sq = aten.sum.dim_IntList(aten.mul.Tensor(centered, centered), dims, keepdim)
    var = aten.div.Tensor(sq, max(n - correction, 0))     # N - correction <= 0 gives inf/nan, as torch
    return var, (mean if keepdim else aten.squeeze.dims(mean, dims))


@register_decomposition(aten.var_mean.correction)
def var_mean_correction(self, dim=None, *, correction=None, keepdim=False):
    if self.is_complex():
        return NotImplemented
    return _var_mean(self, _reduce_dims(self, dim), 1 if correction is None else correction, keepdim)


@register_decomposition(aten.var_mean.dim)
def var_mean_dim(self, dim, unbiased=True, keepdim=False):
    return var_mean_correction(self, dim, correction=int(unbiased), keepdim=keepdim)


@register_decomposition(aten.var_mean.default)
def var_mean(self, unbiased=True):
    return var_mean_correction(self, None, correction=int(unbiased))


def _channel_view(t, ndim):
    """A per-channel vector [C] as [1, C, 1, ...] against an input of `ndim` dims."""
    return aten.view.default(t, [1, t.shape[0]] + [1] * (ndim - 2))


@register_decomposition(aten.native_batch_norm.default)
def native_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps):
    nd = input.dim()
    dims = [0] + list(range(2, nd))
    if training or running_mean is None:
        n = input.numel() // input.shape[1]
        var, mean = _var_mean(input, dims, 0, False)
        invstd = aten.rsqrt.default(aten.add.Tensor(var, eps))
        if training and running_mean is not None:
            # the running statistics are updated in place, as the op does (functionalization makes it a copy)
            new_mean = aten.add.Tensor(aten.mul.Tensor(running_mean, 1 - momentum), aten.mul.Tensor(mean, momentum))
            unbiased = aten.mul.Tensor(var, n / max(n - 1, 1))
            new_var = aten.add.Tensor(aten.mul.Tensor(running_var, 1 - momentum), aten.mul.Tensor(unbiased, momentum))
            aten.copy_.default(running_mean, new_mean)
            aten.copy_.default(running_var, new_var)
        save_mean, save_invstd = mean, invstd
    else:
        mean, invstd = running_mean, aten.rsqrt.default(aten.add.Tensor(running_var, eps))
        save_mean = aten.new_zeros.default(input, [0])     # the op returns empty statistics in eval mode
        save_invstd = aten.new_zeros.default(input, [0])
    out = aten.mul.Tensor(aten.sub.Tensor(input, _channel_view(mean, nd)), _channel_view(invstd, nd))
    if weight is not None:
        out = aten.mul.Tensor(out, _channel_view(weight, nd))
    if bias is not None:
        out = aten.add.Tensor(out, _channel_view(bias, nd))
    return out, save_mean, save_invstd


@register_decomposition(aten.native_batch_norm_backward.default)
def native_batch_norm_backward(grad_out, input, weight, running_mean, running_var, save_mean, save_invstd, train,
                               eps, output_mask):
    nd = input.dim()
    dims = [0] + list(range(2, nd))
    n = input.numel() // input.shape[1]
    if train:
        mean, invstd = save_mean, save_invstd
    else:
        mean, invstd = running_mean, aten.rsqrt.default(aten.add.Tensor(running_var, eps))
    xhat = aten.mul.Tensor(aten.sub.Tensor(input, _channel_view(mean, nd)), _channel_view(invstd, nd))
    grad_bias = aten.sum.dim_IntList(grad_out, dims)
    grad_weight = aten.sum.dim_IntList(aten.mul.Tensor(grad_out, xhat), dims)
    grad_input = None
    if output_mask[0]:
        scale = invstd if weight is None else aten.mul.Tensor(invstd, weight)
        g = grad_out
        if train:
            g = aten.sub.Tensor(aten.sub.Tensor(g, _channel_view(aten.div.Tensor(grad_bias, n), nd)),
                                aten.mul.Tensor(xhat, _channel_view(aten.div.Tensor(grad_weight, n), nd)))
        grad_input = aten.mul.Tensor(g, _channel_view(scale, nd))
    return (grad_input, grad_weight if output_mask[1] else None, grad_bias if output_mask[2] else None)


@register_decomposition(aten.native_group_norm.default)
def native_group_norm(input, weight, bias, N, C, HxW, group, eps):
    x = aten.view.default(input, [N, group, (C // group) * HxW])
    var, mean = _var_mean(x, [2], 0, True)
    rstd = aten.rsqrt.default(aten.add.Tensor(var, eps))
    out = aten.view.default(aten.mul.Tensor(aten.sub.Tensor(x, mean), rstd), list(input.shape))
    nd = input.dim()
    if weight is not None:
        out = aten.mul.Tensor(out, _channel_view(weight, nd))
    if bias is not None:
        out = aten.add.Tensor(out, _channel_view(bias, nd))
    return out, aten.view.default(mean, [N, group]), aten.view.default(rstd, [N, group])


@register_decomposition(aten.native_group_norm_backward.default)
def native_group_norm_backward(grad_out, input, mean, rstd, weight, N, C, HxW, group, output_mask):
    cpg = C // group
    shape4 = [N, group, cpg, HxW]
    x = aten.view.default(input, shape4)
    g_out = aten.view.default(grad_out, shape4)
    m = aten.view.default(mean, [N, group, 1, 1])
    r = aten.view.default(rstd, [N, group, 1, 1])
    xhat = aten.mul.Tensor(aten.sub.Tensor(x, m), r)
    grad_input = grad_weight = grad_bias = None
    if output_mask[0]:
        g = g_out if weight is None else aten.mul.Tensor(g_out, aten.view.default(weight, [1, group, cpg, 1]))
        mean_g = aten.mean.dim(g, [2, 3], True)
        mean_gx = aten.mean.dim(aten.mul.Tensor(g, xhat), [2, 3], True)
        gi = aten.mul.Tensor(aten.sub.Tensor(aten.sub.Tensor(g, mean_g), aten.mul.Tensor(xhat, mean_gx)), r)
        grad_input = aten.view.default(gi, list(input.shape))
    if output_mask[1]:
        grad_weight = aten.view.default(aten.sum.dim_IntList(aten.mul.Tensor(g_out, xhat), [0, 3]), [C])
    if output_mask[2]:
        grad_bias = aten.view.default(aten.sum.dim_IntList(g_out, [0, 3]), [C])
    return grad_input, grad_weight, grad_bias


@register_decomposition(aten.native_layer_norm_backward.default)
def native_layer_norm_backward(grad_out, input, normalized_shape, mean, rstd, weight, bias, output_mask):
    k = len(normalized_shape)
    axes = list(range(input.dim() - k, input.dim()))
    batch = list(range(input.dim() - k))
    xhat = aten.mul.Tensor(aten.sub.Tensor(input, mean), rstd)
    grad_input = grad_weight = grad_bias = None
    if output_mask[0]:
        g = grad_out if weight is None else aten.mul.Tensor(grad_out, weight)
        mean_g = aten.mean.dim(g, axes, True)
        mean_gx = aten.mean.dim(aten.mul.Tensor(g, xhat), axes, True)
        grad_input = aten.mul.Tensor(aten.sub.Tensor(aten.sub.Tensor(g, mean_g), aten.mul.Tensor(xhat, mean_gx)),
                                     rstd)

    def over_batch(t):
        return aten.sum.dim_IntList(t, batch) if batch else aten.clone.default(t)
    if output_mask[1] and weight is not None:
        grad_weight = over_batch(aten.mul.Tensor(grad_out, xhat))
    if output_mask[2] and bias is not None:
        grad_bias = over_batch(grad_out)
    return grad_input, grad_weight, grad_bias
