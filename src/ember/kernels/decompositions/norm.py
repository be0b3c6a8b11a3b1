"""CompositeImplicitAutograd kernels of the normalizations (torch's Normalization.cpp, layer_norm.cpp, group_norm.cpp composites)."""

from ..common import size_str
from ..._ops import ops

aten = ops.aten


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-05, cudnn_enable=True):
    return aten.native_layer_norm.default(input, normalized_shape, weight, bias, eps)[0]


def batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps, cudnn_enabled):
    return aten.native_batch_norm.default(input, weight, bias, running_mean, running_var, training, momentum, eps)[0]


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-05, cudnn_enabled=True):
    n, c = input._size[0], input._size[1]
    hxw = 1
    for s in input._size[2:]:
        hxw *= s
    return aten.native_group_norm.default(input, weight, bias, n, c, hxw, num_groups, eps)[0]


def instance_norm(input, weight, bias, running_mean, running_var, use_input_stats, momentum, eps, cudnn_enabled):
    n, c = input._size[0], input._size[1]
    for nm, t in (("weight", weight), ("bias", bias), ("running_mean", running_mean), ("running_var", running_var)):
        if t is not None and t.numel() != c:
            raise RuntimeError(f"{nm} should contain {n * c} elements not {n * t.numel()}")
    x = aten.reshape.default(input, [1, n * c] + list(input._size[2:]))

    def rep(t):
        return None if t is None else aten.reshape.default(aten.expand.default(aten.unsqueeze.default(t, 0), [n, c]),
                                                          [n * c])
    rm, rv = rep(running_mean), rep(running_var)
    out = aten.native_batch_norm.default(x, rep(weight), rep(bias), rm, rv, use_input_stats, momentum, eps)[0]
    if use_input_stats:
        for src, dst in ((rm, running_mean), (rv, running_var)):
            if dst is not None:
                aten.copy_.default(dst, aten.mean.dim(aten.view.default(src, [n, c]), [0], False))
    return aten.view.default(out, list(input._size))


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
    ms = aten.mean.dim(aten.mul.Tensor(input, input), dims, True)
    out = aten.mul.Tensor(input, aten.rsqrt.default(aten.add.Scalar(ms, eps)))
    return out if weight is None else aten.mul.Tensor(out, weight)


def norm_except_dim(v, pow=2, dim=0):
    """The `pow`-norm of v over every dim but `dim`, kept as size-1 dims (dim=-1: over everything, 0-dim)."""
    if dim == -1:
        return aten.linalg_vector_norm.default(v, pow)
    keep = dim % v.dim() if v.dim() else 0
    return aten.linalg_vector_norm.default(v, pow, [d for d in range(v.dim()) if d != keep], True)


def _weight_norm(v, g, dim=0):
    """w = v * (g / ||v||), the norm taken over every dim but `dim`: the fused kernel for dim 0 / last (as torch
    does unless a tensor is half precision), else the formula in ember ops."""
    from ..._core import dtype as D
    a = aten
    v, g = a.contiguous.default(v), a.contiguous.default(g)
    half = any(t.dtype in (D.float16, D.bfloat16) for t in (v, g))
    if not half and (dim == 0 or dim == v.dim() - 1):
        return a._weight_norm_interface.default(v, g, dim)[0]
    return a.mul.Tensor(v, a.div.Tensor(g, norm_except_dim(v, 2, dim)))


def _weight_norm_differentiable_backward(grad_w, saved_v, saved_g, saved_norms, dim):
    """(grad_v, grad_g) of w = g * v / ||v|| in ember ops (so it differentiates again):
    grad_g = <grad_w, v> / ||v||,  grad_v = (g / ||v||) * (grad_w - v * grad_g / ||v||).
    Deviation from torch: the norms are recomputed from saved_v instead of read from saved_norms. torch's
    version treats the saved norms as a constant, so its double backward misses the norms' dependence on v
    (torch.autograd.gradgradcheck fails on torch._weight_norm(v, g, 0)); first-order values are identical."""
    a = aten
    last = saved_v.dim() - 1
    if dim not in (0, last):
        raise RuntimeError("Dim must be either 0 or last dim for the weight norm backward")
    saved_norms = norm_except_dim(saved_v, 2, dim)
    keep = [d for d in range(saved_v.dim()) if d != dim]
    grad_g = a.div.Tensor(a.sum.dim_IntList(a.mul.Tensor(grad_w, saved_v), keep, True), saved_norms)
    grad_v = a.mul.Tensor(a.div.Tensor(saved_g, saved_norms),
                          a.sub.Tensor(grad_w, a.mul.Tensor(saved_v, a.div.Tensor(grad_g, saved_norms))))
    return grad_v, grad_g
