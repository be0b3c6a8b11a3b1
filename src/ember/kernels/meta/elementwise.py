"""Meta kernels for every elementwise op, built from the shared meta functions."""
from ..._core import dtype as D
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


# ---- the checks torch's meta tensors make for add/sub/rsub and neg (torch._refs, which torch registers as
# these ops' meta kernels): two bool tensors cannot be subtracted (a bool tensor and a number can: `b - 1` on
# meta is int64, unlike cpu, and so is a bool minus a float tensor), alpha must be weakly of the result's Python type (a ValueError there, where cpu
# raises a RuntimeError), and a bool tensor cannot be negated.
_PY_RANK = {bool: 0, int: 1, float: 2, complex: 3}
_BOOL = D.bool_


def _meta_alpha_check(self, other, alpha):
    if alpha is None or alpha.__class__ is int and alpha == 1:    # (the schema default: torch's ref passes None)
        return
    from ..._core.promotion import result_type
    dt = result_type(self, other)
    py = bool if dt is _BOOL else complex if dt.is_complex else float if dt.is_floating_point else int
    at = alpha.__class__
    if at not in _PY_RANK:
        at = complex if isinstance(alpha, complex) else float if isinstance(alpha, float) else int
    if py is not bool and _PY_RANK[at] > _PY_RANK[py]:
        raise ValueError(f"alpha argument of type {at} cannot be safely cast to type {py}!")


def _meta_two_bools(self, other):
    if isinstance(self, Tensor) and isinstance(other, Tensor) and self.dtype is _BOOL and other.dtype is _BOOL:
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not supported. "
                           "Use the `^` or `logical_xor()` operator instead.")


def _checked(fn, two_bools):
    def meta(self, other, *args, **kwargs):
        alpha = args[0] if args else kwargs.get("alpha")
        if two_bools:
            _meta_two_bools(self, other)
        _meta_alpha_check(self, other, alpha)
        return fn(self, other, *args, **kwargs)
    meta.__name__ = fn.__name__
    return meta


add, add_out = _checked(add, False), _checked(add_out, False)       # noqa: F821 (defined by the loop above)
sub, sub_out = _checked(sub, True), _checked(sub_out, True)         # noqa: F821
rsub = _checked(rsub, True)                                         # noqa: F821


def _no_bool_neg(fn):
    def meta(self, *args, **kwargs):
        if self.dtype is _BOOL:
            raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. If you are trying to "
                               "invert a mask, use the `~` or `logical_not()` operator instead.")
        return fn(self, *args, **kwargs)
    meta.__name__ = fn.__name__
    return meta


neg, neg_, neg_out = _no_bool_neg(neg), _no_bool_neg(neg_), _no_bool_neg(neg_out)    # noqa: F821


# ---- torch's meta kernels for the bitwise ops, shifts and floor division are its Python refs (torch._refs), not
# the cpu kernels' dtype switches: bitwise_and/or/xor take floats and complex there (the result is the promoted
# dtype; only the cpu kernel refuses it), floor division refuses two bools, and an in-place or out= result that cannot hold the result's dtype gets the
# refs' "Attempting to cast" message.
from ..._core.device import META                                           # noqa: E402
from ..common import empty_tensor                                            # noqa: E402
from .elementwise_common import binary_spec                                  # noqa: E402


def ref_cast_check(rdt, target):
    """torch._refs' _safe_copy_out / in-place rule: `rdt` must be safely castable to `target`'s dtype."""
    from .elementwise_common import can_cast
    if not can_cast(rdt, target.dtype):
        raise RuntimeError(f"Attempting to cast from {rdt} to out tensor with dtype {target.dtype}, but this can't "
                           "be cast because it is not safe!")


def ref_binary(name, check=None):
    """(functional, in-place, out) meta kernels of a refs-style binary op: `check(self, other)` first, then the
    promoted dtype (ARITH), an in-place result checked by shape then by ref_cast_check."""
    from ..common import check_out

    def spec(self, other):
        if check is not None:
            check(self, other)
        return binary_spec(self, other, ARITH, name)

    def f(self, other, *args, **kwargs):
        shape, _, rdt = spec(self, other)
        return empty_tensor(shape, rdt, META, out_strides(shape, self, other))

    def f_(self, other, *args, **kwargs):
        shape, _, rdt = spec(self, other)
        if tuple(shape) != tuple(self._size):
            raise RuntimeError(f"output with shape {list(self._size)} doesn't match the broadcast shape {list(shape)}")
        ref_cast_check(rdt, self)
        return self

    def f_out(self, other, *args, out=None, **kwargs):
        shape, _, rdt = spec(self, other)
        ref_cast_check(rdt, out)
        check_out(out, shape, out.dtype, name)
        return out
    f.__name__, f_.__name__, f_out.__name__ = name, name + "_", name + "_out"
    return f, f_, f_out


def _no_two_bools(self, other):
    def is_bool(v):
        return v.dtype is _BOOL if isinstance(v, Tensor) else v.__class__ is bool
    if is_bool(self) and is_bool(other):
        raise RuntimeError(f"{_BOOL} not supported for floor_divide")


for _n in ("bitwise_and", "bitwise_or", "bitwise_xor"):
    globals()[_n], globals()[_n + "_"], globals()[_n + "_out"] = ref_binary(_n)
floor_divide, floor_divide_, floor_divide_out = ref_binary("floor_divide", _no_two_bools)


def _div_mode_checked(fn):
    def meta(self, other, *args, **kwargs):
        if (args[0] if args else kwargs.get("rounding_mode")) == "floor":
            _no_two_bools(self, other)
        return fn(self, other, *args, **kwargs)
    meta.__name__ = fn.__name__
    return meta


div_mode, div_mode_, div_mode_out = (_div_mode_checked(div_mode), _div_mode_checked(div_mode_),   # noqa: F821
                                     _div_mode_checked(div_mode_out))                             # noqa: F821
