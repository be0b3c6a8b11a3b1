"""Python-level nn.functional entry points (torch/nn/functional.py): string reductions, legacy
size_average/reduce, return_indices, F-level checks and warnings; they call the aten ops of
native/nn_ops.yaml. `ember.nn.functional` re-exports the names in __all__."""
import math
import warnings

import ember as E

__all__ = [
    "linear", "bilinear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
    "softmax", "log_softmax", "softmin", "layer_norm", "batch_norm", "group_norm", "instance_norm", "rms_norm",
    "max_pool1d", "max_pool2d", "avg_pool1d", "avg_pool2d", "adaptive_avg_pool1d", "adaptive_avg_pool2d",
    "adaptive_max_pool1d", "adaptive_max_pool2d", "embedding", "one_hot",
    "dropout", "dropout1d", "dropout2d", "dropout3d", "alpha_dropout", "feature_alpha_dropout",
    "cross_entropy", "nll_loss", "mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss", "binary_cross_entropy",
    "binary_cross_entropy_with_logits", "kl_div", "soft_margin_loss", "margin_ranking_loss",
    "hinge_embedding_loss", "cosine_embedding_loss", "triplet_margin_loss", "poisson_nll_loss",
    "gaussian_nll_loss", "multilabel_soft_margin_loss", "scaled_dot_product_attention",
    "pad", "pixel_shuffle", "pixel_unshuffle", "cosine_similarity", "pairwise_distance", "cdist", "interpolate",
]

_RED = {"none": 0, "mean": 1, "sum": 2}


def _reduction(reduction, size_average=None, reduce=None):
    if size_average is not None or reduce is not None:
        size_average = True if size_average is None else size_average
        reduce = True if reduce is None else reduce
        reduction = "none" if not reduce else ("mean" if size_average else "sum")
        warnings.warn("size_average and reduce args will be deprecated, please use reduction='"
                      f"{reduction}' instead.")
    if reduction not in _RED:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return _RED[reduction]


def _apply_reduction(loss, reduction):
    return loss if reduction == "none" else (loss.mean() if reduction == "mean" else loss.sum())


def _torch_size(t):
    return f"torch.Size([{', '.join(map(str, t.shape))}])"


# ---------------------------------------------------------------- linear / conv
linear = E._nn.linear


def bilinear(input1, input2, weight, bias=None):
    return E.bilinear(input1, input2, weight, bias)


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    return E.conv1d(input, weight, bias, stride, padding, dilation, groups)


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    return E.conv2d(input, weight, bias, stride, padding, dilation, groups)


def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    return E.conv3d(input, weight, bias, stride, padding, dilation, groups)


def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    return E.conv_transpose1d(input, weight, bias, stride, padding, output_padding, groups, dilation)


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    return E.conv_transpose2d(input, weight, bias, stride, padding, output_padding, groups, dilation)


# ---------------------------------------------------------------- softmax
def _softmax_dim(name, ndim):
    warnings.warn(f"Implicit dimension choice for {name} has been deprecated. Change the call to include dim=X "
                  f"as an argument.")
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    dim = _softmax_dim("softmax", input.dim()) if dim is None else dim
    return E.softmax(input, dim, dtype=dtype)


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    dim = _softmax_dim("softmin", input.dim()) if dim is None else dim
    return E.softmax(-input, dim, dtype=dtype)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    dim = _softmax_dim("log_softmax", input.dim()) if dim is None else dim
    return E.log_softmax(input, dim, dtype=dtype)


# ---------------------------------------------------------------- normalization
def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    return E.layer_norm(input, list(normalized_shape), weight, bias, eps)


def rms_norm(input, normalized_shape, weight=None, eps=None):
    return E.rms_norm(input, list(normalized_shape), weight, eps)


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):
    if input.dim() < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received {input.dim()}")
    return E.group_norm(input, num_groups, weight, bias, eps)


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1, eps=1e-5):
    if training:
        size = input.shape
        n = 1
        for i, s in enumerate(size):
            if i != 1:
                n *= s
        if n == 1:
            raise ValueError(f"Expected more than 1 value per channel when training, got input size {_torch_size(input)}")
    return E.batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps, False)


def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None, use_input_stats=True,
                  momentum=0.1, eps=1e-5):
    if use_input_stats:
        n = 1
        for s in input.shape[2:]:
            n *= s
        if n == 1:
            raise ValueError(f"Expected more than 1 spatial element when training, got input size "
                             f"{_torch_size(input)}")
    return E.instance_norm(input, weight, bias, running_mean, running_var, use_input_stats, momentum, eps, False)


