"""CompositeImplicitAutograd conj / resolve_conj: ember has no lazy conjugate bit, so conj() of a
complex tensor is conj_physical (a new tensor, differentiable through it) and of any other tensor
the tensor itself, as in torch."""

from ..._ops import ops

aten = ops.aten


def conj(self):
    if not self.dtype.is_complex:
        return self
    return ops.aten.conj_physical(self)


def resolve_conj(self):
    return self
