"""CompositeImplicitAutograd kernels of native/nn_extra.yaml (decompositions into other ember ops)."""
from .nn_implicit import A


def multilabel_margin_loss(self, target, reduction=1):
    return A().multilabel_margin_loss_forward.default(self, target, reduction)[0]


def norm_except_dim(v, pow=2, dim=0):
    """The `pow`-norm of v over every dim but `dim`, kept as size-1 dims (dim=-1: over everything, 0-dim)."""
    if dim == -1:
        return A().linalg_vector_norm.default(v, pow)
    keep = dim % v.dim() if v.dim() else 0
    return A().linalg_vector_norm.default(v, pow, [d for d in range(v.dim()) if d != keep], True)


def _weight_norm(v, g, dim=0):
    """w = v * (g / ||v||), the norm taken over every dim but `dim`: the fused kernel for dim 0 / last (as torch
    does unless a tensor is half precision), else the formula in ember ops."""
    from .._core import dtype as D
    a = A()
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
    a = A()
    last = saved_v.dim() - 1
    if dim not in (0, last):
        raise RuntimeError("Dim must be either 0 or last dim for the weight norm backward")
    saved_norms = norm_except_dim(saved_v, 2, dim)
    keep = [d for d in range(saved_v.dim()) if d != dim]
    grad_g = a.div.Tensor(a.sum.dim_IntList(a.mul.Tensor(grad_w, saved_v), keep, True), saved_norms)
    grad_v = a.mul.Tensor(a.div.Tensor(saved_g, saved_norms),
                          a.sub.Tensor(grad_w, a.mul.Tensor(saved_v, a.div.Tensor(grad_g, saved_norms))))
    return grad_v, grad_g