# ---------------------------------------------------------------- pooling
def _stride(stride):
    return [] if stride is None else stride


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    if return_indices:
        return E.max_pool1d_with_indices(input, kernel_size, _stride(stride), padding, dilation, ceil_mode)
    return E.max_pool1d(input, kernel_size, _stride(stride), padding, dilation, ceil_mode)


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    if return_indices:
        return E._nn.max_pool2d_with_indices(input, kernel_size, _stride(stride), padding, dilation, ceil_mode)
    return E.max_pool2d(input, kernel_size, _stride(stride), padding, dilation, ceil_mode)


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
    return E.avg_pool1d(input, kernel_size, _stride(stride), padding, ceil_mode, count_include_pad)


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    return E._nn.avg_pool2d(input, kernel_size, _stride(stride), padding, ceil_mode, count_include_pad,
                        divisor_override)


def _adaptive_size(input, output_size, d):
    o = [output_size] * d if isinstance(output_size, int) else list(output_size)
    return [input.shape[-d + i] if v is None else v for i, v in enumerate(o)]


def adaptive_avg_pool1d(input, output_size):
    return E.adaptive_avg_pool1d(input, output_size)


def adaptive_avg_pool2d(input, output_size):
    return E._nn.adaptive_avg_pool2d(input, _adaptive_size(input, output_size, 2))


def adaptive_max_pool1d(input, output_size, return_indices=False):
    out = E.adaptive_max_pool1d(input, output_size)
    return out if return_indices else out[0]


def adaptive_max_pool2d(input, output_size, return_indices=False):
    out = E._nn.adaptive_max_pool2d(input, _adaptive_size(input, output_size, 2))
    return out if return_indices else out[0]


# ---------------------------------------------------------------- embedding / one_hot
def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False, sparse=False):
    if padding_idx is not None:
        if padding_idx > 0:
            assert padding_idx < weight.shape[0], "Padding_idx must be within num_embeddings"
        elif padding_idx < 0:
            assert padding_idx >= -weight.shape[0], "Padding_idx must be within num_embeddings"
            padding_idx = weight.shape[0] + padding_idx
    else:
        padding_idx = -1
    if max_norm is not None:
        input = input.contiguous()
        with E.no_grad():
            E.embedding_renorm_(weight, input, max_norm, norm_type)
    return E.embedding(weight, input, padding_idx, scale_grad_by_freq, sparse)


def one_hot(tensor, num_classes=-1):
    return E._nn.one_hot(tensor, num_classes)


# ---------------------------------------------------------------- dropout
def _check_p(p):
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def _inplace(input, out, inplace):
    if inplace:
        input.copy_(out)
        return input
    return out


def dropout(input, p=0.5, training=True, inplace=False):
    _check_p(p)
    return _inplace(input, E.dropout(input, p, training), inplace and training)


def _feature(name, ranks):
    def f(input, p=0.5, training=False if name == "feature_alpha_dropout" else True, inplace=False):
        _check_p(p)
        if ranks and input.dim() not in ranks:
            if name == "dropout1d":
                raise RuntimeError(f"dropout1d: Expected 2D or 3D input, but received a {input.dim()}D input. "
                                   "Note that dropout1d exists to provide channel-wise dropout on inputs with 1 "
                                   "spatial dimension, a channel dimension, and an optional batch dimension "
                                   "(i.e. 2D or 3D inputs).")
            k = ranks[0] - 1
            warnings.warn(f"{name}: Received a {input.dim()}-D input to {name}, which is deprecated and will result "
                          f"in an error in a future release. To retain the behavior and silence this warning, please "
                          f"use dropout instead. Note that {name} exists to provide channel-wise dropout on inputs "
                          f"with {k} spatial dimensions, a channel dimension, and an optional batch dimension (i.e. "
                          f"{ranks[0]}D or {ranks[1]}D inputs).", stacklevel=2)
        batched = not ranks or input.dim() == ranks[1] or name == "dropout2d"   # torch: 3D -> (N, C, L)
        x = input if batched else input.unsqueeze(0)
        op = E.feature_alpha_dropout if name == "feature_alpha_dropout" else E.feature_dropout
        out = op(x, p, training)
        out = out if x is input else out.squeeze(0)
        return _inplace(input, out, inplace and training)
    f.__name__ = name
    return f


