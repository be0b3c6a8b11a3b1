"""Shared helpers of the backward formulas (torch's FunctionsManual.cpp, the general part): constants,
broadcast reduction (sum_to / expand_to), masked grads, dtype casts, and the small utilities every family uses."""

import numpy as np

from ..._core.tls import state
from ..._core.tensor_impl import TensorImpl as Tensor
from .._backward import grad as _grad
from .._shape_dtype import (ExpandBackward0, SumToSizeBackward0, ToCopyBackward0, _aten, _const, _fw_linear,  # noqa: F401
                            _meta, _needs_history, _record, expand_to, sum_to, to_dtype)

__all__ = ["ExpandBackward0", "SumToSizeBackward0", "ToCopyBackward0", "const_ones_like", "const_sgn",
           "const_zeros_like", "expand_to", "index_of", "masked_grad", "maybe_multiply", "not_implemented",
           "sum_to", "to_dtype"]


def const_zeros_like(t):
    if state.mode_stack:                 # under a dispatch mode (make_fx, fake tensors) helpers run visible ops
        return _aten().zeros_like.default(t)
    if t._np is None:
        return _meta(t._size, t.dtype)
    return _const(np.zeros(t._size, t.dtype._np), t.dtype)


def const_ones_like(t):
    if state.mode_stack:
        return _aten().ones_like.default(t)
    if t._np is None:
        return _meta(t._size, t.dtype)
    return _const(np.ones(t._size, t.dtype._np), t.dtype)


def maybe_multiply(g, s):
    return g if (not isinstance(s, Tensor) and s == 1) else g * s


def const_sgn(t):
    """sign of t as a constant (its derivative is zero)."""
    if state.mode_stack:
        return _aten().sign.default(t.detach())
    return _const(np.sign(t._logical_np()), t.dtype)


_INT_OF = {4: np.int32, 8: np.int64, 2: np.int16}


def masked_grad(mask, grad):
    """where(mask, grad, 0) — keeps nan out of masked-off elements. Without a graph to record
    (no create_graph) it is one bitwise AND of grad's bits with the mask (np.where is branchy and
    several times slower)."""
    if _needs_history(grad, mask) or grad._np is None or mask._np is None or "_fw_tangent" in grad.__dict__ \
            or state.mode_stack:
        from ..._generated.functions import where
        return where(mask, grad, const_zeros_like(grad))
    g, m = grad._logical_np(), mask._np
    if g.size <= 1024 and m.size <= 1024 and m.dtype == np.bool_ and g.dtype.kind == "f":
        # small: np.where's branchy loop beats the integer AND's four calls (32 floats: 1.2 against 3.4 us; from
        # ~4k elements a random mask's mispredictions make it the slower one); the same bits: g's where the
        # mask is set (NaN payloads and signed zeros kept), +0.0 elsewhere
        r = np.where(m, g, g.dtype.type(0))
        return Tensor._wrap_fresh(r if r.__class__ is np.ndarray else np.asarray(r), grad.dtype)
    it = _INT_OF.get(g.dtype.itemsize) if g.dtype.kind == "f" else None
    if it is None:
        return _const(np.where(m, g, g.dtype.type(0)), grad.dtype)
    if m.shape != g.shape:
        shape = np.broadcast_shapes(m.shape, g.shape)
        g, m = np.broadcast_to(g, shape), np.broadcast_to(m, shape)
    bits = np.ascontiguousarray(g).view(it)
    keep = np.negative(m, dtype=it) if m.dtype != np.bool_ else np.negative(m.view(np.int8), dtype=it)
    return Tensor._wrap_fresh(np.bitwise_and(bits, keep).view(g.dtype), grad.dtype)


def _zeros(shape, dtype):
    if state.mode_stack:
        return _aten().zeros.default(list(shape), dtype=dtype)
    return _const(np.zeros(tuple(shape), dtype._np), dtype)


def index_of(t, indices):
    return _aten().index.Tensor(t, indices)


def _dims(dim, n):
    if dim is None or (isinstance(dim, (list, tuple)) and len(dim) == 0):
        return list(range(n))
    return [d % n if n else 0 for d in ([dim] if isinstance(dim, int) else dim)]


def _dim_index(idx, dim):
    """The index tuple that addresses, in a tensor shaped like the input, the elements `idx` picks along dim."""
    n = idx.dim()
    out = []
    for d in range(n):
        if d == dim:
            out.append(idx)
        else:
            shape = [1] * n
            shape[d] = idx._size[d]
            out.append(_const(np.arange(idx._size[d]).reshape(shape), idx.dtype))
    return out


def _mH(x):
    return x.mT.conj() if x.is_complex() else x.mT


def not_implemented(what):
    """torch's not_implemented (TORCH_CHECK_NOT_IMPLEMENTED): the node exists, running it raises."""
    raise NotImplementedError(f"the derivative for '{what}' is not implemented.")


def _numel(shape):
    n = 1
    for s in shape:
        n *= int(s)
    return n


def _eval(fn, x):
    from ..._grad_mode import no_grad
    with no_grad():
        return fn(x)


def _f64():
    from ..._core import dtype as D
    return D.float64


def _i64():
    from ..._core import dtype as D
    return D.int64


def _on_meta(*ts):
    """On the meta device there are no values to build index constants from: the grads are shapes only."""
    return any(t is not None and t.device.type == "meta" for t in ts)


def _ints(arr):
    from ..._core import dtype as D
    return _const(arr, D.int64)


def _at(grads, i):
    """grads[i], or None when output i got no grad (or the node has fewer outputs: an undefined bias grad)."""
    return grads[i] if i < len(grads) else None


def _vjp_composite(fn, primals, cotangents):
    """Gradients of sum_i <cotangents[i], fn(*primals)[i]> w.r.t. each primal (None for None
    primals or unused ones), differentiable when the outer backward records a graph."""
    from ..._grad_mode import enable_grad
    create = state.grad_enabled
    pairs_c = [c for c in cotangents]
    with enable_grad():
        zs, ins, where = [], [], []
        for i, p in enumerate(primals):
            if p is None:
                ins.append(None)
                continue
            z = const_zeros_like(p).requires_grad_()
            zs.append(z)
            where.append(i)
            ins.append(p + z)
        outs = fn(*ins)
        used = [(o, c) for o, c in zip(outs, pairs_c) if o is not None and c is not None and o.requires_grad]
        res = [None] * len(primals)
        if not used:
            return res
        gs = _grad([o for o, _ in used], zs, [c for _, c in used], create_graph=create, allow_unused=True)
    for i, g in zip(where, gs):
        res[i] = g
    return res
