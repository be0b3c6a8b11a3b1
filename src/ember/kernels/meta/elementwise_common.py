"""Meta functions for elementwise ops: output shape (broadcast), dtype (promotion) and strides
(the memory order of the first full-size dense input, else contiguous; TensorIterator's rule, simplified).
The cpu kernels call these same functions to allocate their outputs."""
from ..._core import dtype as D
from ..._core.promotion import binary_result_type, can_cast, result_type, get_default_dtype
from ..._core.device import META
from ..._core.strides import contiguous_strides, iterator_strides, same_shape
from ..._core.tensor_impl import TensorImpl as Tensor
from ..common import broadcast_shapes, empty_tensor

# kinds of result dtype
ARITH, TRUE_DIV, COMPARE, LOGICAL, BITWISE, FLOAT_OUT = range(6)
ABS = 6          # like ARITH, but a complex input gives its real dtype (abs)


def out_strides(shape, *operands):
    """The output strides TensorIterator picks: contiguous when the first full-size operand is,
    else the memory order of the operands (see _core.strides.iterator_strides)."""
    if 0 in shape:
        return _empty_out_strides(shape, operands)
    nd = len(shape)
    ops = []
    same = True
    for t in operands:
        if isinstance(t, Tensor):
            st = t.stride()
            if not same_shape(t._size, shape):
                same = False
            elif not ops and same_shape(st, contiguous_strides(shape)) and 1 not in shape:
                return st       # (with a size-1 dim, ties between its stride and another go to later operands)
            pad = nd - len(t._size)
            ops.append(((1,) * pad + tuple(t._size), (0,) * pad + tuple(st)))
        else:
            same = False
    if not ops:
        return contiguous_strides(shape)
    if same and 1 in shape:
        st = _fast_setup_strides(shape, ops)
        if st is not None:
            return st
    if _row_major(shape, ops):
        return contiguous_strides(shape)
    return iterator_strides(shape, ops)


def _fast_setup_strides(shape, ops):
    """TensorIterator's fast setup, for operands that are all tensors of the result's shape (a number is a 0-d
    operand and prevents it): all contiguous (size-1 dims taking any stride) gives a contiguous result, all
    channels-last contiguous a channels-last one, all dense with one set of strides exactly those strides (odd
    size-1 strides included: neg of a (1, 3, 4) tensor with strides (7, 1, 3) keeps them). None otherwise (the
    dims are then ordered by strides: `e + 1` of a contiguous (3, 1, 4) with strides (4, 7, 1) is (4, 12, 1)).
    Only asked when a dim has size 1: without one the other rules give the same strides."""
    from ..._core.strides import is_channels_last_contiguous, is_contiguous, is_non_overlapping_and_dense
    tshape = tuple(shape)
    for osz, _ in ops:
        if osz != tshape:
            return None
    if all(is_contiguous(tshape, st) for _, st in ops):
        return contiguous_strides(tshape)
    if len(tshape) == 4 and all(is_channels_last_contiguous(tshape, st, 4) for _, st in ops):
        from ..._core.strides import channels_last_strides
        return channels_last_strides(tshape)
    first = ops[0][1]
    if all(st == first for _, st in ops) and is_non_overlapping_and_dense(tshape, first):
        return first
    return None


def _empty_out_strides(shape, operands):
    """TensorIterator's output strides for a result with no elements. Every empty tensor is contiguous
    (compute_contiguous), so when all operands have the result's shape the fast setup gives contiguous
    strides; a number, a 0-d or a broadcast operand sends it to reorder_dimensions instead: dims ordered by
    the operands' strides and laid out with the raw sizes, a 0 zeroing the strides outside it (`e + 1`
    for an empty (0, 1, 4) has strides (4, 0, 1), as in torch)."""
    nd = len(shape)
    ops = []
    same = True
    for t in operands:
        if isinstance(t, Tensor):
            sz = tuple(t._size)
            if sz != tuple(shape):
                same = False
            pad = nd - len(sz)
            ops.append(((1,) * pad + sz, (0,) * pad + tuple(t.stride())))
        elif t is not None:
            same = False        # a number is a 0-d operand of the iterator
    if same or not ops:
        return contiguous_strides(shape)
    return iterator_strides(shape, ops)


