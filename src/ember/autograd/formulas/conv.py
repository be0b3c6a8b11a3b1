"""Backward helpers of convolution (torch's FunctionsManual.cpp): the multi-output first backward and
convolution_backward's own derivative (double backward)."""

from ..engine import _add    # None-tolerant sum of grads, as the engine accumulates them
from ._common import _aten, _at
from ..._core.strides import same_shape

__all__ = ["convolution_backward_", "convolution_double_backward"]


def convolution_backward_(grad, input, weight, stride, padding, dilation, transposed, output_padding, groups,
                          mask):
    gi = gw = gb = None
    if mask[0] or mask[1]:
        gi, gw, _ = _aten().convolution_backward.default(grad, input, weight, None, stride, padding, dilation,
                                                         transposed, output_padding, groups,
                                                         [bool(mask[0]), bool(mask[1]), False])
    if mask[2]:
        gb = grad.sum([0] + list(range(2, grad.dim())))
    return gi, gw, gb


def convolution_double_backward(grads, grad_output, input, weight, stride, padding, dilation, transposed,
                                output_padding, groups, mask):
    """convolution_backward is bilinear: gI(go, w), gW(go, x), gb(go). Its derivatives:
    go <- conv(ggI, w) + conv(x, ggW) + ggb;  w <- weight grad of conv(ggI, w) against go;
    x <- input grad of conv(x, ggW) against go."""
    A = _aten()
    ggI, ggW, ggb = _at(grads, 0), _at(grads, 1), _at(grads, 2)

    def conv(x, w):
        return A.convolution.default(x, w, None, stride, padding, dilation, transposed, output_padding, groups)

    g_go = g_in = g_w = None
    if mask[0]:
        if ggI is not None:
            g_go = conv(ggI, weight)
        if ggW is not None:
            g_go = _add(g_go, conv(input, ggW))
        if ggb is not None:
            g_go = _add(g_go, ggb.reshape([1, -1] + [1] * (grad_output.dim() - 2)))
        if g_go is not None and not same_shape(g_go._size, grad_output._size):
            g_go = g_go.expand(grad_output._size)
    if mask[1] and ggW is not None:
        g_in = A.convolution_backward.default(grad_output, input, ggW, None, stride, padding, dilation, transposed,
                                              output_padding, groups, [True, False, False])[0]
    if mask[2] and ggI is not None:
        g_w = A.convolution_backward.default(grad_output, ggI, weight, None, stride, padding, dilation, transposed,
                                             output_padding, groups, [False, True, False])[1]
    return g_go, g_in, g_w