dropout1d = _feature("dropout1d", (2, 3))
dropout2d = _feature("dropout2d", (3, 4))
dropout3d = _feature("dropout3d", (4, 5))
feature_alpha_dropout = _feature("feature_alpha_dropout", ())


def alpha_dropout(input, p=0.5, training=False, inplace=False):
    _check_p(p)
    return _inplace(input, E.alpha_dropout(input, p, training), inplace and training)


# ---------------------------------------------------------------- losses
def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean",
                  label_smoothing=0.0):
    return E._nn.cross_entropy_loss(input, target, weight, _reduction(reduction, size_average, reduce), ignore_index,
                                label_smoothing)


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean"):
    return E._nn.nll_loss_nd(input, target, weight, _reduction(reduction, size_average, reduce), ignore_index)


def _size_warning(input, target, name):
    if tuple(target.shape) != tuple(input.shape):
        warnings.warn(f"Using a target size ({_torch_size(target)}) that is different to the input size "
                      f"({_torch_size(input)}). This will likely lead to incorrect results due to broadcasting. "
                      f"Please ensure they have the same size.", stacklevel=3)


def _weighted(op, input, target, reduction, weight, *extra):
    if weight is None:
        return op(input, target, _RED[reduction], *extra)
    loss = op(input, target, 0, *extra) * weight
    return _apply_reduction(loss, reduction)


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    _size_warning(input, target, "mse_loss")
    _reduction(reduction, size_average, reduce)
    reduction = _name(_reduction(reduction, size_average, reduce))
    return _weighted(E._nn.mse_loss, input, target, reduction, weight)


def l1_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    _size_warning(input, target, "l1_loss")
    reduction = _name(_reduction(reduction, size_average, reduce))
    return _weighted(E._nn.l1_loss, input, target, reduction, weight)


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    _size_warning(input, target, "smooth_l1_loss")
    return E._nn.smooth_l1_loss(input, target, _reduction(reduction, size_average, reduce), beta)


def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    _size_warning(input, target, "huber_loss")
    _reduction(reduction)
    return _weighted(E._nn.huber_loss, input, target, reduction, weight, delta)


def _name(code):
    return {0: "none", 1: "mean", 2: "sum"}[code]


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    r = _reduction(reduction, size_average, reduce)
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(f"Using a target size ({_torch_size(target)}) that is different to the input size "
                         f"({_torch_size(input)}) is deprecated. Please ensure they have the same size.")
    if weight is not None:
        _check_broadcastable(weight, input.shape, 1)
        weight = weight.expand(input.shape)
    return E._nn.binary_cross_entropy(input, target, weight, r)


def _check_broadcastable(t, shape, index):
    """torch's expand check for a weight broadcast to the input shape (message names the argument index)."""
    ts = list(t.shape)
    for i in range(1, len(ts) + 1):
        if i > len(shape) or ts[-i] not in (1, shape[-i]):
            raise RuntimeError(f"Attempting to broadcast a dimension of length {ts[-i]} at -{i}! Mismatching argument "
                               f"at index {index} had {_torch_size(t)}; but expected shape should be broadcastable "
                               f"to {list(shape)}")


def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None, reduction="mean",
                                     pos_weight=None):
    r = _reduction(reduction, size_average, reduce)
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(f"Target size ({_torch_size(target)}) must be the same as input size ({_torch_size(input)})")
    return E.binary_cross_entropy_with_logits(input, target, weight, pos_weight, r)


def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    if size_average is not None or reduce is not None:
        reduction = _name(_reduction(reduction, size_average, reduce))
    if reduction == "mean":
        warnings.warn("reduction: 'mean' divides the total loss by both the batch size and the support size."
                      "'batchmean' divides only by the batch size, and aligns with the KL div math definition."
                      "'mean' will be changed to behave the same as 'batchmean' in the next major release.")
    if reduction == "batchmean":
        loss = E.kl_div(input, target, 2, log_target=log_target)
        return loss / input.shape[0] if input.dim() != 0 else loss
    return E.kl_div(input, target, _reduction(reduction), log_target=log_target)


def soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    return E._nn.soft_margin_loss(input, target, _reduction(reduction, size_average, reduce))


def margin_ranking_loss(input1, input2, target, margin=0, size_average=None, reduce=None, reduction="mean"):
    r = _reduction(reduction, size_average, reduce)
    if input1.dim() != input2.dim() or input1.dim() != target.dim():
        raise RuntimeError(f"margin_ranking_loss : All input tensors should have same dimension but got sizes: "
                           f"input1: {_torch_size(input1)}, input2: {_torch_size(input2)}, target: "
                           f"{_torch_size(target)} ")
    return E.margin_ranking_loss(input1, input2, target, margin, r)


