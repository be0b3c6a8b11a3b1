"""Backward helpers of the shape ops (torch's FunctionsManual.cpp): cat, block_diag."""

import numpy as np

from ..._core.tensor_impl import TensorImpl as Tensor
from ..._core.tls import state as _state
from .._shape_dtype import _FW_LEVEL, _PLAIN_CPU, _needs_history
from ._common import _zeros

_COPY_MAX = 4096        # stack_backward copies pieces of grads up to this many elements (else unbind's views)

__all__ = ["block_diag_backward", "cat_backward", "stack_backward"]


def cat_backward(grad, sizes, dim):
    """Split grad back into the inputs' extents along dim (legacy empty 1-D inputs get empty grads)."""
    from ..._core.strides import wrap_dim
    real = [s for s in sizes if not (len(s) == 1 and s[0] == 0)]
    d = wrap_dim(dim, len(real[0])) if real else 0
    out, off = [], 0
    for s in sizes:
        if len(s) == 1 and s[0] == 0 and (not real or len(real[0]) != 1):
            out.append(_zeros(s, grad.dtype))
            continue
        n = s[d]
        out.append(grad.narrow(d, off, n))
        off += n
    return out


def stack_backward(grad, dim):
    """torch's stack_tensors_backward: the grad of each stacked tensor is its slice along the new axis (one
    unbind; the engine casts each to its input's dtype).

    A small plain cpu grad with nothing to record (no create_graph, no mode, no tangent) is split in numpy into
    fresh copies instead: unbind builds one view op per piece (~6 us each, 30 us for a CRF's stack of five
    scores), a copy of a few elements costs nothing, and the values are the same (the pieces only feed the
    engine's buffers, where a fresh tensor may even be accumulated into in place)."""
    a = grad._np
    if (a is not None and grad._ks == _PLAIN_CPU and a.ndim and a.size <= _COPY_MAX and not _state.mode_stack
            and not _needs_history(grad) and (_FW_LEVEL[0] is None or "_fw_tangent" not in grad.__dict__)):
        d = dim % a.ndim
        if d:
            a = np.moveaxis(a, d, 0)
        dt, wrap, array = grad.dtype, Tensor._wrap_fresh, np.array
        return [wrap(array(p), dt) for p in a]
    return grad.unbind(dim)


def block_diag_backward(grad, sizes, dtypes):
    out = []
    r = c = 0
    for s, dt in zip(sizes, dtypes):
        s = tuple(s)
        if len(s) == 0:
            h, w = 1, 1
        elif len(s) == 1:
            h, w = 1, s[0]
        else:
            h, w = s
        g = grad[r:r + h, c:c + w].reshape(s)
        out.append(g.to(dt) if g.dtype != dt else g)
        r, c = r + h, c + w
    return out
