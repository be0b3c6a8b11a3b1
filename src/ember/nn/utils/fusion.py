"""torch.nn.utils.fusion: fold an eval-mode BatchNorm into the convolution or linear layer before it (one layer
computing conv/linear then batch norm with its running statistics)."""
import copy

import ember

__all__ = ["fuse_conv_bn_eval", "fuse_conv_bn_weights", "fuse_linear_bn_eval", "fuse_linear_bn_weights"]


def fuse_conv_bn_eval(conv, bn, transpose=False):
    """A copy of `conv` whose weight and bias include `bn` (both must be in eval mode)."""
    assert not (conv.training or bn.training), "Fusion only for eval!"
    fused = copy.deepcopy(conv)
    assert bn.running_mean is not None and bn.running_var is not None
    fused.weight, fused.bias = fuse_conv_bn_weights(fused.weight, fused.bias, bn.running_mean, bn.running_var,
                                                    bn.eps, bn.weight, bn.bias, transpose)
    return fused


def fuse_conv_bn_weights(conv_w, conv_b, bn_rm, bn_rv, bn_eps, bn_w, bn_b, transpose=False):
    """(weight, bias) Parameters of the conv computing conv(conv_w, conv_b) followed by the batch norm. The scale
    goes on the output-channel dim: dim 0 of a conv weight, dim 1 of a transposed conv's."""
    w_dtype = conv_w.dtype
    b_dtype = conv_b.dtype if conv_b is not None else w_dtype
    conv_b = ember.zeros_like(bn_rm) if conv_b is None else conv_b
    bn_w = ember.ones_like(bn_rm) if bn_w is None else bn_w
    bn_b = ember.zeros_like(bn_rm) if bn_b is None else bn_b
    rsqrt = ember.rsqrt(bn_rv + bn_eps)
    shape = ([1, -1] if transpose else [-1, 1]) + [1] * (conv_w.dim() - 2)
    fused_w = (conv_w * (bn_w * rsqrt).reshape(shape)).to(dtype=w_dtype)
    fused_b = ((conv_b - bn_rm) * rsqrt * bn_w + bn_b).to(dtype=b_dtype)
    return ember.nn.Parameter(fused_w, conv_w.requires_grad), ember.nn.Parameter(fused_b, conv_b.requires_grad)


def fuse_linear_bn_eval(linear, bn):
    """A copy of `linear` whose weight and bias include `bn` (eval mode; bn over linear's output features, or
    over a single feature broadcast to all of them)."""
    assert not (linear.training or bn.training), "Fusion only for eval!"
    fused = copy.deepcopy(linear)
    assert linear.out_features == bn.num_features or bn.num_features == 1, \
        "To fuse, linear.out_features == bn.num_features or bn.num_features == 1"
    assert bn.running_mean is not None and bn.running_var is not None
    fused.weight, fused.bias = fuse_linear_bn_weights(fused.weight, fused.bias, bn.running_mean, bn.running_var,
                                                      bn.eps, bn.weight, bn.bias)
    return fused


def fuse_linear_bn_weights(linear_w, linear_b, bn_rm, bn_rv, bn_eps, bn_w, bn_b):
    w_dtype = linear_w.dtype
    b_dtype = linear_b.dtype if linear_b is not None else w_dtype
    linear_b = ember.zeros_like(bn_rm) if linear_b is None else linear_b
    scale = bn_w * ember.rsqrt(bn_rv + bn_eps)
    fused_w = linear_w * scale.unsqueeze(-1).to(dtype=w_dtype)
    fused_b = ((linear_b - bn_rm) * scale + bn_b).to(dtype=b_dtype)
    return ember.nn.Parameter(fused_w, linear_w.requires_grad), ember.nn.Parameter(fused_b, linear_b.requires_grad)
