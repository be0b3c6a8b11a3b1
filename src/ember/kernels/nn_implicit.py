"""CompositeImplicitAutograd decompositions of the nn ops (torch's Convolution.cpp, Linear.cpp,
SoftMax.cpp, Normalization.cpp, Loss.cpp, attention.cpp ...): argument handling and batching in
Python, then the native kernels (convolution, _softmax, native_layer_norm ...) via the dispatcher."""
import math

from .common import size_str, tup

_aten = None


def A():
    global _aten
    if _aten is None:
        from .._ops import ops
        _aten = ops.aten
    return _aten


# ---------------------------------------------------------------- linear
def linear(input, weight, bias=None):
    if input.dim() == 2 and bias is not None:
        return A().addmm.default(bias, input, A().t.default(weight))
    out = A().matmul.default(input, A().t.default(weight))
    return out if bias is None else A().add.Tensor(out, bias)


# ---------------------------------------------------------------- softmax
def softmax(self, dim, dtype=None):
    x = self if dtype is None else A().to.dtype(self, dtype)
    return A()._softmax.default(x, dim, False)


def log_softmax(self, dim, dtype=None):
    x = self if dtype is None else A().to.dtype(self, dtype)
    return A()._log_softmax.default(x, dim, False)


# ---------------------------------------------------------------- convolution
def _batchify(input, d, name):
    if input.dim() == d + 1:
        return A().unsqueeze.default(input, 0), True
    if input.dim() != d + 2:
        raise RuntimeError(f"Expected {d + 1}D (unbatched) or {d + 2}D (batched) input to {name}, but got input "
                           f"of size: {size_str(input._size)}")
    return input, False


def _conv(d, input, weight, bias, stride, padding, dilation, groups):
    x, unb = _batchify(input, d, f"conv{d}d")
    if isinstance(padding, str):
        padding, x = _str_padding(d, x, weight, stride, padding, dilation)
    out = A().convolution.default(x, weight, bias, tup(stride, d), tup(padding, d), tup(dilation, d), False,
                                  [0] * d, groups)
    return A().squeeze.dim(out, 0) if unb else out


def _str_padding(d, x, weight, stride, padding, dilation):
    if padding == "valid":
        return [0] * d, x
    if padding != "same":
        raise RuntimeError(f"Invalid padding string: '{padding}'")
    if any(s != 1 for s in tup(stride, d)):
        raise RuntimeError("padding='same' is not supported for strided convolutions")
    dl = tup(dilation, d)
    total = [dl[i] * (weight._size[2 + i] - 1) for i in range(d)]
    if any(t % 2 for t in total):
        pad = []
        for t in reversed(total):
            pad += [0, t % 2]
        x = A().constant_pad_nd.default(x, pad, 0)
    return [t // 2 for t in total], x


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    return _conv(1, input, weight, bias, stride, padding, dilation, groups)


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    return _conv(2, input, weight, bias, stride, padding, dilation, groups)


def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    return _conv(3, input, weight, bias, stride, padding, dilation, groups)


def _conv_t(d, input, weight, bias, stride, padding, output_padding, groups, dilation):
    x, unb = _batchify(input, d, f"conv_transpose{d}d")
    out = A().convolution.default(x, weight, bias, tup(stride, d), tup(padding, d), tup(dilation, d), True,
                                  tup(output_padding, d), groups)
    return A().squeeze.dim(out, 0) if unb else out


def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    return _conv_t(1, input, weight, bias, stride, padding, output_padding, groups, dilation)


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    return _conv_t(2, input, weight, bias, stride, padding, output_padding, groups, dilation)


# ---------------------------------------------------------------- normalization
def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-05, cudnn_enable=True):
    return A().native_layer_norm.default(input, normalized_shape, weight, bias, eps)[0]


