"""cpu _cdist_forward: p=2 through one matmul (|a|^2 + |b|^2 - 2ab, torch's mm path) when torch
would use it, p=1 in C (distance.py), else the broadcast difference reduced with the p-norm; and
_pdist_forward / _pdist_backward (torch's pdist kernels: every pair of rows i < j)."""
import numpy as np

from ..meta.distance import cdist_spec
from .runtime.arrays import acc, wrap
from .runtime import clib
from .runtime.pool import split_run


def _cdist_forward(x1, x2, p, compute_mode):
    shape, dt = cdist_spec(x1, x2)
    a, b = acc(x1), acc(x2)
    P, R = a.shape[-2], b.shape[-2]
    use_mm = p == 2 and (compute_mode == 1 or (compute_mode is None and (P > 25 or R > 25)))
    if use_mm:
        a2 = np.sum(a * a, axis=-1)[..., :, None]
        b2 = np.sum(b * b, axis=-1)[..., None, :]
        d = np.sqrt(np.clip(a2 + b2 - 2 * np.matmul(a, np.swapaxes(b, -1, -2)), 0, None))
        return wrap(np.broadcast_to(d, shape), dt)
    if p == 1:
        d = p1(a, b)
        if d is not None:
            return wrap(np.broadcast_to(d, shape), dt)
    diff = np.abs(a[..., :, None, :] - b[..., None, :, :])
    if p == 0:
        d = np.count_nonzero(diff, axis=-1).astype(a.dtype)
    elif np.isinf(p):
        d = diff.max(axis=-1) if diff.shape[-1] else np.zeros(diff.shape[:-1], a.dtype)
    elif p == 1:
        d = diff.sum(axis=-1)
    elif p == 2:
        d = np.sqrt(np.einsum("...i,...i->...", diff, diff))
    else:
        d = np.sum(diff ** p, axis=-1) ** (1.0 / p)
    return wrap(np.broadcast_to(d, shape), dt)


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


def _pdist_diff(a):
    """The row pairs i < j in row-major pair order and their differences x_i - x_j."""
    i, j = np.triu_indices(a.shape[0], 1)
    return i, j, a[i] - a[j]


def _pdist_forward(self, p=2.0):
    a = acc(self)
    _, _, diff = _pdist_diff(a)
    ad = np.abs(diff)
    if p == 0:
        d = np.count_nonzero(ad, axis=-1).astype(a.dtype)
    elif np.isinf(p):
        d = ad.max(axis=-1) if ad.shape[-1] else np.zeros(ad.shape[:-1], a.dtype)
    elif p == 1:
        d = ad.sum(axis=-1)
    elif p == 2:
        d = np.sqrt(np.einsum("...i,...i->...", diff, diff))
    else:
        d = np.sum(ad ** p, axis=-1) ** (1.0 / p)
    return wrap(d, self.dtype, fresh=True)


def _pdist_backward(grad, self, p, pdist):
    """d pdist / d self: for pair (i, j), grad * d|x_i - x_j|_p / dx_i added to row i and subtracted from row j
    (torch's rules: 0 where the distance is 0, or p = 0; sign(diff) for p = 1; the max entries for p = inf)."""
    a = acc(self)
    i, j, diff = _pdist_diff(a)
    g = acc(grad)[:, None]
    d = acc(pdist)[:, None]
    ad = np.abs(diff)
    with np.errstate(divide="ignore", invalid="ignore"):
        if p == 0:
            c = np.zeros_like(diff)
        elif p == 1:
            c = np.sign(diff) * g
        elif np.isinf(p):
            c = np.sign(diff) * (ad == d) * g
        elif p == 2:
            c = diff * g / d
        elif p < 1:
            c = np.where(ad == 0, 0, np.sign(diff) * ad ** (p - 1) * g / d ** (p - 1))
        else:
            c = diff * ad ** (p - 2) * g / d ** (p - 1)
        c = np.where(d == 0, 0, c)
    out = np.zeros_like(a)
    np.add.at(out, i, c)
    np.add.at(out, j, -c)
    return wrap(out, self.dtype, fresh=True)
