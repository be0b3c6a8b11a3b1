"""Meta functions for 3-D pooling (max / avg / adaptive over the last three dims) and their backward ops:
torch's argument checks and output shapes; the window arithmetic is pooling.py's pool_spec with d=3."""
from ..._core import dtype as D
from ..common import alloc, size_str
from .pool import pool_spec


def _check_5d(self):
    if self.dim() not in (4, 5) or any(s == 0 for s in self._size[-3:]):
        raise RuntimeError("non-empty 4D or 5D (batch mode) tensor expected for input")


def spec3d(self, kernel_size, stride, padding, dilation, ceil_mode, name):
    _check_5d(self)
    return pool_spec(self, 3, kernel_size, stride, padding, dilation, ceil_mode, name)


def max_pool3d_with_indices(self, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    shape, _ = spec3d(self, kernel_size, stride, padding, dilation, ceil_mode, "max_pool3d")
    return alloc(shape, self.dtype, self.device), alloc(shape, D.int64, self.device)


def avg_spec3d(self, kernel_size, stride, padding, ceil_mode, divisor_override):
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    return spec3d(self, kernel_size, stride, padding, 1, ceil_mode, "avg_pool3d")


def avg_pool3d(self, kernel_size, stride=(), padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    shape, _ = avg_spec3d(self, kernel_size, stride, padding, ceil_mode, divisor_override)
    return alloc(shape, self.dtype, self.device)


def adaptive_spec3d(self, output_size, name, colon=""):
    o = (output_size,) * 3 if isinstance(output_size, int) else tuple(int(x) for x in output_size)   # int[3]
    if self.dim() not in (4, 5):
        raise RuntimeError(f"{name}(): Expected 4D or 5D tensor, but got{colon} {size_str(self._size)}")
    for i in range(1, self.dim()):
        if self._size[i] == 0:
            raise RuntimeError(f"{name}(): Expected input to have non-zero size for non-batch dimensions, but input "
                               f"has sizes {size_str(self._size)} with dimension {i} being empty")
    if len(o) != 3:
        raise RuntimeError(f"{name}: output_size must be 3" if name == "adaptive_avg_pool3d" else
                           f"{name}(): internal error: output_size.size() must be 3")
    if any(x < 0 for x in o):
        neg = [x for x in o if x < 0][0]
        raise RuntimeError(f"Trying to create tensor with negative dimension {neg}: "
                           f"{size_str(tuple(self._size[:-3]) + o)}")
    return tuple(self._size[:-3]) + o


def _adaptive_avg_pool3d(self, output_size):
    return alloc(adaptive_spec3d(self, output_size, "adaptive_avg_pool3d"), self.dtype, self.device)


def adaptive_max_pool3d(self, output_size):
    shape = adaptive_spec3d(self, output_size, "adaptive_max_pool3d", ":")
    return alloc(shape, self.dtype, self.device), alloc(shape, D.int64, self.device)


def check_grad(grad_output, expected, name):
    if tuple(grad_output._size) != tuple(expected):
        raise RuntimeError(f"{name}: expected grad_output of size {size_str(expected)}, but got "
                           f"{size_str(grad_output._size)}")


def same_as_self(grad_output, self, *args, **kwargs):
    return alloc(self._size, self.dtype, self.device)


def max_pool3d_with_indices_backward(grad_output, self, kernel_size, stride, padding, dilation, ceil_mode, indices):
    shape, _ = spec3d(self, kernel_size, stride, padding, dilation, ceil_mode, "max_pool3d")
    check_grad(grad_output, shape, "max_pool3d_with_indices_backward")
    return same_as_self(grad_output, self)


def avg_pool3d_backward(grad_output, self, kernel_size, stride, padding, ceil_mode, count_include_pad,
                        divisor_override):
    shape, _ = avg_spec3d(self, kernel_size, stride, padding, ceil_mode, divisor_override)
    check_grad(grad_output, shape, "avg_pool3d_backward")
    return same_as_self(grad_output, self)


def adaptive_max_pool3d_backward(grad_output, self, indices):
    check_grad(grad_output, indices._size, "adaptive_max_pool3d_backward")
    return same_as_self(grad_output, self)