def hinge_embedding_loss(input, target, margin=1.0, size_average=None, reduce=None, reduction="mean"):
    return E.hinge_embedding_loss(input, target, margin, _reduction(reduction, size_average, reduce))


def cosine_embedding_loss(input1, input2, target, margin=0, size_average=None, reduce=None, reduction="mean"):
    return E.cosine_embedding_loss(input1, input2, target, margin, _reduction(reduction, size_average, reduce))


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False, size_average=None,
                        reduce=None, reduction="mean"):
    return E.triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap,
                                 _reduction(reduction, size_average, reduce))


def poisson_nll_loss(input, target, log_input=True, full=False, size_average=None, eps=1e-8, reduce=None,
                     reduction="mean"):
    return E.poisson_nll_loss(input, target, log_input, full, eps, _reduction(reduction, size_average, reduce))


def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction="mean"):
    if isinstance(var, (int, float)):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        var = E.full_like(input, float(var))
    if tuple(var.shape) != tuple(input.shape):
        if tuple(input.shape[:-1]) == tuple(var.shape):
            var = var.unsqueeze(-1)
        elif not (tuple(input.shape[:-1]) == tuple(var.shape[:-1]) and var.shape[-1] == 1):
            raise ValueError("var is of incorrect size")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not a valid value for reduction")
    if bool((var < 0).any()):
        raise ValueError("var has negative entry/entries")
    var = E.clamp(var, min=eps)
    loss = 0.5 * (E.log(var) + (input - target) ** 2 / var)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _apply_reduction(loss, reduction)


def multilabel_soft_margin_loss(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    if size_average is not None or reduce is not None:
        reduction = _name(_reduction(reduction, size_average, reduce))
    loss = -(target * E._nn.log_sigmoid(input) + (1 - target) * E._nn.log_sigmoid(-input))
    if weight is not None:
        loss = loss * weight
    loss = loss.sum(dim=loss.dim() - 1) / input.shape[-1]
    if reduction not in _RED:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return _apply_reduction(loss, reduction)


# ---------------------------------------------------------------- attention
def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None,
                                 enable_gqa=False):
    return E._nn.scaled_dot_product_attention(query, key, value, attn_mask, dropout_p, is_causal, scale=scale,
                                          enable_gqa=enable_gqa)


# ---------------------------------------------------------------- shape ops (priority 2; see nn_ops.yaml)
def pad(input, pad, mode="constant", value=None):
    return E._nn.pad(input, list(pad), mode, value)


def pixel_shuffle(input, upscale_factor):
    return E.pixel_shuffle(input, upscale_factor)


def pixel_unshuffle(input, downscale_factor):
    return E.pixel_unshuffle(input, downscale_factor)


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    return E.cosine_similarity(x1, x2, dim, eps)


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    return E.pairwise_distance(x1, x2, p, eps, keepdim)


def cdist(x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"):
    modes = {"use_mm_for_euclid_dist_if_necessary": None, "use_mm_for_euclid_dist": 1,
             "donot_use_mm_for_euclid_dist": 2}
    if compute_mode not in modes:
        raise ValueError(f"{compute_mode} is not a valid value for compute_mode")
    return E.ops.aten.cdist.default(x1, x2, p, modes[compute_mode])


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None, antialias=False):
    from .interpolate_impl import interpolate as _interp
    return _interp(input, size, scale_factor, mode, align_corners, recompute_scale_factor, antialias)


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    _chk().check_tensor("im2col", "input", 1, input)
    if input.dim() == 4 or input.dim() == 3:
        return E._nn.im2col(input, kernel_size, dilation, padding, stride)
    raise NotImplementedError(f"Input Error: Only 3D or 4D input Tensors are supported (got {input.dim()}D)")


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    _chk().check_tensor("col2im", "input", 1, input)
    if input.dim() == 3 or input.dim() == 2:
        return E._nn.col2im(input, output_size, kernel_size, dilation, padding, stride)
    raise NotImplementedError(f"Input Error: Only unbatched (2D) or batched (3D) input Tensors are supported "
                              f"(got {input.dim()}D)")