def _row_major(shape, ops):
    """True when iterator_strides would keep the dims in order, so the result is contiguous: no dim of
    size 1, and every operand's strides (broadcast dims aside) strictly decrease from the first dim to
    the last (a chunk of a matrix, a slice of rows). Saves its sort for the commonest strided case."""
    if 1 in shape:
        return False
    for osz, ost in ops:
        prev = None
        for n, s in zip(osz, ost):
            if n == 1 or s == 0:
                continue
            if prev is not None and s >= prev:
                return False
            prev = s
    return True


def binary_dtypes(a, b, kind, name="op"):
    """(compute dtype, result dtype) for a binary op of the given kind."""
    c = binary_result_type(a, b)
    if kind == ARITH:
        return c, c
    if kind == TRUE_DIV:
        if not (c.is_floating_point or c.is_complex):
            c = get_default_dtype()
        return c, c
    if kind == COMPARE:
        return c, D.bool_
    if kind == LOGICAL:
        return c, D.bool_
    if kind == BITWISE:
        if c.is_floating_point or c.is_complex:
            from ..common import _tname
            raise NotImplementedError(f"\"{name}_cpu\" not implemented for '{_tname(c)}'")
        return c, c
    if kind == FLOAT_OUT:
        c = c if (c.is_floating_point or c.is_complex) else get_default_dtype()
        return c, c
    raise ValueError(kind)


def binary_spec(a, b, kind, name="op"):
    sa = a._size if isinstance(a, Tensor) else ()
    sb = b._size if isinstance(b, Tensor) else ()
    shape = sa if same_shape(sa, sb) else broadcast_shapes(sa, sb)
    cdt, rdt = binary_dtypes(a, b, kind, name)
    return shape, cdt, rdt


def unary_dtype(x, kind):
    d = x.dtype
    if kind == FLOAT_OUT and not (d.is_floating_point or d.is_complex):
        return get_default_dtype()
    if kind == LOGICAL:
        return D.bool_
    if kind == ABS and d.is_complex:
        return d.to_real()
    return d


def check_unary_inplace(self, kind, name):
    """What an in-place unary op refuses before writing: abs_ of a complex tensor (its result is real)."""
    if kind == ABS and self.dtype.is_complex:
        raise RuntimeError(f"In-place {name} is not supported for complex tensors.")
    check_inplace(self, self._size, unary_dtype(self, kind), name)


def meta_binary(kind, name):
    def fn(self, other, *args, **kwargs):
        shape, _, rdt = binary_spec(self, other, kind, name)
        return empty_tensor(shape, rdt, META, out_strides(shape, self, other))
    fn.__name__ = name
    return fn


def meta_binary_inplace(kind, name):
    def fn(self, other, *args, **kwargs):
        shape, _, rdt = binary_spec(self, other, kind, name)
        check_inplace(self, shape, rdt, name)
        return self
    fn.__name__ = name + "_"
    return fn


def meta_unary(kind, name):
    def fn(self, *args, **kwargs):
        return empty_tensor(self._size, unary_dtype(self, kind), META, out_strides(self._size, self))
    fn.__name__ = name
    return fn


def check_inplace(self, shape, rdt, name):
    if tuple(shape) != tuple(self._size):
        raise RuntimeError(f"output with shape {list(self._size)} doesn't match the broadcast shape {list(shape)}")
    if not can_cast(rdt, self.dtype):
        from ..common import _tname
        raise RuntimeError(f"result type {_tname(rdt)} can't be cast to the desired output type {_tname(self.dtype)}")


