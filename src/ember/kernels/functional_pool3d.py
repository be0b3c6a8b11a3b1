"""nn.functional's 3-D pools (torch/nn/functional.py max_pool3d, avg_pool3d, adaptive_*_pool3d) over the
pool3d.yaml ops."""
import ember as E

__all__ = ["max_pool3d", "avg_pool3d", "adaptive_avg_pool3d", "adaptive_max_pool3d"]


def _stride(stride):
    return [] if stride is None else stride


def max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    if return_indices:
        return E._nn.max_pool3d_with_indices(input, kernel_size, _stride(stride), padding, dilation, ceil_mode)
    return E.max_pool3d(input, kernel_size, _stride(stride), padding, dilation, ceil_mode)


def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    return E._nn.avg_pool3d(input, kernel_size, _stride(stride), padding, ceil_mode, count_include_pad,
                            divisor_override)


def _adaptive_size(input, output_size):
    o = [output_size] * 3 if isinstance(output_size, int) else list(output_size)
    return [input.shape[-3 + i] if v is None else v for i, v in enumerate(o)]


def adaptive_avg_pool3d(input, output_size):
    return E._nn.adaptive_avg_pool3d(input, _adaptive_size(input, output_size))


def adaptive_max_pool3d(input, output_size, return_indices=False):
    out = E._nn.adaptive_max_pool3d(input, _adaptive_size(input, output_size))
    return out if return_indices else out[0]
