"""The C path of relu and its backward (csrc/relu.c) for c-contiguous float32/float64 arrays.

One thread: the loops are bound by memory bandwidth, and at the sizes of a CNN's activations
(~10^5-10^6 elements) handing half to the thread pool costs more than it saves on 2 cores. Each
function returns None when C is unavailable or the arrays do not fit (the caller then takes its
numpy path)."""
import numpy as np

from .runtime import clib

_SUFFIX = {np.dtype(np.float32): "f32", np.dtype(np.float64): "f64"}
MIN_ELEMS = 1 << 12   # below this, numpy's one or two calls beat a foreign call (each pointer costs ~1.4 us)


def _fn(name, dtype, sig):
    sfx = _SUFFIX.get(dtype)
    return None if sfx is None else clib.kernel("relu", f"{name}_{sfx}", sig)


def relu_into(x, y):
    """y = relu(x) for c-contiguous arrays of one shape and float dtype (y may be x); False if not done."""
    if x.size < MIN_ELEMS or x.dtype != y.dtype or x.shape != y.shape or not (
            x.flags.c_contiguous and y.flags.c_contiguous):
        return False
    f = _fn("relu", x.dtype, "ppl")
    if f is None:
        return False
    if x.size:
        f(x.ctypes.data, y.ctypes.data, x.size)
    return True


def relu_backward(g, r):
    """where(r <= 0, 0, g) for c-contiguous float arrays of one shape and dtype, or None."""
    if g.size < MIN_ELEMS or r.dtype != g.dtype or r.shape != g.shape or not (
            g.flags.c_contiguous and r.flags.c_contiguous):
        return None
    f = _fn("relu_backward", g.dtype, "pppl")
    if f is None:
        return None
    gi = np.empty(g.shape, g.dtype)
    if g.size:
        f(g.ctypes.data, r.ctypes.data, gi.ctypes.data, g.size)
    return gi
