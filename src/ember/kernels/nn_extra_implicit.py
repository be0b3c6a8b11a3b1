"""CompositeImplicitAutograd kernels of native/nn_extra.yaml (decompositions into other ember ops)."""
from .nn_implicit import A


def multilabel_margin_loss(self, target, reduction=1):
    return A().multilabel_margin_loss_forward.default(self, target, reduction)[0]
