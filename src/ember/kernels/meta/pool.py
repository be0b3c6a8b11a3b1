"""Meta functions for max/avg/adaptive pooling over the last 1 or 2 dims: torch's argument
checks and pooling_output_shape (ceil_mode rule: the last window must start inside input or left pad)."""
from ..._core import dtype as D
from ..common import alloc, size_str
from .softmax import _like


def _ints(v, d, name, what):
    v = (v,) if isinstance(v, int) else tuple(int(x) for x in v)
    if len(v) == 1:
        v = v * d
    if len(v) != d:
        raise RuntimeError(f"{name}: {what} must either be a single int, or a tuple of "
                           f"{ {1: 'one', 2: 'two', 3: 'three'}[d]} ints")
    return v


def out_size(i, k, p, s, dl, ceil):
    o = (i + 2 * p - dl * (k - 1) - 1 + (s - 1 if ceil else 0)) // s + 1
    if ceil and (o - 1) * s >= i + p:
        o -= 1
    return o


def pool_spec(self, d, kernel_size, stride, padding, dilation, ceil_mode, name):
    k = _ints(kernel_size, d, name, "kernel_size")
    s = k if stride is None or (not isinstance(stride, int) and len(stride) == 0) else _ints(stride, d, name, "stride")
    p = _ints(padding, d, name, "padding")
    dl = _ints(dilation, d, name, "dilation")
    if any(x == 0 for x in s):
        raise RuntimeError("stride should not be zero")
    if any(x <= 0 for x in k):
        raise RuntimeError(f"kernel size should be greater than zero, but got {size_str(k)}")
    nd, sz = self.dim(), self._size
    if not ((nd == d + 1 and all(sz)) or (nd == d + 2 and all(sz[1:]))):     # only a batch dim may be empty
        if d == 2 and name == "avg_pool2d" and 0 < nd < 3:        # torch reads size(-3) before its check
            raise IndexError(f"Dimension out of range (expected to be in range of [{-nd}, {nd - 1}], but got -3)")
        if d == 2 and name != "avg_pool2d" and nd not in (3, 4):
            raise RuntimeError("non-empty 3D or 4D (batch mode) tensor expected for input")
        raise RuntimeError(f"Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, but "
                           f"got:{size_str(sz)}" if d == 2 else
                           f"{name}: Expected 2D or 3D (batch mode) tensor with optional 0 dim batch size for "
                           f"input, but got:{size_str(sz)}")
    for i in range(d):
        if p[i] > (dl[i] * (k[i] - 1) + 1) // 2:
            raise RuntimeError(f"pad should be at most half of effective kernel size, but got pad={p[i]}, "
                               f"kernel_size={k[i]} and dilation={dl[i]}")
    sp = self._size[-d:]
    if name == "avg_pool3d" and any(sp[i] < k[i] for i in range(d)):      # torch's pool3d_shape_check
        raise RuntimeError(f"input image (T: {sp[0]} H: {sp[1]} W: {sp[2]}) smaller than kernel size "
                           f"(kT: {k[0]} kH: {k[1]} kW: {k[2]})")
    o = tuple(out_size(sp[i], k[i], p[i], s[i], dl[i], ceil_mode) for i in range(d))
    if any(x < 1 for x in o):
        lead = self._size[-d - 1]
        raise RuntimeError(f"Given input size: ({'x'.join(map(str, (lead,) + tuple(sp)))}). Calculated output "
                           f"size: ({'x'.join(map(str, (lead,) + o))}). Output size is too small")
    return tuple(self._size[:-d]) + o, (k, s, p, dl, o)