# ---------------------------------------------------------------- pooling
def max_pool2d(self, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    return A().max_pool2d_with_indices.default(self, kernel_size, stride, padding, dilation, ceil_mode)[0]


def max_pool1d(self, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    return A().max_pool1d_with_indices.default(self, kernel_size, stride, padding, dilation, ceil_mode)[0]


def _one(v, name, arg):
    v = (v,) if isinstance(v, int) else tuple(v)
    if len(v) != 1:
        raise RuntimeError(f"{name}() argument '{arg}' should contain one int (got {len(v)})")
    return [1, int(v[0])]


def _check_1d(self, name):
    if self.dim() not in (2, 3):
        raise RuntimeError(f"Expected 2 to 3 dimensions, but got {self.dim()}-dimensional tensor for argument #1 "
                           f"'self' (while checking arguments for {name})")


def avg_pool1d(self, kernel_size, stride=(), padding=0, ceil_mode=False, count_include_pad=True):
    _check_1d(self, "avg_pool1d")
    k = _one(kernel_size, "avg_pool1d", "kernel_size")
    s = k if stride is None or (not isinstance(stride, int) and len(stride) == 0) else \
        _one(stride, "avg_pool1d", "stride")
    p = [0, _one(padding, "avg_pool1d", "padding")[1]]
    out = A().avg_pool2d.default(A().unsqueeze.default(self, -2), k, s, p, ceil_mode, count_include_pad, None)
    return A().squeeze.dim(out, -2)


def adaptive_avg_pool2d(self, output_size):
    return A()._adaptive_avg_pool2d.default(self, output_size)


def adaptive_avg_pool1d(self, output_size):
    _check_1d(self, "adaptive_avg_pool1d")
    o = _one(output_size, "adaptive_avg_pool1d", "output_size")
    return A().squeeze.dim(A()._adaptive_avg_pool2d.default(A().unsqueeze.default(self, -2), o), -2)


def adaptive_max_pool1d(self, output_size):
    _check_1d(self, "adaptive_max_pool1d")
    o = _one(output_size, "adaptive_max_pool1d", "output_size")
    v, i = A().adaptive_max_pool2d.default(A().unsqueeze.default(self, -2), o)
    return A().squeeze.dim(v, -2), A().squeeze.dim(i, -2)


# ---------------------------------------------------------------- losses
def nll_loss_nd(self, target, weight=None, reduction=1, ignore_index=-100):
    if self.dim() < 1:
        raise ValueError(f"Expected 1 or more dimensions (got {self.dim()})")
    if self.dim() != 1 and target.dim() >= 1 and self._size[0] != target._size[0]:
        raise ValueError(f"Expected input batch_size ({self._size[0]}) to match target batch_size "
                         f"({target._size[0]}).")
    if self.dim() <= 2:
        return A().nll_loss_forward.default(self, target, weight, reduction, ignore_index)[0]
    if self.dim() == 4:
        return A().nll_loss2d_forward.default(self, target, weight, reduction, ignore_index)[0]
    n, c = self._size[:2]
    out_size = (n,) + tuple(self._size[2:])
    if tuple(target._size[1:]) != tuple(self._size[2:]):
        raise RuntimeError(f"Expected target size {size_str(out_size)}, got {size_str(target._size)}")
    x = A().reshape.default(self, [n, c, 1, -1])
    t = A().reshape.default(target, [n, 1, -1])
    out = A().nll_loss2d_forward.default(x, t, weight, reduction, ignore_index)[0]
    return out if reduction != 0 else A().reshape.default(out, list(out_size))


def _class_view(weight, self, class_dim):
    shape = [1] * self.dim()
    shape[class_dim] = weight._size[0]
    return A().view.default(weight, shape)


def cross_entropy_loss(self, target, weight=None, reduction=1, ignore_index=-100, label_smoothing=0.0):
    class_dim = 0 if self.dim() == 1 else 1
    if not 0.0 <= label_smoothing <= 1.0:
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}")
    logp = A()._log_softmax.default(self, class_dim, False)
    if tuple(self._size) == tuple(target._size):
        return _ce_probs(self, logp, target, weight, reduction, label_smoothing, class_dim)
    nll = nll_loss_nd(logp, target, weight, reduction, ignore_index)
    if label_smoothing == 0.0:
        return nll
    return _ce_smooth(self, logp, target, nll, weight, reduction, ignore_index, label_smoothing, class_dim)


def _ce_probs(self, logp, target, weight, reduction, ls, class_dim):
    if not target.dtype.is_floating_point:
        raise RuntimeError(f"Expected floating point type for target with class probabilities, got "
                           f"{_tn(target.dtype)}")
    c = self._size[class_dim]
    if weight is not None and weight.numel() != c:
        raise RuntimeError(f"cross_entropy: weight tensor should be defined either for all {c} classes or no "
                           f"classes but got weight tensor of shape: {size_str(weight._size)}")
    if ls > 0:
        target = A().add.Scalar(A().mul.Scalar(target, 1 - ls), ls / c)
    loss = A().mul.Tensor(logp, target)
    if weight is not None:
        loss = A().mul.Tensor(loss, _class_view(weight, self, class_dim))
    if reduction == 0:
        return A().neg.default(A().sum.dim_IntList(loss, [class_dim]))
    total = A().neg.default(A().sum.default(loss))
    return total if reduction == 2 else A().div.Scalar(total, self.numel() / c)


def _ce_smooth(self, logp, target, nll, weight, reduction, ignore_index, ls, class_dim):
    c = self._size[class_dim]
    mask = A().eq.Scalar(target, ignore_index)
    x = logp if weight is None else A().mul.Tensor(logp, _class_view(weight, self, class_dim))
    smooth = A().neg.default(A().sum.dim_IntList(x, [class_dim]))
    smooth = A().where.self(mask, A().zeros_like.default(smooth), smooth)
    if reduction == 1:
        if weight is None:
            denom = A().sum.default(A().logical_not.default(mask))
        else:
            tw = A().index.Tensor(weight, [A().where.self(mask, A().zeros_like.default(target), target)])
            denom = A().sum.default(A().where.self(mask, A().zeros_like.default(tw), tw))
        smooth = A().div.Tensor(A().sum.default(smooth), denom)
    elif reduction == 2:
        smooth = A().sum.default(smooth)
    return A().add.Tensor(A().mul.Scalar(nll, 1 - ls), A().mul.Scalar(smooth, ls / c))


def _tn(d):
    from .common import _tname
    return _tname(d)


# ---------------------------------------------------------------- dropout
def _check_p(p):
    if not 0 <= p <= 1:
        raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {p}")


def dropout(input, p, train):
    _check_p(p)
    if not train or p == 0 or input.numel() == 0:
        return input
    return A().native_dropout.default(input, p, train)[0]


def _feature_noise(input, p, feature, alpha):
    _check_p(p)
    if feature and input.dim() < 2:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    shape = list(input._size[:2]) + [1] * (input.dim() - 2) if feature else list(input._size)
    noise = A().bernoulli_.float(A().new_empty.default(input, shape), 1 - p)
    if not alpha:
        return A().mul.Tensor(input, A().div.Scalar(noise, 1 - p)) if p < 1 else A().mul.Tensor(input, noise)
    al = 1.7580993408473766
    a = 1.0 / math.sqrt((al * al * p + 1) * (1 - p))
    b = A().add.Scalar(A().mul.Scalar(A().add.Scalar(noise, -1), al * a), al * a * p)
    return A().add.Tensor(A().mul.Tensor(input, A().mul.Scalar(noise, a)), b)


def _dropout_variant(feature, alpha):
    def f(input, p, train):
        if not train or p == 0 or input.numel() == 0:
            _check_p(p)
            return input
        if p == 1:
            return A().mul.Scalar(input, 0)
        return _feature_noise(input, p, feature, alpha)
    return f


feature_dropout = _dropout_variant(True, False)
alpha_dropout = _dropout_variant(False, True)
feature_alpha_dropout = _dropout_variant(True, True)


# ---------------------------------------------------------------- normalization (composite)
def batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps, cudnn_enabled):
    return A().native_batch_norm.default(input, weight, bias, running_mean, running_var, training, momentum, eps)[0]


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-05, cudnn_enabled=True):
    n, c = input._size[0], input._size[1]
    hxw = 1
    for s in input._size[2:]:
        hxw *= s
    return A().native_group_norm.default(input, weight, bias, n, c, hxw, num_groups, eps)[0]


