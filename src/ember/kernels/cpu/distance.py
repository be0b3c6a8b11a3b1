"""cpu _cdist_forward: p=2 through one matmul (|a|^2 + |b|^2 - 2ab, torch's mm path) when torch
would use it, p=1 in C (cdist_c.py), else the broadcast difference reduced with the p-norm."""
import numpy as np

from ..meta.distance import cdist_spec
from .runtime.arrays import acc, wrap
from . import cdist_c


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
        d = cdist_c.p1(a, b)
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
