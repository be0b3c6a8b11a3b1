"""Meta functions for native_layer_norm, native_batch_norm, native_group_norm: torch's shape
checks and the shapes of the saved statistics (mean/rstd)."""
from ..._core import dtype as D
from ..common import alloc, size_str


def layer_norm_spec(input, normalized_shape, weight, bias):
    ns = tuple(int(s) for s in normalized_shape)
    if len(ns) < 1:
        raise RuntimeError("Expected normalized_shape to be at least 1-dimensional, i.e., containing at least one "
                           "element, but got normalized_shape = []")
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and tuple(t._size) != ns:
            raise RuntimeError(f"Expected {name} to be of same shape as normalized_shape, but got {name} of shape "
                               f"{size_str(t._size)} and normalized_shape = {size_str(ns)}")
    k = len(ns)
    if input.dim() < k or tuple(input._size[input.dim() - k:]) != ns:
        raise RuntimeError(f"Given normalized_shape={size_str(ns)}, expected input with shape [*, "
                           f"{', '.join(str(s) for s in ns)}], but got input of size{size_str(input._size)}")
    axis = input.dim() - k
    stat = tuple(input._size[:axis]) + (1,) * k
    return input._size, stat, axis


def native_layer_norm(input, normalized_shape, weight, bias, eps):
    shape, stat, _ = layer_norm_spec(input, normalized_shape, weight, bias)
    return alloc(shape, input.dtype, input.device), alloc(stat, input.dtype, input.device), \
        alloc(stat, input.dtype, input.device)


def batch_norm_spec(input, weight, bias, running_mean, running_var, training):
    if input.dim() < 2:
        raise RuntimeError(f"Expected at least 2D input (got {input.dim()}D input)")
    c = input._size[1]
    for name, t in (("weight", weight), ("bias", bias), ("running_mean", running_mean), ("running_var", running_var)):
        if t is not None and t.numel() != c:
            raise RuntimeError(f"{name} should contain {c} elements not {t.numel()}")
    if not training and running_mean is None:
        raise RuntimeError("running_mean must be defined in evaluation mode")
    if not training and running_var is None:
        raise RuntimeError("running_var must be defined in evaluation mode")
    return input._size, ((c,) if training else (0,))


def native_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps):
    shape, stat = batch_norm_spec(input, weight, bias, running_mean, running_var, training)
    sdt = D.float32 if input.dtype in (D.float16, D.bfloat16) else input.dtype
    return alloc(shape, input.dtype, input.device), alloc(stat, sdt, input.device), alloc(stat, sdt, input.device)


def group_norm_spec(input, weight, bias, N, C, HxW, group):
    if C % group:
        raise RuntimeError(f"Expected number of channels in input to be divisible by num_groups, but got input of "
                           f"shape {size_str(input._size)} and num_groups={group}")
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and (t.dim() != 1 or t.numel() != C):
            raise RuntimeError(f"Expected {name} to be a vector of size equal to the number of channels in input, "
                               f"but got {name} of shape {size_str(t._size)} and input of shape "
                               f"{size_str(input._size)}")
    if input.numel() != N * C * HxW:
        raise RuntimeError(f"Expected input to have {N * C * HxW} elements, got {input.numel()}")
    return input._size, (N, group)


def native_group_norm(input, weight, bias, N, C, HxW, group, eps):
    shape, stat = group_norm_spec(input, weight, bias, N, C, HxW, group)
    return alloc(shape, input.dtype, input.device), alloc(stat, input.dtype, input.device), \
        alloc(stat, input.dtype, input.device)
