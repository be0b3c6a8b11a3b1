"""nn.functional's pools (torch/nn/functional.py max/avg/adaptive pools 1d-3d and their *_with_indices forms,
max_unpool1d-3d, lp pools)."""


import ember
from ..._core import torch_function as _tf  # noqa: E402

_TF = False      # the __torch_function__ check: kept current by _tf.register (see _core/torch_function.py)
_tf.register(globals())

__all__ = ["max_pool1d", "max_pool2d", "avg_pool1d", "avg_pool2d", "adaptive_avg_pool1d",
           "adaptive_avg_pool2d", "adaptive_max_pool1d", "adaptive_max_pool2d", "max_unpool2d", "max_pool3d",
           "avg_pool3d", "adaptive_avg_pool3d", "adaptive_max_pool3d", "lp_pool1d", "lp_pool2d", "lp_pool3d",
           "max_pool1d_with_indices", "max_pool2d_with_indices", "max_pool3d_with_indices",
           "adaptive_max_pool1d_with_indices", "adaptive_max_pool2d_with_indices",
           "adaptive_max_pool3d_with_indices", "max_unpool1d", "max_unpool3d", "fractional_max_pool2d",
           "fractional_max_pool2d_with_indices", "fractional_max_pool3d", "fractional_max_pool3d_with_indices"]


def _stride(stride):
    return [] if stride is None else stride


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    if _TF:      # torch's has_torch_function check: a mode or subclass sees F.max_pool1d
        _r = _tf.handle_locals(max_pool1d_with_indices if return_indices else max_pool1d, locals())
        if _r is not _tf.NOT_HANDLED:
            return _r
    if return_indices:
        return ember.max_pool1d_with_indices(input, kernel_size, _stride(stride), padding, dilation, ceil_mode)
    return ember.max_pool1d(input, kernel_size, _stride(stride), padding, dilation, ceil_mode)


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    if _TF:      # torch's has_torch_function check: a mode or subclass sees F.max_pool2d
        _r = _tf.handle_locals(max_pool2d_with_indices if return_indices else max_pool2d, locals())
        if _r is not _tf.NOT_HANDLED:
            return _r
    if return_indices:
        return ember._nn.max_pool2d_with_indices(input, kernel_size, _stride(stride), padding, dilation, ceil_mode)
    return ember.max_pool2d(input, kernel_size, _stride(stride), padding, dilation, ceil_mode)


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
    return ember.avg_pool1d(input, kernel_size, _stride(stride), padding, ceil_mode, count_include_pad)


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    return ember._nn.avg_pool2d(input, kernel_size, _stride(stride), padding, ceil_mode, count_include_pad,
                        divisor_override)


def _adaptive_size(input, output_size, d):
    o = [output_size] * d if isinstance(output_size, int) else list(output_size)
    return [input.shape[-d + i] if v is None else v for i, v in enumerate(o)]


def adaptive_avg_pool1d(input, output_size):
    return ember.adaptive_avg_pool1d(input, output_size)


def adaptive_avg_pool2d(input, output_size):
    if _TF:      # torch's has_torch_function check: a mode or subclass sees F.adaptive_avg_pool2d
        _r = _tf.handle_locals(adaptive_avg_pool2d, locals())
        if _r is not _tf.NOT_HANDLED:
            return _r
    return ember._nn.adaptive_avg_pool2d(input, _adaptive_size(input, output_size, 2))


def adaptive_max_pool1d(input, output_size, return_indices=False):
    if _TF:      # torch's has_torch_function check: a mode or subclass sees F.adaptive_max_pool1d
        _r = _tf.handle_locals(adaptive_max_pool1d_with_indices if return_indices else adaptive_max_pool1d, locals())
        if _r is not _tf.NOT_HANDLED:
            return _r
    out = ember.adaptive_max_pool1d(input, output_size)
    return out if return_indices else out[0]


def adaptive_max_pool2d(input, output_size, return_indices=False):
    if _TF:      # torch's has_torch_function check: a mode or subclass sees F.adaptive_max_pool2d
        _r = _tf.handle_locals(adaptive_max_pool2d_with_indices if return_indices else adaptive_max_pool2d, locals())
        if _r is not _tf.NOT_HANDLED:
            return _r
    out = ember._nn.adaptive_max_pool2d(input, _adaptive_size(input, output_size, 2))
    return out if return_indices else out[0]


