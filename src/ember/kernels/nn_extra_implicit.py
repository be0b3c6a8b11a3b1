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
    """w = v * (g / ||v||), the norm taken over every dim but `dim`."""
    return A().mul.Tensor(v, A().div.Tensor(g, norm_except_dim(v, 2, dim)))