def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    k = (kernel_size, kernel_size) if isinstance(kernel_size, int) else tuple(kernel_size)
    s = k if stride is None else ((stride, stride) if isinstance(stride, int) else tuple(stride))
    p = (padding, padding) if isinstance(padding, int) else tuple(padding)
    if output_size is None:
        output_size = [(input.shape[-2 + i] - 1) * s[i] + k[i] - 2 * p[i] for i in range(2)]
    else:
        output_size = list(output_size)[-2:]
    return E._nn.max_unpool2d(input, indices, output_size)


__all__ += ["unfold", "fold", "max_unpool2d"]


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    modes = {"bilinear": 0, "nearest": 1, "bicubic": 2}
    pads = {"zeros": 0, "border": 1, "reflection": 2}
    if mode not in modes:
        raise ValueError(f"nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or 'bicubic', "
                         f"but got: '{mode}'")
    if padding_mode not in pads:
        raise ValueError(f"nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or "
                         f"'reflection', but got: '{padding_mode}'")
    return E.grid_sampler(input, grid, modes[mode], pads[padding_mode], bool(align_corners))


def embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2, scale_grad_by_freq=False, mode="mean",
                  sparse=False, per_sample_weights=None, include_last_offset=False, padding_idx=None):
    _chk().check_tensor("embedding_bag", "input", 1, input)
    _chk().check_tensor("embedding_bag", "weight", 2, weight)
    if input.dim() == 2:
        if offsets is not None:
            raise ValueError("if input is 2D, then offsets has to be None, as input is treated is a mini-batch of "
                             f"fixed length sequences. However, found offsets of type {type(offsets)}")
        b, l = input.shape
        offsets = E.arange(0, b * l, l, dtype=input.dtype)
        input = input.reshape(-1)
        if per_sample_weights is not None:
            per_sample_weights = per_sample_weights.reshape(-1)
    elif input.dim() == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
    else:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension {input.dim()}")
    if padding_idx is not None and padding_idx < 0:
        padding_idx = weight.shape[0] + padding_idx
    if mode == "max" and scale_grad_by_freq:
        raise ValueError("max mode does not support scaling the gradient by the frequency")
    if mode == "max" and sparse:
        raise ValueError("max mode does not support sparse weights")
    if mode not in ("sum", "mean", "max"):
        raise ValueError("mode has to be one of sum, mean or max")
    m = {"sum": 0, "mean": 1, "max": 2}[mode]
    if max_norm is not None:          # rows referenced by any bag are renormalised in place first
        with E.no_grad():
            E.embedding_renorm_(weight, input, max_norm, norm_type)
    return E.embedding_bag(weight, input, offsets, scale_grad_by_freq, m, sparse, per_sample_weights,
                           include_last_offset, padding_idx)[0]


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction="mean", zero_infinity=False):
    return E.ctc_loss(log_probs, targets, input_lengths, target_lengths, blank, _reduction(reduction), zero_infinity)


__all__ += ["grid_sample", "embedding_bag", "ctc_loss"]


def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    if isinstance(p, str):
        raise RuntimeError(f"linalg.matrix_norm: Order {p} not supported.")
    denom = E.clamp_min(E._linalg.linalg_vector_norm(input, p, [dim], True), eps).expand_as(input)
    if out is None:
        return input / denom
    return E.div(input, denom, out=out)


def local_response_norm(input, size, alpha=1e-4, beta=0.75, k=1.0):
    if input.dim() < 3:
        raise ValueError(f"Expected 3D or higher dimensionality input (got {input.dim()} dimensions)")
    if input.numel() == 0:
        return input
    div = (input * input).unsqueeze(1)
    if input.dim() == 3:
        div = pad(div, (0, 0, size // 2, (size - 1) // 2))
        div = avg_pool2d(div, (size, 1), stride=1).squeeze(1)
    else:
        sizes = input.shape
        div = div.reshape(sizes[0], 1, sizes[1], sizes[2], -1)
        div = pad(div, (0, 0, 0, 0, size // 2, (size - 1) // 2))
        n, c1, cc, hh, ww = div.shape
        div = avg_pool2d(div.reshape(n, cc, hh * ww).unsqueeze(1).transpose(1, 3).reshape(n * hh * ww, 1, cc, 1),
                         (size, 1), stride=1)
        div = div.reshape(n, hh * ww, 1, -1).transpose(1, 3).reshape(n, 1, -1, hh, ww).squeeze(1)
        div = div.reshape(sizes)
    div = (div * alpha + k) ** beta
    return input / div


__all__ += ["normalize", "local_response_norm"]


def _chk():
    from .. import _arg_parser as _argcheck
    return _argcheck
