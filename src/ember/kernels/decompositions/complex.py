"""CompositeImplicitAutograd conj / resolve_conj / resolve_neg, complex, polar: conj() of a complex tensor is
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


def _complex_args(a, b):
    """torch's complex_check_dtype: both half/float/double and of one dtype."""
    names = {"float16": "Half", "float32": "Float", "float64": "Double"}
    if a.dtype.name not in names or b.dtype.name not in names:
        from ..common import _tname
        raise RuntimeError(f"Expected both inputs to be Half, Float or Double tensors but got {_tname(a.dtype)} "
                           f"and {_tname(b.dtype)}")
    if a.dtype is not b.dtype:
        raise RuntimeError(f"Expected object of scalar type {names[a.dtype.name]} but got scalar type "
                           f"{names[b.dtype.name]} for second argument")
    if a.dtype.name == "float16":
        raise NotImplementedError("complex of float16 tensors needs complex32, which ember does not have")


def complex(real, imag):
    """real + i imag, broadcast (composite over stack and view_as_complex; torch has a kernel of its own)."""
    _complex_args(real, imag)
    a, b = ops.aten.broadcast_tensors.default([real, imag])
    return ops.aten.view_as_complex.default(ops.aten.stack.default([a, b], -1))


def polar(abs, angle):
    """abs * (cos(angle) + i sin(angle))."""
    _complex_args(abs, angle)
    return complex(ops.aten.mul.Tensor(abs, ops.aten.cos.default(angle)),
                   ops.aten.mul.Tensor(abs, ops.aten.sin.default(angle)))