def instance_norm(input, weight, bias, running_mean, running_var, use_input_stats, momentum, eps, cudnn_enabled):
    n, c = input._size[0], input._size[1]
    for nm, t in (("weight", weight), ("bias", bias), ("running_mean", running_mean), ("running_var", running_var)):
        if t is not None and t.numel() != c:
            raise RuntimeError(f"{nm} should contain {n * c} elements not {n * t.numel()}")
    x = A().reshape.default(input, [1, n * c] + list(input._size[2:]))

    def rep(t):
        return None if t is None else A().reshape.default(A().expand.default(A().unsqueeze.default(t, 0), [n, c]),
                                                          [n * c])
    rm, rv = rep(running_mean), rep(running_var)
    out = A().native_batch_norm.default(x, rep(weight), rep(bias), rm, rv, use_input_stats, momentum, eps)[0]
    if use_input_stats:
        for src, dst in ((rm, running_mean), (rv, running_var)):
            if dst is not None:
                A().copy_.default(dst, A().mean.dim(A().view.default(src, [n, c]), [0], False))
    return A().view.default(out, list(input._size))


def rms_norm(input, normalized_shape, weight=None, eps=None):
    ns = [int(s) for s in normalized_shape]
    k = len(ns)
    if input.dim() < k or list(input._size[input.dim() - k:]) != ns:
        raise RuntimeError(f"Given normalized_shape={size_str(ns)}, expected input with shape "
                           f"[*{', '.join(map(str, ns))}], but got input of size{size_str(input._size)}")
    if weight is not None and list(weight._size) != ns:
        raise RuntimeError(f"Expected weight to be of same shape as normalized_shape, but got weight of shape "
                           f"{size_str(weight._size)} and normalized_shape = {size_str(ns)}")
    if eps is None:
        import numpy as np
        eps = float(np.finfo(input.dtype._np).eps) if input.dtype.is_floating_point else 1e-6
    dims = list(range(input.dim() - k, input.dim()))
    ms = A().mean.dim(A().mul.Tensor(input, input), dims, True)
    out = A().mul.Tensor(input, A().rsqrt.default(A().add.Scalar(ms, eps)))
    return out if weight is None else A().mul.Tensor(out, weight)