INTERNAL_OVERLAP = ("unsupported operation: more than one element of the written-to tensor refers to a single memory "
                    "location. Please clone() the tensor before performing the operation.")
PARTIAL_OVERLAP = ("unsupported operation: some elements of the input tensor and the written-to tensor refer to a "
                   "single memory location. Please clone() the tensor before performing the operation.")


def check_mem_overlap(out, *inputs):
    """TensorIterator's compute_mem_overlaps for the tensor a cpu kernel writes (`out=`, or self of an in-place
    op): it may not repeat an element (a stride 0 over a size > 1: assert_no_internal_overlap), and no input may
    share some but not all of its elements (assert_no_partial_overlap: two dense tensors on one storage whose
    byte ranges meet, unless they are the same range with the same strides; a tensor that is not dense is
    "too hard" and passes, as in torch). Checked before the shape and dtype rules, as in TensorIterator's
    build. The meta kernels do not call it: torch's meta tensors pass these calls.

    Cheap in the common case (issue 18): a contiguous `out` (`_stride` None) needs no internal check, and one
    that never had a view or a storage made (`_storage` None) shares memory with no other tensor."""
    st = out._stride
    if st is not None and 0 in st and 0 not in out._size:      # (an empty tensor is non-overlapping and dense)
        for n, s in zip(out._size, st):
            if s == 0 and n > 1:
                raise RuntimeError(INTERNAL_OVERLAP)
    storage = out._storage
    if storage is None:
        return
    for x in inputs:
        if x is not out and isinstance(x, Tensor) and x._storage is storage and overlap_is_partial(out, x):
            raise RuntimeError(PARTIAL_OVERLAP)


def overlap_is_partial(a, b):
    """get_overlap_status(a, b) == Partial, for two tensors on one storage."""
    from ..._core.strides import is_non_overlapping_and_dense, numel
    sa, sb = a._size, b._size
    na, nb = numel(sa), numel(sb)
    if na == 0 or nb == 0:
        return False
    ta, tb = a.stride(), b.stride()
    if not (is_non_overlapping_and_dense(sa, ta) and is_non_overlapping_and_dense(sb, tb)):
        return False
    ia, ib = a.dtype.itemsize, b.dtype.itemsize
    a0, b0 = a._offset * ia, b._offset * ib
    a1, b1 = a0 + na * ia, b0 + nb * ib
    if a0 == b0 and a1 == b1:
        return tuple(ta) != tuple(tb)
    return a0 < b1 and b0 < a1


def where_spec(cond, a, b):
    shape = broadcast_shapes(cond._size, a._size if isinstance(a, Tensor) else (), b._size if isinstance(b, Tensor) else ())
    return shape, result_type(a, b)


def meta_binary_out(kind, name):
    def fn(self, other, *args, out=None, **kwargs):
        from ..common import check_out
        shape, _, rdt = binary_spec(self, other, kind, name)
        check_out(out, shape, rdt, name)
        return out
    fn.__name__ = name + "_out"
    return fn


def meta_unary_inplace(kind, name):
    def fn(self, *args, **kwargs):
        check_unary_inplace(self, kind, name)
        return self
    return fn


def unary_out_rule(kind, self):
    """The out= dtype rule of a unary op of this kind on `self`: TensorIterator::unary_op (abs, neg,
    bitwise_not) checks that every operand has one dtype (abs of a complex tensor into a real `out`: castable
    from the real dtype); the float ops (unary_float_op) and logical_not cast into `out`."""
    from ..out_rules import abs_complex_to_real, same_dtype
    if kind == ABS and self.dtype.is_complex:
        return abs_complex_to_real(self.dtype)
    return same_dtype if kind in (ABS, ARITH) else None


def meta_unary_out(kind, name):
    def fn(self, *args, out=None, **kwargs):
        from ..common import check_out
        check_out(out, self._size, unary_dtype(self, kind), name, unary_out_rule(kind, self))
        return out
    return fn
