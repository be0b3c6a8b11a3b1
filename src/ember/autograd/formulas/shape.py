"""Backward helpers of the shape ops (torch's FunctionsManual.cpp): cat, block_diag."""

from ._common import _zeros

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
    unbind; the engine casts each to its input's dtype)."""
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
