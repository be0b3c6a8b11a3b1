"""cpu constant_pad_nd: one np.pad (constant) plus a slice for negative (cropping) pads."""
import numpy as np

from ..meta.nn_common import wrap
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
