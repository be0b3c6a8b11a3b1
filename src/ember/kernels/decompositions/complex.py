"""CompositeImplicitAutograd conj / resolve_conj / resolve_neg: conj() of a complex tensor is
the lazy `_conj` view (the conj bit, see ember/_math_bits.py) and of any other tensor the tensor itself;
resolving a bit is a clone (the clone reads the logical values), as in torch."""

from ..._ops import ops

aten = ops.aten


def conj(self):
    if not self.dtype.is_complex:
        return self
    return aten._conj.default(self)


def resolve_conj(self):
    if not self.is_conj():
        return self
    return aten.clone.default(self)


def resolve_neg(self):
    if not self.is_neg():
        return self
    return aten.clone.default(self)
