"""Backward helpers of the spectral ops (torch's FunctionsManual.cpp: fft_r2c_backward, fft_c2r_backward).
Each is the adjoint transform, written in aten ops so that it is differentiable again."""
from ._common import _aten

__all__ = ["fft_r2c_backward", "fft_c2r_backward"]


def _pad_last(x, dim, before, after):
    """constant_pad_nd's pad list for `before` / `after` zeros around dim `dim` of x."""
    pads = [0] * (2 * x.dim())
    pads[2 * (x.dim() - 1 - dim)] = before
    pads[2 * (x.dim() - 1 - dim) + 1] = after
    return _aten().constant_pad_nd.default(x, pads, 0)


def _real(z):
    return _aten().select.int(_aten().view_as_real.default(z), -1, 0)


def fft_r2c_backward(grad, dim, normalization, onesided, self_sizes):
    """r2c is c2c of the real input followed (when onesided) by dropping the upper half of the last dim.
    Its adjoint: zero-fill the dropped half, the c2c in the other direction, the real part."""
    if onesided:
        last = dim[-1] % grad.dim()
        missing = int(self_sizes[last]) - int(grad._size[last])
        if missing > 0:
            grad = _pad_last(grad, last, 0, missing)
    return _real(_aten()._fft_c2c.default(grad, list(dim), normalization, False))


def fft_c2r_backward(grad, dim, normalization):
    """c2r fills the upper half of the last dim by conjugate symmetry, then runs an inverse c2c and keeps
    the real part. Its adjoint: a forward r2c (onesided) with the entries whose mirror image lies outside
    the onesided range (indices 1 .. n - (n//2 + 1) of the last dim) counted twice."""
    gi = _aten()._fft_r2c.default(grad, list(dim), normalization, True)
    last = dim[-1] % grad.dim()
    half = int(gi._size[last])
    double = int(grad._size[last]) - half
    if double > 0:
        twice = _aten().narrow.default(gi, last, 1, double)
        gi = _aten().add.Tensor(gi, _pad_last(twice, last, 1, half - 1 - double))
    return gi
