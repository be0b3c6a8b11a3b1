"""Helpers used by the formulas in native/derivatives.yaml (torch's FunctionsManual.cpp).

Everything here is written in ember ops or records its own differentiable Node, so a backward
formula is itself differentiable (double backward)."""
import numpy as np

from .._core.tls import state
from .._tensor import Tensor
from .graph import Node


def _const(arr, dtype):
    return Tensor._wrap_np(np.asarray(arr, dtype=dtype._np), dtype)


def zeros_like(t):
    return _const(np.zeros(t._size, t.dtype._np), t.dtype)


def ones_like(t):
    return _const(np.ones(t._size, t.dtype._np), t.dtype)


def maybe_multiply(g, s):
    return g if (not isinstance(s, Tensor) and s == 1) else g * s


def sgn(t):
    """sign of t as a constant (its derivative is zero)."""
    return _const(np.sign(t._np), t.dtype)


def masked_grad(mask, grad):
    """where(mask, grad, 0) — keeps nan out of masked-off elements."""
    from .._generated.functions import where
    return where(mask, grad, zeros_like(grad))


def _needs_history(*ts):
    return state.grad_enabled and any(isinstance(t, Tensor) and t._requires_grad for t in ts)


def _record(out, node, inputs):
    from ._kernel import edge, set_history
    node.next_edges = tuple(edge(t) for t in inputs)
    set_history(out, node)
    return out


# ------------------------------------------------------------ sum_to / expand (broadcast reduction)
class SumToSizeBackward0(Node):
    def __init__(self, shape):
        super().__init__()
        self.shape = shape

    def apply(self, grads):
        return (expand_to(grads[0], self.shape),)


class ExpandBackward0(Node):
    def __init__(self, shape):
        super().__init__()
        self.shape = shape

    def apply(self, grads):
        return (sum_to(grads[0], self.shape),)


def sum_to(g, shape):
    shape = tuple(shape)
    if g._size == shape:
        return g
    lead = len(g._size) - len(shape)
    axes = tuple(range(lead)) + tuple(i + lead for i, s in enumerate(shape) if s == 1 and g._size[i + lead] != 1)
    arr = g._np.sum(axis=axes, keepdims=True) if axes else g._np
    out = _const(arr.reshape(shape), g.dtype)
    if _needs_history(g):
        _record(out, SumToSizeBackward0(g._size), (g,))
    return out


def expand_to(g, shape):
    shape = tuple(shape)
    if g._size == shape:
        return g
    out = _const(np.broadcast_to(g._np, shape).copy(), g.dtype)
    if _needs_history(g):
        _record(out, ExpandBackward0(g._size), (g,))
    return out


class ToCopyBackward0(Node):
    def __init__(self, dtype):
        super().__init__()
        self.dtype = dtype

    def apply(self, grads):
        return (to_dtype(grads[0], self.dtype),)


def to_dtype(g, dtype):
    if g.dtype is dtype:
        return g
    out = _const(g._np.astype(dtype._np), dtype)
    if _needs_history(g) and (dtype.is_floating_point or dtype.is_complex):
        _record(out, ToCopyBackward0(g.dtype), (g,))
    return out


# ------------------------------------------------------------ op-specific helpers
def pow_backward_self(grad, self, exponent):
    if not isinstance(exponent, Tensor):
        if exponent == 0:
            return zeros_like(grad)
        return grad * (exponent * self.pow(exponent - 1))
    return masked_grad(exponent != 0, grad * (exponent * self.pow(exponent - 1)))


def pow_backward_exponent(grad, self, exponent, result):
    if not isinstance(self, Tensor):
        if self == 0:
            return masked_grad(exponent < 0, grad * result * float("-inf"))  # torch: 0 where exp >= 0
        return grad * result * float(np.log(self))
    cond = (self == 0) & (exponent >= 0)
    return masked_grad(cond.logical_not(), grad * result * self.log())


def clamp_backward(grad, self, min, max):
    mask = None
    if min is not None:
        mask = self >= min
    if max is not None:
        m2 = self <= max
        mask = m2 if mask is None else mask & m2
    if mask is None:
        return grad
    return masked_grad(mask, grad)


def clamp_backward_min(grad, self, min, max):
    if min is None:
        return None
    m = self < min
    if max is not None:
        m = m & (min < max)
    return masked_grad(m, grad)


def clamp_backward_max(grad, self, min, max):
    if max is None:
        return None
    m = self > max
    if min is not None:
        m = m | (max < min)
    return masked_grad(m, grad)


def inverse_permutation(dims):
    n = len(dims)
    inv = [0] * n
    for i, d in enumerate(dims):
        inv[d % n] = i
    return inv


def sum_backward(grad, shape, dim, keepdim):
    """Re-insert the reduced dims of `grad` (when keepdim=False) and broadcast it back to `shape`."""
    n = len(shape)
    if dim is None or (isinstance(dim, (list, tuple)) and len(dim) == 0):
        dims = list(range(n))
    else:
        dims = [dim] if isinstance(dim, int) else list(dim)
    if not keepdim and n:
        for d in sorted(x % n for x in dims):
            grad = grad.unsqueeze(d)
    return expand_to(grad, shape)
