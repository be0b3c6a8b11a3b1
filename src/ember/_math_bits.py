"""The Conjugate and Negative fallbacks (aten/src/ATen/native/MathBitsFallback.h, ConjugateFallback.cpp,
NegateFallback.cpp): how ops read a tensor whose conj or neg bit is set.

`x.conj()` of a complex tensor is a view of the same storage with the conj bit in its key set: the stored
values stay as they are and the logical values are their conjugates (`x.conj().imag` carries the neg bit
the same way). No kernel has to know: every op without a kernel of its own at the Conjugate / Negative key
reaches the boxed fallback here, which

- for a view op (its schema's returns alias an input, nothing written) runs the op below and gives the
  outputs the input's bit (a view of a conjugated tensor is conjugated);
- for every other op replaces each input with the bit set by a resolved copy (the logical values), runs
  the op below on those, and for an in-place or `out=` op writes the result back into the original
  argument through its bit (`x.conj().add_(1)` adds 1 - 0j to x: the logical values change by +1).

Ops that handle the bits themselves fall through: `_conj` / `_neg_view` (they flip the bit),
decompositions (CompositeImplicitAutograd: the ops they call come back here), and the few listed in
NATIVE. Real tensors never carry a bit, so their calls never see this module: the keys are simply not
in their key sets.
"""
import numpy as np

from ._core.dispatch_keys import CONJ_BIT, MATH_BITS, NEG_BIT, DispatchKey
from ._core.tensor_impl import TENSOR_TYPES
from ._fallbacks import _arg_getter
from ._ops import register_fallback

K = DispatchKey

# ops whose kernels read the bits themselves (torch's `makeFallthrough` registrations at both keys)
NATIVE = frozenset({"aten::_conj", "aten::_neg_view"})


def resolve(t):
    """A tensor with t's logical values and no math bit (t itself when it has none): torch's clone of it."""
    if not t._ks & MATH_BITS:
        return t
    if t._np is None:     # meta: no values to resolve, same geometry without the bits
        out = t.__class__._from_storage(t.untyped_storage(), t._offset, t._size, t.stride(), t.dtype)
    else:
        out = t.__class__._wrap_np(t._logical_np(), t.dtype)
    out._ks &= ~MATH_BITS
    return out


def write_back(dst, src):
    """Store the logical values `src` (no bits) into `dst` through dst's bits (torch's _copy_from_and_resize)."""
    if tuple(dst._size) != tuple(src._size):
        from ._ops import ops
        ops.aten.resize_.default.redispatch(dst._ks & ~MATH_BITS & ((1 << int(K.ADInplaceOrView)) - 1),
                                            dst, list(src._size))
    if dst._np is None or src._np is None:
        return
    a = src._np
    if dst._ks & CONJ_BIT:
        a = np.conjugate(a)
    if dst._ks & NEG_BIT:
        a = np.negative(a)
    np.copyto(dst._np, a, casting="unsafe")


def _is_decomposition(op):
    kernels = op._entry.kernels
    return K.CompositeImplicitAutograd in kernels and not any(
        k in kernels for k in (K.CPU, K.Meta, K.CompositeExplicitAutograd, K.CompositeExplicitAutogradNonFunctional))


def _math_bit_fallback(bit):
    def fallback(op, below):
        if op._entry.qualname.split(".")[0] in NATIVE or _is_decomposition(op):
            return None
        schema = op._schema
        flat = schema.arguments.flat_all
        written = [a.name for a in flat if a.annotation is not None and a.annotation.is_write]
        aliased = [a.name for a in flat if a.annotation is not None and not a.annotation.is_write
                   and a.annotation.alias_set]
        if aliased and not written:
            return _view_kernel(op, below, bit, _arg_getter(schema, aliased[0]))
        return _materializing_kernel(op, below, bit, schema, set(written))
    return fallback


def _view_kernel(op, below, bit, get_base):
    """A view of a tensor with the bit has the bit."""
    def kernel(*args, **kwargs):
        out = op.redispatch(below, *args, **kwargs)
        base = get_base(args, kwargs)
        if base.__class__ in TENSOR_TYPES and base._ks & bit:
            for t in (out if out.__class__ in (list, tuple) else (out,)):
                if t.__class__ in TENSOR_TYPES:
                    t._ks |= bit
        return out
    return kernel


def _materializing_kernel(op, below, bit, schema, written):
    positions = [a.name for a in schema.arguments.flat_positional]

    def kernel(*args, **kwargs):
        mutated = []           # (original, resolved clone it was replaced by)

        def swap(name, v):
            if v.__class__ in TENSOR_TYPES:
                if not v._ks & bit:
                    return v
                r = resolve(v)
                if name in written:
                    if mutated:
                        raise RuntimeError(f"{_key_name(bit)} fallback does not support operators with more than "
                                           f"one mutable tensors with {_key_name(bit)}bit set to true.")
                    mutated.append((v, r))
                return r
            if v.__class__ in (list, tuple) and any(x.__class__ in TENSOR_TYPES and x._ks & bit for x in v):
                if name in written:
                    raise RuntimeError(f" fallback doesn't currently support mutable TensorLists with "
                                       f"{_key_name(bit)} inputs. Please materialize all the {_key_name(bit)} input "
                                       f"tensor(s) in the mutable TensorList inputs before calling {op._entry.qualname}")
                return v.__class__(resolve(x) if x.__class__ in TENSOR_TYPES else x for x in v)
            return v

        args = tuple(swap(positions[i] if i < len(positions) else None, v) for i, v in enumerate(args))
        if kwargs:
            kwargs = {k: swap(k, v) for k, v in kwargs.items()}
        out = op.redispatch(below, *args, **kwargs)
        if not mutated:
            return out
        original, clone = mutated[0]
        write_back(original, clone)
        if out is clone:
            return original
        if out.__class__ in (list, tuple):
            return out.__class__(original if x is clone else x for x in out)
        return out
    return kernel


def _key_name(bit):
    return "Conjugate" if bit == CONJ_BIT else "Negative"


register_fallback(K.Conjugate, _math_bit_fallback(CONJ_BIT))
register_fallback(K.Negative, _math_bit_fallback(NEG_BIT))
