"""Hand-written Tensor methods: Python operators and conveniences built on the generated bindings."""
from ._generated import functions as F
from ._tensor import Tensor
from ._ops import ops


def _binary(fn):
    def m(self, other):
        return fn(self, other)
    return m


def _reflected(op):
    """`other <op> self` with a Python number on the left: call the op itself with the wrapped number
    first (the public binding rejects a non-Tensor first argument, as torch's does)."""
    def m(self, other):
        return op(other, self)
    return m


_aten = ops.aten


Tensor.__add__ = Tensor.add
Tensor.__radd__ = _binary(F.add)
Tensor.__iadd__ = Tensor.add_
Tensor.__sub__ = Tensor.sub
Tensor.__rsub__ = lambda self, other: F.rsub(self, other)
Tensor.__isub__ = Tensor.sub_
Tensor.__mul__ = Tensor.mul
Tensor.__rmul__ = _binary(F.mul)
Tensor.__imul__ = Tensor.mul_
Tensor.__truediv__ = Tensor.div
Tensor.__rtruediv__ = _reflected(_aten.div.Tensor)
Tensor.__itruediv__ = Tensor.div_
Tensor.__floordiv__ = Tensor.floor_divide
Tensor.__rfloordiv__ = _reflected(_aten.floor_divide.default)
Tensor.__ifloordiv__ = Tensor.floor_divide_
Tensor.__mod__ = Tensor.remainder
Tensor.__rmod__ = _reflected(_aten.remainder.Tensor)
Tensor.__imod__ = Tensor.remainder_
Tensor.__pow__ = Tensor.pow
Tensor.__rpow__ = _reflected(_aten.pow.Scalar)
Tensor.__ipow__ = Tensor.pow_
Tensor.__neg__ = Tensor.neg
Tensor.__abs__ = Tensor.abs
Tensor.__pos__ = lambda self: self
Tensor.__invert__ = Tensor.bitwise_not
Tensor.__and__ = Tensor.bitwise_and
Tensor.__rand__ = _binary(F.bitwise_and)
Tensor.__iand__ = Tensor.bitwise_and_
Tensor.__or__ = Tensor.bitwise_or
Tensor.__ror__ = _binary(F.bitwise_or)
Tensor.__ior__ = Tensor.bitwise_or_
Tensor.__xor__ = Tensor.bitwise_xor
Tensor.__rxor__ = _binary(F.bitwise_xor)
Tensor.__ixor__ = Tensor.bitwise_xor_
Tensor.__eq__ = Tensor.eq
Tensor.__ne__ = Tensor.ne
Tensor.__lt__ = Tensor.lt
Tensor.__le__ = Tensor.le
Tensor.__gt__ = Tensor.gt
Tensor.__ge__ = Tensor.ge
Tensor.__hash__ = lambda self: id(self)
Tensor.__matmul__ = Tensor.matmul
Tensor.__rmatmul__ = lambda self, other: F.matmul(other, self)
Tensor.__imatmul__ = lambda self, other: self.copy_(self.matmul(other))