def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    if _TF:      # torch's has_torch_function check: a mode or subclass sees F.max_unpool2d
        _r = _tf.handle_locals(max_unpool2d, locals())
        if _r is not _tf.NOT_HANDLED:
            return _r
    k = (kernel_size, kernel_size) if isinstance(kernel_size, int) else tuple(kernel_size)
    s = k if stride is None else ((stride, stride) if isinstance(stride, int) else tuple(stride))
    p = (padding, padding) if isinstance(padding, int) else tuple(padding)
    if output_size is None:
        output_size = [(input.shape[-2 + i] - 1) * s[i] + k[i] - 2 * p[i] for i in range(2)]
    else:
        output_size = list(output_size)[-2:]
    return ember._nn.max_unpool2d(input, indices, output_size)


def max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    if _TF:      # torch's has_torch_function check: a mode or subclass sees F.max_pool3d
        _r = _tf.handle_locals(max_pool3d_with_indices if return_indices else max_pool3d, locals())
        if _r is not _tf.NOT_HANDLED:
            return _r
    if return_indices:
        return ember._nn.max_pool3d_with_indices(input, kernel_size, _stride(stride), padding, dilation, ceil_mode)
    return ember.max_pool3d(input, kernel_size, _stride(stride), padding, dilation, ceil_mode)


def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    return ember._nn.avg_pool3d(input, kernel_size, _stride(stride), padding, ceil_mode, count_include_pad,
                            divisor_override)


def adaptive_avg_pool3d(input, output_size):
    if _TF:      # torch's has_torch_function check: a mode or subclass sees F.adaptive_avg_pool3d
        _r = _tf.handle_locals(adaptive_avg_pool3d, locals())
        if _r is not _tf.NOT_HANDLED:
            return _r
    return ember._nn.adaptive_avg_pool3d(input, _adaptive_size(input, output_size, 3))


def adaptive_max_pool3d(input, output_size, return_indices=False):
    if _TF:      # torch's has_torch_function check: a mode or subclass sees F.adaptive_max_pool3d
        _r = _tf.handle_locals(adaptive_max_pool3d_with_indices if return_indices else adaptive_max_pool3d, locals())
        if _r is not _tf.NOT_HANDLED:
            return _r
    out = ember._nn.adaptive_max_pool3d(input, _adaptive_size(input, output_size, 3))
    return out if return_indices else out[0]


def _lp_finish(out, norm_type, count):
    """(sum over the window of x^p)^(1/p) from the window mean: sign(m) relu(|m|) * count, to the 1/p."""
    return (ember.sign(out) * ember.relu(ember.abs(out))).mul(count).pow(1.0 / norm_type)


def _tuple(v, n):
    return tuple(v) if isinstance(v, (list, tuple)) else (v,) * n