# ---------------------------------------------------------------- attention
def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, *, scale=None,
                                 enable_gqa=False):
    if is_causal and attn_mask is not None:
        raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be set when is_causal=True")
    L, S, E = query._size[-2], key._size[-2], query._size[-1]
    if enable_gqa and query.dim() >= 3 and key._size[-3] != query._size[-3]:
        hq, hk = query._size[-3], key._size[-3]
        if hq % hk:
            raise RuntimeError("Number of heads in key and value must divide the number of heads in query")
        key, value = _repeat_heads(key, hq // hk), _repeat_heads(value, hq // hk)
    if _fused_ok(query, key, value, attn_mask, dropout_p):
        return A()._scaled_dot_product_flash_attention_for_cpu.default(query, key, value, 0.0, is_causal,
                                                                        scale=scale)[0]
    sc = 1.0 / math.sqrt(E) if scale is None else scale
    # scale the (.., L, E) query rather than the (.., L, S) scores, and mask by adding a 0/-inf bias of
    # the mask's own (broadcast) shape, as torch's math path does: the add's backward is the identity
    # for the scores, where a `where` would materialise a -inf tensor and mask the gradient again
    q = query if sc == 1 else A().mul.Scalar(query, sc)
    attn = A().matmul.default(q, A().transpose.int(key, -2, -1))
    if is_causal:
        attn_mask = _causal_bias(L, S, attn.dtype, query.device)
    elif attn_mask is not None and attn_mask.dtype.name == "bool":
        bias = A().zeros.default(list(attn_mask._size), dtype=attn.dtype, device=query.device)
        attn_mask = A().masked_fill.Scalar(bias, A().logical_not.default(attn_mask), float("-inf"))
    if attn_mask is not None:
        attn = A().add.Tensor(attn, attn_mask)
    attn = A()._softmax.default(attn, -1, False)
    if dropout_p > 0.0:
        attn = dropout(attn, dropout_p, True)
    return A().matmul.default(attn, value)


def _fused_ok(q, k, v, attn_mask, dropout_p):
    """The fused cpu op (one node, BLAS products and C softmax rows) takes 4-d float32/float64 cpu q, k, v
    of one batch and head count and one head size, without attn_mask or dropout; else the math path."""
    if attn_mask is not None or dropout_p > 0.0 or q.dim() != 4 or k.dim() != 4 or v.dim() != 4:
        return False
    if q.device.type != "cpu" or k.device.type != "cpu" or v.device.type != "cpu":
        return False
    if not (q.dtype == k.dtype == v.dtype) or q.dtype.name not in ("float32", "float64"):
        return False
    qs, ks, vs = q._size, k._size, v._size
    return qs[:2] == ks[:2] == vs[:2] and qs[3] == ks[3] == vs[3] and ks[2] == vs[2] and min(qs) > 0 and ks[2] > 0


_CAUSAL = {}


def _causal_bias(L, S, dtype, device):
    """The (L, S) 0 / -inf upper-triangle bias of is_causal. Plain cpu calls reuse one cached tensor per
    (L, S, dtype): it is only ever read (an add's `other`, which saves nothing for backward). Under a
    dispatch mode, in inference mode or on other devices it is built each time, so modes see the ops."""
    from .._core.tls import state
    cache = device.type == "cpu" and not state.mode_stack and not state.inference_mode
    key = (L, S, dtype)
    t = _CAUSAL.get(key) if cache else None
    if t is None:
        t = A().triu.default(A().full.default([L, S], float("-inf"), dtype=dtype, device=device), 1)
        if cache:
            if len(_CAUSAL) >= 16:
                _CAUSAL.clear()
            _CAUSAL[key] = t
    return t


def _repeat_heads(t, r):
    s = list(t._size)
    e = A().expand.default(A().unsqueeze.default(t, -3), s[:-3] + [s[-3], r] + s[-2:])
    return A().reshape.default(e, s[:-3] + [s[-3] * r] + s[-2:])


