"""cpu multi-dimensional histogram (torch's HistogramKernel.cpp histogramdd): each point (a row of the input's
innermost dim) falls in the bin whose edges bracket it along every coordinate (the last bin of a coordinate
includes its right edge; points outside any coordinate's edges, or NaN, are left out), counted or summed by
weight; density divides by the total and each bin's volume."""
import numpy as np

from ..meta import histogramdd as M
from .creation import linspace
from ..._core.tensor_impl import TensorImpl as Tensor


def _edges_from_counts(self, counts, range):
    """linspace edges per coordinate, over range or the points' min and max (widened by 0.5 when equal)."""
    n = len(counts)
    pts = self._np.reshape(-1, n)
    out = []
    for d, c in enumerate(counts):
        if range is not None:
            lo, hi = float(range[2 * d]), float(range[2 * d + 1])
        elif pts.shape[0]:
            col = pts[:, d]
            lo, hi = float(np.min(col)), float(np.max(col))
        else:
            lo, hi = 0.0, 0.0
        if lo == hi:
            lo, hi = lo - 0.5, hi + 0.5
        out.append(linspace(lo, hi, c + 1, dtype=self.dtype)._np)     # torch's linspace rounding
    return out


def _hist(self, edges, weight, density):
    n = len(edges)
    pts = self._np.reshape(-1, n)
    shape = tuple(e.shape[0] - 1 for e in edges)
    keep = np.ones(pts.shape[0], bool)
    idx = []
    with np.errstate(invalid="ignore"):
        for d, e in enumerate(edges):
            col = pts[:, d]
            keep &= (col >= e[0]) & (col <= e[-1])
            idx.append(np.minimum(np.searchsorted(e, col, side="right") - 1, shape[d] - 1))
    flat = np.ravel_multi_index(tuple(np.clip(i[keep], 0, None) for i in idx), shape) if pts.shape[0] else \
        np.zeros(0, np.int64)
    w = None if weight is None else weight._np.reshape(-1)[keep].astype(np.float64)
    hist = np.bincount(flat, weights=w, minlength=int(np.prod(shape))).astype(np.float64).reshape(shape)
    if density:
        vol = np.ones(shape)
        for d, e in enumerate(edges):
            vol = vol * np.diff(e.astype(np.float64)).reshape([-1 if j == d else 1 for j in range(n)])
        with np.errstate(invalid="ignore", divide="ignore"):
            hist = hist / hist.sum() / vol
    return Tensor._wrap_np(np.ascontiguousarray(hist.astype(self.dtype._np)), self.dtype)


def _histogramdd_bin_edges(self, bins, *, range=None, weight=None, density=False):
    counts = M.check(self, list(bins), range, weight)
    return [Tensor._wrap_np(e, self.dtype) for e in _edges_from_counts(self, counts, range)]


def _histogramdd_from_bin_cts(self, bins, *, range=None, weight=None, density=False):
    counts = M.check(self, list(bins), range, weight)
    return _hist(self, _edges_from_counts(self, counts, range), weight, density)


def _histogramdd_from_bin_tensors(self, bins, *, weight=None, density=False):
    M.check(self, list(bins), None, weight)
    return _hist(self, [np.asarray(b._np) for b in bins], weight, density)
