"""Backward helpers of the pools (torch's FunctionsManual.cpp): max_pool1d, adaptive_max_pool2d, max_unpool2d
and the max pools' double backward."""

from ._common import _aten

__all__ = ["adaptive_max_pool2d_backward_", "max_pool_double_backward",
           "max_unpool2d_backward_"]


def adaptive_max_pool2d_backward_(grad, self, indices):
    return _aten().max_pool2d_with_indices_backward.default(grad, self, [1, 1], [1, 1], [0, 0], [1, 1], False,
                                                            indices)


def max_unpool2d_backward_(grad, indices, self_sizes):
    """Each input element went to one output position (its index in the plane): read the grad there."""
    flat = grad.reshape(tuple(grad._size[:-2]) + (-1,))
    return flat.gather(-1, indices.reshape(tuple(indices._size[:-2]) + (-1,))).reshape(tuple(self_sizes))


def max_pool_double_backward(grad, indices):
    """max_pool2d_with_indices_backward scatters grad_output to the argmax positions: its transpose
    gathers from them (indices are flat over the last two dims)."""
    g = grad.flatten(-2)
    idx = indices.flatten(-2)
    if g.dim() != idx.dim():
        g = g.expand(list(idx._size[:-1]) + [g._size[-1]])
    return g.gather(-1, idx).reshape(indices._size)
