"""cpu upsample kernels: separable, one gather (np.take) + weighted sum per spatial axis
(nearest, nearest-exact, linear with/without align_corners, cubic with A=-0.75)."""
import numpy as np

from ..meta.interpolate import upsample_spec
from .runtime.arrays import acc, wrap

A_CUBIC = -0.75


def _scale(i, o, s, align):
    if align:
        return (i - 1) / (o - 1) if o > 1 else 0.0
    return 1.0 / s if s else i / o


def _nearest(x, axis, i, o, s, exact):
    sc = 1.0 / s if s else i / o
    dst = np.arange(o, dtype=np.float64)
    src = np.floor((dst + 0.5) * sc if exact else dst * np.float32(sc)).astype(np.int64)
    return np.take(x, np.minimum(src, i - 1), axis=axis)


def _bshape(x, axis, w):
    shp = [1] * x.ndim
    shp[axis] = -1
    return w.reshape(shp).astype(x.dtype)


def _linear(x, axis, i, o, s, align):
    sc = _scale(i, o, s, align)
    dst = np.arange(o, dtype=x.dtype)
    src = dst * x.dtype.type(sc) if align else np.maximum((dst + 0.5) * x.dtype.type(sc) - 0.5, 0)
    i0 = np.minimum(np.floor(src).astype(np.int64), i - 1)
    i1 = np.minimum(i0 + 1, i - 1)
    l1 = src - i0
    return np.take(x, i0, axis=axis) * _bshape(x, axis, 1 - l1) + np.take(x, i1, axis=axis) * _bshape(x, axis, l1)


def _cubic_w(t):
    a = A_CUBIC

    def near(u):
        return ((a + 2) * u - (a + 3)) * u * u + 1

    def far(u):
        return ((a * u - 5 * a) * u + 8 * a) * u - 4 * a
    return far(t + 1), near(t), near(1 - t), far(2 - t)


def _cubic(x, axis, i, o, s, align):
    sc = _scale(i, o, s, align)
    dst = np.arange(o, dtype=x.dtype)
    src = dst * x.dtype.type(sc) if align else (dst + 0.5) * x.dtype.type(sc) - 0.5
    f = np.floor(src)
    t = src - f
    f = f.astype(np.int64)
    out = 0
    for k, w in enumerate(_cubic_w(t)):          # the 4 taps of the cubic kernel
        out = out + np.take(x, np.clip(f - 1 + k, 0, i - 1), axis=axis) * _bshape(x, axis, w)
    return out


def _run(input, output_size, scale_factors, d, name, fn, *extra):
    shape, o, scales = upsample_spec(input, output_size, scale_factors, d, name)
    x = acc(input)
    for k in range(d):
        ax = 2 + k
        x = fn(x, ax, x.shape[ax], o[k], scales[k], *extra)
    return wrap(x, input.dtype)


def upsample_nearest1d(input, output_size, scale_factors):
    return _run(input, output_size, scale_factors, 1, "upsample_nearest1d", _nearest, False)


def upsample_nearest2d(input, output_size, scale_factors):
    return _run(input, output_size, scale_factors, 2, "upsample_nearest2d", _nearest, False)


def _upsample_nearest_exact2d(input, output_size, scale_factors):
    return _run(input, output_size, scale_factors, 2, "_upsample_nearest_exact2d", _nearest, True)


def upsample_linear1d(input, output_size, align_corners, scale_factors):
    return _run(input, output_size, scale_factors, 1, "upsample_linear1d", _linear, align_corners)


def upsample_bilinear2d(input, output_size, align_corners, scale_factors):
    return _run(input, output_size, scale_factors, 2, "upsample_bilinear2d", _linear, align_corners)


def upsample_bicubic2d(input, output_size, align_corners, scale_factors):
    return _run(input, output_size, scale_factors, 2, "upsample_bicubic2d", _cubic, align_corners)
