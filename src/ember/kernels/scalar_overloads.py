"""CompositeImplicitAutograd Scalar overloads (where.ScalarOther, remainder.Scalar_Tensor, eq_.Scalar ...):
each forwards its Python number to the Tensor overload of the same name, which takes it as a wrapped
number (torch wraps it with wrapped_scalar_tensor the same way). They exist so that the schema, and with it
the Python binding, accepts a number exactly where torch's does."""


def _aten():
    from .._ops import ops
    return ops.aten


def where(condition, self, other):
    return _aten().where.self(condition, self, other)


def remainder(self, other):
    return _aten().remainder.Tensor(self, other)


def remainder_(self, other):
    return _aten().remainder_.Tensor(self, other)


def rsub(self, other, alpha=1):
    return _aten().rsub.Tensor(self, other, alpha=alpha)


def _binary(name):
    def fn(self, other):
        return getattr(_aten(), name).Tensor(self, other)
    fn.__name__ = name
    return fn


bitwise_and = _binary("bitwise_and")
bitwise_or = _binary("bitwise_or")
bitwise_xor = _binary("bitwise_xor")
bitwise_and_ = _binary("bitwise_and_")
bitwise_or_ = _binary("bitwise_or_")
bitwise_xor_ = _binary("bitwise_xor_")
eq_ = _binary("eq_")
ne_ = _binary("ne_")
lt_ = _binary("lt_")
le_ = _binary("le_")
gt_ = _binary("gt_")
ge_ = _binary("ge_")
