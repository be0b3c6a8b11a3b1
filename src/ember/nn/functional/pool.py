"""nn.functional's pools (torch/nn/functional.py max/avg/adaptive pools 1d-3d, max_unpool2d)."""


import ember

__all__ = ["max_pool1d", "max_pool2d", "avg_pool1d", "avg_pool2d", "adaptive_avg_pool1d",
           "adaptive_avg_pool2d", "adaptive_max_pool1d", "adaptive_max_pool2d", "max_unpool2d", "max_pool3d",
           "avg_pool3d", "adaptive_avg_pool3d", "adaptive_max_pool3d", "lp_pool1d", "lp_pool2d", "lp_pool3d"]


def _stride(stride):
    return [] if stride is None else stride


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    if return_indices:
        return ember.max_pool1d_with_indices(input, kernel_size, _stride(stride), padding, dilation, ceil_mode)
    return ember.max_pool1d(input, kernel_size, _stride(stride), padding, dilation, ceil_mode)


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
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
    return ember._nn.adaptive_avg_pool2d(input, _adaptive_size(input, output_size, 2))


def adaptive_max_pool1d(input, output_size, return_indices=False):
    out = ember.adaptive_max_pool1d(input, output_size)
    return out if return_indices else out[0]


def adaptive_max_pool2d(input, output_size, return_indices=False):
    out = ember._nn.adaptive_max_pool2d(input, _adaptive_size(input, output_size, 2))
    return out if return_indices else out[0]


def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    k = (kernel_size, kernel_size) if isinstance(kernel_size, int) else tuple(kernel_size)
    s = k if stride is None else ((stride, stride) if isinstance(stride, int) else tuple(stride))
    p = (padding, padding) if isinstance(padding, int) else tuple(padding)
    if output_size is None:
        output_size = [(input.shape[-2 + i] - 1) * s[i] + k[i] - 2 * p[i] for i in range(2)]
    else:
        output_size = list(output_size)[-2:]
    return ember._nn.max_unpool2d(input, indices, output_size)


def max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    if return_indices:
        return ember._nn.max_pool3d_with_indices(input, kernel_size, _stride(stride), padding, dilation, ceil_mode)
    return ember.max_pool3d(input, kernel_size, _stride(stride), padding, dilation, ceil_mode)


def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    return ember._nn.avg_pool3d(input, kernel_size, _stride(stride), padding, ceil_mode, count_include_pad,
                            divisor_override)


def adaptive_avg_pool3d(input, output_size):
    return ember._nn.adaptive_avg_pool3d(input, _adaptive_size(input, output_size, 3))


def adaptive_max_pool3d(input, output_size, return_indices=False):
    out = ember._nn.adaptive_max_pool3d(input, _adaptive_size(input, output_size, 3))
    return out if return_indices else out[0]


def _lp_finish(out, norm_type, count):
    """(sum over the window of x^p)^(1/p) from the window mean: sign(m) relu(|m|) * count, to the 1/p."""
    return (ember.sign(out) * ember.relu(ember.abs(out))).mul(count).pow(1.0 / norm_type)


def _tuple(v, n):
    return tuple(v) if isinstance(v, (list, tuple)) else (v,) * n


def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """The power-average pool: (sum over each window of x^p)^(1/p) (torch composes it from avg_pool1d)."""
    if stride is not None:
        out = avg_pool1d(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    else:
        out = avg_pool1d(input.pow(norm_type), kernel_size, padding=0, ceil_mode=ceil_mode)
    (k,) = _tuple(kernel_size, 1)
    return _lp_finish(out, norm_type, k)


def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    kw, kh = _tuple(kernel_size, 2)
    if stride is not None:
        out = avg_pool2d(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    else:
        out = avg_pool2d(input.pow(norm_type), kernel_size, padding=0, ceil_mode=ceil_mode)
    return _lp_finish(out, norm_type, kw * kh)


def lp_pool3d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    kd, kw, kh = _tuple(kernel_size, 3)
    if stride is not None:
        out = avg_pool3d(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    else:
        out = avg_pool3d(input.pow(norm_type), kernel_size, padding=0, ceil_mode=ceil_mode)
    return _lp_finish(out, norm_type, kd * kw * kh)