def max_pool2d_with_indices(self, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    shape, _ = pool_spec(self, 2, kernel_size, stride, padding, dilation, ceil_mode, "max_pool2d")
    return alloc(shape, self.dtype, self.device), alloc(shape, D.int64, self.device)


def max_pool1d_with_indices(self, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    shape, _ = pool_spec(self, 1, kernel_size, stride, padding, dilation, ceil_mode, "max_pool1d")
    return alloc(shape, self.dtype, self.device), alloc(shape, D.int64, self.device)


def avg_spec(self, d, kernel_size, stride, padding, ceil_mode, divisor_override, name):
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    spec = pool_spec(self, d, kernel_size, stride, padding, 1, ceil_mode, name)
    check_pool_dtype(self, "avg_pool2d", int64=True)
    return spec


def check_pool_dtype(self, kernel, int64=False):
    """torch's CPU pools run floating dtypes; the average pools also int64 (AT_DISPATCH_FLOATING_TYPES_AND3(Long,
    ...)), the adaptive ones nothing else."""
    if not (self.dtype.is_floating_point or int64 and self.dtype is D.int64):
        from ..common import _tn
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{_tn(self.dtype)}'")


def avg_pool2d(self, kernel_size, stride=(), padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    shape, _ = avg_spec(self, 2, kernel_size, stride, padding, ceil_mode, divisor_override, "avg_pool2d")
    return alloc(shape, self.dtype, self.device)


def adaptive_spec(self, output_size, name, colon=""):
    o = (output_size,) if isinstance(output_size, int) else tuple(int(x) for x in output_size)
    if len(o) == 1:
        o = o * 2
    if self.dim() not in (3, 4):
        raise RuntimeError(f"{name}(): Expected 3D or 4D tensor, but got{colon} {size_str(self._size)}")
    # torch's adaptive_avg_pool2d checks only the two pooled dims; adaptive_max_pool2d every non-batch dim
    for i in range(self.dim() - 2 if name == "adaptive_avg_pool2d" else 1, self.dim()):
        if self._size[i] == 0:
            raise RuntimeError(f"{name}(): Expected input to have non-zero size for non-batch dimensions, but input "
                               f"has sizes {size_str(self._size)} with dimension {i} being empty")
    if len(o) != 2:
        raise RuntimeError(f"{name}(): internal error: output_size.size() must be 2")
    if any(x < 0 for x in o):
        neg = [x for x in o if x < 0][0]
        raise RuntimeError(f"Trying to create tensor with negative dimension {neg}: "
                           f"{size_str(tuple(self._size[:-2]) + o)}")
    check_pool_dtype(self, name)
    return tuple(self._size[:-2]) + o


def _adaptive_avg_pool2d(self, output_size):
    return alloc(adaptive_spec(self, output_size, "adaptive_avg_pool2d"), self.dtype, self.device)


def adaptive_max_pool2d(self, output_size):
    shape = adaptive_spec(self, output_size, "adaptive_max_pool2d", ":")
    return alloc(shape, self.dtype, self.device), alloc(shape, D.int64, self.device)


def max_unpool_spec(self, indices, output_size):
    o = (output_size,) * 2 if isinstance(output_size, int) else tuple(int(v) for v in output_size)
    if len(o) != 2:
        raise RuntimeError(f"There should be exactly two elements (height, width) in output_size, but got "
                           f"{len(o)} elements.")
    if indices.dtype is not D.int64:
        raise RuntimeError(f"elements in indices should be type int64 but got: {indices.dtype}")
    if tuple(self._size) != tuple(indices._size):
        raise RuntimeError(f"Expected shape of indices to be same as that of the input tensor ({size_str(self._size)}"
                           f") but got indices tensor with shape: {size_str(indices._size)}")
    if self.dim() not in (3, 4):
        raise RuntimeError(f"Input to max_unpooling2d should be a 3d or 4d Tensor, but got a tensor with "
                           f"{self.dim()} dimensions.")
    return tuple(self._size[:-2]) + o


def max_unpool2d(self, indices, output_size):
    return alloc(max_unpool_spec(self, indices, output_size), self.dtype, self.device)


def max_pool2d_with_indices_backward(grad_output, self, kernel_size, stride, padding, dilation, ceil_mode, indices):
    return _like(self)


def avg_pool2d_backward(grad_output, self, kernel_size, stride, padding, ceil_mode, count_include_pad,
                        divisor_override):
    return _like(self)


def _adaptive_avg_pool2d_backward(grad_output, self):
    return _like(self)


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
    spec = spec3d(self, kernel_size, stride, padding, 1, ceil_mode, "avg_pool3d")
    check_pool_dtype(self, "avg_pool3d_out_frame", int64=True)
    return spec


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
    check_pool_dtype(self, name + "_cpu")
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
