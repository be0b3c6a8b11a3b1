"""Meta functions of the multi-dimensional histogram (torch's HistogramKernel.cpp histogramdd_check_inputs):
points are the input's innermost dim, one bins entry per coordinate; the histogram's shape is the bin counts."""
from ..common import _tname, alloc


def _cname(dt):
    """A dtype as C++ prints it (float, double, c10::Half, ...)."""
    return {"float32": "float", "float64": "double", "float16": "c10::Half", "bfloat16": "c10::BFloat16"}.get(
        dt.name, dt.name)


def check(self, bins, range=None, weight=None):
    """torch's checks, in its order; returns the number of bins per coordinate."""
    if not self.dtype.is_floating_point:
        raise NotImplementedError(f"\"histogramdd\" not implemented for '{_tname(self.dtype)}'")
    n = self._size[-1] if self.dim() else 1
    if len(bins) != n:
        raise RuntimeError("histogramdd: The size of bins must be equal to the innermost dimension of the input.")
    counts = []
    for d, b in enumerate(bins):
        if isinstance(b, int):
            if b <= 0 and b + 1 <= 0:
                raise RuntimeError(f"torch.histogramdd: bins tensor should have at least 1 element, but got {b + 1} "
                                   f"elements in the bins tensor for dimension {d}")
            if b <= 0:
                raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {b} for dimension {d}")
            counts.append(b)
        else:
            if b.dim() != 1:
                raise RuntimeError(f"torch.histogramdd: bins tensor should have one dimension, but got {b.dim()} "
                                   f"dimensions in the bins tensor for dimension {d}")
            if b.dtype is not self.dtype:
                raise RuntimeError("torch.histogramdd: input tensor and bins tensors should have the same dtype, but "
                                   f"got input with dtype {_cname(self.dtype)} and bins for dimension {d} with dtype "
                                   f"{_cname(b.dtype)}")
            if b._size[0] < 1:
                raise RuntimeError("torch.histogramdd: bins tensor should have at least 1 element, but got 0 elements "
                                   f"in the bins tensor for dimension {d}")
            counts.append(b._size[0] - 1)
    if weight is not None:
        if tuple(weight._size) != tuple(self._size[:-1]):
            raise RuntimeError("torch.histogramdd: if weight tensor is provided it should have the same shape as the "
                               "input tensor excluding its innermost dimension, but got input with shape "
                               f"{list(self._size)} and weight with shape {list(weight._size)}")
    if range is not None:
        if len(range) != 2 * n:
            raise RuntimeError(f"torch.histogramdd: for a {n}-dimensional histogram range should have {2 * n} "
                               f"elements, but got {len(range)}")
        for d in builtins_range(n):
            if range[2 * d] > range[2 * d + 1]:
                raise RuntimeError(f"torch.histogramdd: min should not exceed max, but got min {range[2 * d]:g} max "
                                   f"{range[2 * d + 1]:g} for dimension {d}")
    return counts


builtins_range = range


def _histogramdd_bin_edges(self, bins, *, range=None, weight=None, density=False):
    counts = check(self, list(bins), range, weight)
    return [alloc((c + 1,), self.dtype, self.device) for c in counts]


def _histogramdd_from_bin_cts(self, bins, *, range=None, weight=None, density=False):
    return alloc(tuple(check(self, list(bins), range, weight)), self.dtype, self.device)


def _histogramdd_from_bin_tensors(self, bins, *, weight=None, density=False):
    return alloc(tuple(check(self, list(bins), None, weight)), self.dtype, self.device)
