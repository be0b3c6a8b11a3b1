"""Meta kernels for every elementwise op, built from the shared meta functions."""
from ..._core.tensor_impl import TensorImpl as Tensor
from .elementwise_common import ABS, ARITH, BITWISE, COMPARE, FLOAT_OUT, LOGICAL, TRUE_DIV, meta_binary, meta_binary_inplace, meta_binary_out, meta_unary, meta_unary_inplace, meta_unary_out, where_spec, out_strides

BINARY = {"add": ARITH, "sub": ARITH, "mul": ARITH, "div": TRUE_DIV, "floor_divide": ARITH, "remainder": ARITH,
          "pow": ARITH, "eq": COMPARE, "ne": COMPARE, "lt": COMPARE, "le": COMPARE, "gt": COMPARE, "ge": COMPARE,
          "logical_and": LOGICAL, "logical_or": LOGICAL, "logical_xor": LOGICAL, "bitwise_and": BITWISE,
          "bitwise_or": BITWISE, "bitwise_xor": BITWISE, "rsub": ARITH, "div_mode": ARITH}
UNARY = {"neg": ARITH, "abs": ABS, "exp": FLOAT_OUT, "log": FLOAT_OUT, "sqrt": FLOAT_OUT, "rsqrt": FLOAT_OUT,
         "sin": FLOAT_OUT, "cos": FLOAT_OUT, "tanh": FLOAT_OUT, "sigmoid": FLOAT_OUT, "relu": ARITH,
         "bitwise_not": ARITH, "logical_not": LOGICAL}

for _n, _k in BINARY.items():
    globals()[_n] = meta_binary(_k, _n)
    globals()[_n + "_"] = meta_binary_inplace(_k, _n)
    globals()[_n + "_out"] = meta_binary_out(_k, _n)
for _n, _k in UNARY.items():
    globals()[_n] = meta_unary(_k, _n)
    globals()[_n + "_"] = meta_unary_inplace(_k, _n)
    globals()[_n + "_out"] = meta_unary_out(_k, _n)


_pow_binary = pow


def pow(self, other):
    """pow(Tensor, Scalar) is a unary TensorIterator in torch: an empty result is contiguous."""
    r = _pow_binary(self, other)
    if 0 in r._size and isinstance(self, Tensor) and not isinstance(other, Tensor):
        from ..common import empty_tensor
        from ..._core.device import META
        return empty_tensor(r._size, r.dtype, META)
    return r


def clamp(self, min=None, max=None):
    from ..._core.promotion import result_type
    from ..common import broadcast_shapes, empty_tensor, shape_of
    from ..._core.device import META
    shape = broadcast_shapes(self._size, shape_of(min), shape_of(max))
    return empty_tensor(shape, result_type(self, *[v for v in (min, max) if v is not None]), META, out_strides(shape, self))


def clamp_(self, min=None, max=None):
    return self


def clamp_min_(self, min):
    """In place with a node of its own (ClampMinBackward0, as torch's), not clamp_'s."""
    return clamp_(self, min, None)


def clamp_max_(self, max):
    return clamp_(self, None, max)


def clamp_min(self, min):
    return clamp(self, min, None)


def clamp_max(self, max):
    return clamp(self, None, max)


def where(condition, self, other):
    from ..common import empty_tensor
    from ..._core.device import META
    shape, dt = where_spec(condition, self, other)
    return empty_tensor(shape, dt, META, out_strides(shape, self, other))
