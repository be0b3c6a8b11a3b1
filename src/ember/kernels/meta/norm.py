"""Meta functions for native_layer_norm, native_batch_norm, native_group_norm: torch's shape
checks and the shapes of the saved statistics (mean/rstd)."""
from ..._core import dtype as D
from ..common import _tname, alloc, size_str
from .softmax import _like


def check_mixed_dtype(input, *params):
    """ATen's mixed-dtype rule of the cpu norm kernels (native/mixed_data_type.h). The first given parameter
    decides: of the input's dtype, every other parameter must be too (the kernel's typed read: "expected scalar
    type Double but found Float"); of another dtype, the call is mixed, allowed only with float32 parameters
    ("mixed dtype (CPU): expect parameter to have scalar type of Float") and a float16/bfloat16 input ("all
    inputs must share same datatype.": a float64 input with float32 weights)."""
    dt = input.dtype
    ps = [p for p in params if p is not None]
    if not ps:
        return
    if ps[0].dtype is dt:
        for p in ps:
            if p.dtype is not dt:
                raise RuntimeError(f"expected scalar type {_tname(dt)} but found {_tname(p.dtype)}")
        return
    if any(p.dtype is not D.float32 for p in ps):
        raise RuntimeError("mixed dtype (CPU): expect parameter to have scalar type of Float")
    if dt is not D.float16 and dt is not D.bfloat16:
        raise RuntimeError("mixed dtype (CPU): all inputs must share same datatype.")


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
    check_mixed_dtype(input, weight, bias)
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
    check_mixed_dtype(input, weight, bias, running_mean, running_var)
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
    check_mixed_dtype(input, weight, bias)
    return input._size, (N, group)


def native_group_norm(input, weight, bias, N, C, HxW, group, eps):
    shape, stat = group_norm_spec(input, weight, bias, N, C, HxW, group)
    return alloc(shape, input.dtype, input.device), alloc(stat, input.dtype, input.device), \
        alloc(stat, input.dtype, input.device)


def weight_norm_spec(v, g, dim):
    """The norms' shape: v's with every dim but `dim` set to 1 (the fused kernel takes dim 0 or the last)."""
    last = v.dim() - 1
    if dim not in (0, last):
        raise RuntimeError("Dim must be either 0 or last dim for the weight norm kernel")
    return tuple(s if d == dim else 1 for d, s in enumerate(v._size))


def _weight_norm_interface(v, g, dim=0):
    shape = weight_norm_spec(v, g, dim)
    return alloc(v._size, v.dtype, v.device), alloc(shape, g.dtype, v.device)


def _weight_norm_interface_backward(grad_w, saved_v, saved_g, saved_norms, dim):
    weight_norm_spec(saved_v, saved_g, dim)
    return alloc(saved_v._size, saved_v.dtype, saved_v.device), alloc(saved_g._size, saved_g.dtype, saved_v.device)


def native_layer_norm_backward(grad_out, input, normalized_shape, mean, rstd, weight, bias, output_mask):
    return (_like(input) if output_mask[0] else None,
            _like(weight) if output_mask[1] and weight is not None else None,
            _like(bias) if output_mask[2] and bias is not None else None)


def native_batch_norm_backward(grad_out, input, weight, running_mean, running_var, save_mean, save_invstd, train,
                               eps, output_mask):
    c = input._size[1]
    return (_like(input) if output_mask[0] else None,
            alloc((c,), input.dtype, input.device) if output_mask[1] else None,
            alloc((c,), input.dtype, input.device) if output_mask[2] else None)


def native_group_norm_backward(grad_out, input, mean, rstd, weight, N, C, HxW, group, output_mask):
    return (_like(input) if output_mask[0] else None,
            alloc((C,), input.dtype, input.device) if output_mask[1] else None,
            alloc((C,), input.dtype, input.device) if output_mask[2] else None)