def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """The power-average pool: (sum over each window of x^p)^(1/p) (torch composes it from avg_pool1d)."""
    if _TF:      # torch's has_torch_function check: a mode or subclass sees F.lp_pool1d
        _r = _tf.handle_locals(lp_pool1d, locals())
        if _r is not _tf.NOT_HANDLED:
            return _r
    if stride is not None:
        out = avg_pool1d(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    else:
        out = avg_pool1d(input.pow(norm_type), kernel_size, padding=0, ceil_mode=ceil_mode)
    (k,) = _tuple(kernel_size, 1)
    return _lp_finish(out, norm_type, k)


def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    if _TF:      # torch's has_torch_function check: a mode or subclass sees F.lp_pool2d
        _r = _tf.handle_locals(lp_pool2d, locals())
        if _r is not _tf.NOT_HANDLED:
            return _r
    kw, kh = _tuple(kernel_size, 2)
    if stride is not None:
        out = avg_pool2d(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    else:
        out = avg_pool2d(input.pow(norm_type), kernel_size, padding=0, ceil_mode=ceil_mode)
    return _lp_finish(out, norm_type, kw * kh)


def lp_pool3d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    if _TF:      # torch's has_torch_function check: a mode or subclass sees F.lp_pool3d
        _r = _tf.handle_locals(lp_pool3d, locals())
        if _r is not _tf.NOT_HANDLED:
            return _r
    kd, kw, kh = _tuple(kernel_size, 3)
    if stride is not None:
        out = avg_pool3d(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    else:
        out = avg_pool3d(input.pow(norm_type), kernel_size, padding=0, ceil_mode=ceil_mode)
    return _lp_finish(out, norm_type, kd * kw * kh)


# ---------------------------------------------------------------- the *_with_indices names (torch's boolean_dispatch halves)
def max_pool1d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                            return_indices=False):
    if _TF:      # torch's has_torch_function check: a mode or subclass sees F.max_pool1d_with_indices
        _r = _tf.handle_locals(max_pool1d_with_indices, locals())
        if _r is not _tf.NOT_HANDLED:
            return _r
    return max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def max_pool2d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                            return_indices=False):
    if _TF:      # torch's has_torch_function check: a mode or subclass sees F.max_pool2d_with_indices
        _r = _tf.handle_locals(max_pool2d_with_indices, locals())
        if _r is not _tf.NOT_HANDLED:
            return _r
    return max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def max_pool3d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                            return_indices=False):
    if _TF:      # torch's has_torch_function check: a mode or subclass sees F.max_pool3d_with_indices
        _r = _tf.handle_locals(max_pool3d_with_indices, locals())
        if _r is not _tf.NOT_HANDLED:
            return _r
    return max_pool3d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def adaptive_max_pool1d_with_indices(input, output_size, return_indices=False):
    if _TF:      # torch's has_torch_function check: a mode or subclass sees F.adaptive_max_pool1d_with_indices
        _r = _tf.handle_locals(adaptive_max_pool1d_with_indices, locals())
        if _r is not _tf.NOT_HANDLED:
            return _r
    return adaptive_max_pool1d(input, output_size, True)


def adaptive_max_pool2d_with_indices(input, output_size, return_indices=False):
    if _TF:      # torch's has_torch_function check: a mode or subclass sees F.adaptive_max_pool2d_with_indices
        _r = _tf.handle_locals(adaptive_max_pool2d_with_indices, locals())
        if _r is not _tf.NOT_HANDLED:
            return _r
    return adaptive_max_pool2d(input, output_size, True)


def adaptive_max_pool3d_with_indices(input, output_size, return_indices=False):
    if _TF:      # torch's has_torch_function check: a mode or subclass sees F.adaptive_max_pool3d_with_indices
        _r = _tf.handle_locals(adaptive_max_pool3d_with_indices, locals())
        if _r is not _tf.NOT_HANDLED:
            return _r
    return adaptive_max_pool3d(input, output_size, True)


# ---------------------------------------------------------------- max_unpool1d / 3d
def _unpool_output_size(input, kernel_size, stride, padding, output_size):
    n = len(kernel_size)
    default = [(input.shape[-n + d] - 1) * stride[d] + kernel_size[d] - 2 * padding[d] for d in range(n)]
    if output_size is None:
        return default
    if len(output_size) == n + 2:
        output_size = output_size[2:]
    if len(output_size) != n:
        raise ValueError(f"output_size should be a sequence containing {n} or {n + 2} elements, but it has a length "
                         f"of '{len(output_size)}'")
    for d in range(n):
        lo, hi = default[d] - stride[d], default[d] + stride[d]
        if not lo < output_size[d] < hi:
            raise ValueError(f'invalid output_size "{output_size}" (dim {d} must be between {lo} and {hi})')
    return list(output_size)


def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    if _TF:      # torch's has_torch_function check: a mode or subclass sees F.max_unpool1d
        _r = _tf.handle_locals(max_unpool1d, locals())
        if _r is not _tf.NOT_HANDLED:
            return _r
    k = _tuple(kernel_size, 1)
    s = k if stride is None else _tuple(stride, 1)
    size = _unpool_output_size(input, k, s, _tuple(padding, 1), output_size)
    return ember._nn.max_unpool2d(input.unsqueeze(-1), indices.unsqueeze(-1), list(size) + [1]).squeeze(-1)


