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


def _hh_check(input, tau):
    from .common import _tn
    pre = "torch.linalg.householder_product: "
    if input.dim() < 2:
        raise RuntimeError(pre + "input must have at least 2 dimensions.")
    m, n = input.shape[-2], input.shape[-1]
    if m < n:
        raise RuntimeError(pre + "input.shape[-2] must be greater than or equal to input.shape[-1]")
    if n < tau.shape[-1] if tau.dim() else False:
        raise RuntimeError(pre + "input.shape[-1] must be greater than or equal to tau.shape[-1]")
    if tau.dim() != input.dim() - 1:
        raise RuntimeError(pre + f"Expected tau to have one dimension less than input, but got tau.ndim equal to "
                           f"{tau.dim()} and input.ndim is equal to {input.dim()}")
    if tuple(tau.shape[:-1]) != tuple(input.shape[:-2]):
        raise RuntimeError(pre + "Expected batch dimensions of tau to be equal to input.shape[:-2], but got "
                           f"[{', '.join(str(s) for s in tau.shape[:-1])}]")
    if tau.dtype is not input.dtype:
        raise RuntimeError(pre + f"tau dtype {_tn(tau.dtype)} does not match input dtype {_tn(input.dtype)}")


def linalg_householder_product(input, tau):
    """The first n columns of H_0 H_1 ... H_{k-1}, H_i = I - tau_i v_i v_i^H, v_i = column i of `input` below
    the diagonal with an implicit 1 on it (LAPACK's orgqr). One rank-1 update per reflector, in ember ops."""
    import ember as E
    _hh_check(input, tau)
    m, n, k = input.shape[-2], input.shape[-1], tau.shape[-1]
    rows = E.arange(m).unsqueeze(-1)                                   # (m, 1)
    Q = E.eye(m, n, dtype=input.dtype).expand(*input.shape[:-2], m, n)
    for i in range(k - 1, -1, -1):
        col = input[..., :, i:i + 1]                                   # (*, m, 1)
        v = E.where(rows > i, col, (rows == i).to(input.dtype))
        Q = Q - tau[..., i:i + 1].unsqueeze(-1) * (v @ (v.mH @ Q))
    return Q
