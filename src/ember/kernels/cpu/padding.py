"""cpu constant_pad_nd: one np.pad (constant) plus a slice for negative (cropping) pads."""
import numpy as np

from .runtime.arrays import wrap
from ..meta import padding as M
from ..meta.padding import pad_spec


def constant_pad_nd(self, pad, value=0):
    shape, pairs = pad_spec(self, pad)
    x = self._np
    lead = x.ndim - len(pairs)
    pos = [(0, 0)] * lead + [(max(l, 0), max(r, 0)) for l, r in pairs]
    y = np.pad(x, pos, constant_values=value) if any(a or b for a, b in pos) else x
    sl = (slice(None),) * lead + tuple(slice(max(-l, 0), y.shape[lead + i] - max(-r, 0))
                                       for i, (l, r) in enumerate(pairs))
    return wrap(y[sl], self.dtype)


def _np_pad(x, pairs, mode):
    lead = x.ndim - len(pairs)
    pos = [(0, 0)] * lead + [(max(l, 0), max(r, 0)) for l, r in pairs]
    y = np.pad(x, pos, mode=mode)
    sl = (slice(None),) * lead + tuple(slice(max(-l, 0), y.shape[lead + i] - max(-r, 0))
                                       for i, (l, r) in enumerate(pairs))
    return y[sl]


def _mode_cpu(k, name, reflect):
    def f(self, padding):
        shape, pairs = M.mode_pad_spec(self, padding, k, name, reflect)
        return wrap(_np_pad(self._np, pairs, "reflect" if reflect else "edge"), self.dtype)
    f.__name__ = name
    return f


reflection_pad1d = _mode_cpu(1, "reflection_pad1d", True)
reflection_pad2d = _mode_cpu(2, "reflection_pad2d", True)
reflection_pad3d = _mode_cpu(3, "reflection_pad3d", True)
replication_pad1d = _mode_cpu(1, "replication_pad1d", False)
replication_pad2d = _mode_cpu(2, "replication_pad2d", False)
replication_pad3d = _mode_cpu(3, "replication_pad3d", False)