def max_unpool3d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """torch's max_unpool3d: each value goes to its flat index in its D*H*W output volume (computed here as
    the 2-d unpool of one D*H*W row, whose indices are the same flat positions)."""
    if _TF:      # torch's has_torch_function check: a mode or subclass sees F.max_unpool3d
        _r = _tf.handle_locals(max_unpool3d, locals())
        if _r is not _tf.NOT_HANDLED:
            return _r
    k = _tuple(kernel_size, 3)
    s = k if stride is None else _tuple(stride, 3)
    size = _unpool_output_size(input, k, s, _tuple(padding, 3), output_size)
    if input.dim() not in (4, 5):
        raise RuntimeError(f"Input to max_unpooling3d should be a 4d or 5d Tensor, but got a tensor with "
                           f"{input.dim()} dimensions.")
    if input.shape != indices.shape:
        raise RuntimeError(f"Expected shape of indices to be same as that of the input tensor ({list(input.shape)}) "
                           f"but got indices tensor with shape: {list(indices.shape)}")
    lead = list(input.shape[:-3])
    vol = size[0] * size[1] * size[2]
    out = ember._nn.max_unpool2d(input.reshape(lead + [1, -1]), indices.reshape(lead + [1, -1]), [1, vol])
    return out.reshape(lead + list(size))


def _fractional(input, kernel_size, output_size, output_ratio, _random_samples, d):
    """torch's fractional_max_pool{2,3}d_with_indices: the output size from output_ratio when not given, and
    one uniform sample per (batch, plane, spatial dim) unless _random_samples fixes them."""
    name = f"fractional_max_pool{d}d"
    if output_size is None and output_ratio is None:
        raise ValueError(f"{name} requires specifying either an output_size or an output_ratio")
    if output_size is None:
        if d == 2 and len(output_ratio) > 2:
            raise ValueError(f"{name} requires output_ratio to either be a single Int or tuple of Ints.")
        ratio = [output_ratio] * d if isinstance(output_ratio, (int, float)) else list(output_ratio)
        if len(ratio) == 1:
            ratio = ratio * d
        output_size = [int(input.size(-d + i) * ratio[i]) for i in range(d)]
    if _random_samples is None:
        n_batch = 1 if input.dim() == d + 1 else input.size(0)
        _random_samples = ember.rand(n_batch, input.size(-d - 1), d, dtype=input.dtype, device=input.device)
    return getattr(ember._nn, name)(input, kernel_size, output_size, _random_samples)


def fractional_max_pool2d_with_indices(input, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                                       _random_samples=None):
    """Fractional max pooling over the last two dims (Graham's): (output, indices)."""
    if _TF:      # torch's has_torch_function check: a mode or subclass sees F.fractional_max_pool2d_with_indices
        _r = _tf.handle_locals(fractional_max_pool2d_with_indices, locals())
        if _r is not _tf.NOT_HANDLED:
            return _r
    return _fractional(input, kernel_size, output_size, output_ratio, _random_samples, 2)


def fractional_max_pool2d(input, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                          _random_samples=None):
    if _TF:      # torch's has_torch_function check: a mode or subclass sees F.fractional_max_pool2d
        _r = _tf.handle_locals(fractional_max_pool2d_with_indices if return_indices else fractional_max_pool2d, locals())
        if _r is not _tf.NOT_HANDLED:
            return _r
    out = _fractional(input, kernel_size, output_size, output_ratio, _random_samples, 2)
    return out if return_indices else out[0]


def fractional_max_pool3d_with_indices(input, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                                       _random_samples=None):
    """Fractional max pooling over the last three dims: (output, indices)."""
    if _TF:      # torch's has_torch_function check: a mode or subclass sees F.fractional_max_pool3d_with_indices
        _r = _tf.handle_locals(fractional_max_pool3d_with_indices, locals())
        if _r is not _tf.NOT_HANDLED:
            return _r
    return _fractional(input, kernel_size, output_size, output_ratio, _random_samples, 3)


def fractional_max_pool3d(input, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                          _random_samples=None):
    if _TF:      # torch's has_torch_function check: a mode or subclass sees F.fractional_max_pool3d
        _r = _tf.handle_locals(fractional_max_pool3d_with_indices if return_indices else fractional_max_pool3d, locals())
        if _r is not _tf.NOT_HANDLED:
            return _r
    out = _fractional(input, kernel_size, output_size, output_ratio, _random_samples, 3)
    return out if return_indices else out[0]
