"""cdist with p = 1 in C (csrc/cdist.c): the distances and one side's gradient, rows split over the pool.
Each function returns None when C is unavailable, the dtype is not float32/float64, or the batch dims
of the arguments differ (broadcast batches keep the numpy / ember-op paths)."""
import numpy as np

from .runtime.pool import split_run
from .runtime import clib

_SUFFIX = {np.dtype(np.float32): "f32", np.dtype(np.float64): "f64"}


def _kernel(name, dtype):
    sfx = _SUFFIX.get(np.dtype(dtype))
    return None if sfx is None else clib.kernel("cdist", f"{name}_{sfx}", "ppp" + "p" * (name.endswith("grad")) + "llll")


def _flat(x, dt):
    """x (..., N, M) as a contiguous (batch, N, M) array of dtype dt."""
    return np.ascontiguousarray(x, dt).reshape((int(np.prod(x.shape[:-2])),) + x.shape[-2:])


def p1(a, b):
    """(..., P, M), (..., R, M) -> (..., P, R) sums of absolute differences, or None."""
    f = _kernel("cdist_p1", a.dtype)
    if f is None or b.dtype != a.dtype or a.shape[:-2] != b.shape[:-2]:
        return None
    A, B = _flat(a, a.dtype), _flat(b, a.dtype)
    nb, P, M = A.shape
    R = B.shape[1]
    d = np.empty((nb, P, R), a.dtype)

    for z in range(nb):       # rows of each batch element split over the pool
        def run(ac, dc, bz=B[z]):
            f(ac.ctypes.data, bz.ctypes.data, dc.ctypes.data, 1, len(ac), R, M)
        split_run(run, [A[z], d[z]], 0, min_elems=1 << 12)
    return d.reshape(a.shape[:-2] + (P, R))


def p1_grad(g, a, b):
    """sum_j g[..., i, j] * sign(a[..., i, :] - b[..., j, :]) -> (..., P, M), or None."""
    f = _kernel("cdist_p1_grad", a.dtype)
    if f is None or b.dtype != a.dtype or g.dtype != a.dtype or not (a.shape[:-2] == b.shape[:-2] == g.shape[:-2]):
        return None
    A, B, G = _flat(a, a.dtype), _flat(b, a.dtype), _flat(g, a.dtype)
    nb, P, M = A.shape
    R = B.shape[1]
    out = np.empty((nb, P, M), a.dtype)

    for z in range(nb):
        def run(gc, ac, oc, bz=B[z]):
            f(gc.ctypes.data, ac.ctypes.data, bz.ctypes.data, oc.ctypes.data, 1, len(ac), R, M)
        split_run(run, [G[z], A[z], out[z]], 0, min_elems=1 << 12)
    return out.reshape(a.shape)
