"""CompositeImplicitAutograd kernels of the sorting family (torch's Sorting.cpp composites): msort is sort
along dim 0 (its node is sort's, SortBackward0)."""

from ..._ops import ops

aten = ops.aten


def msort(self):
    return aten.sort.default(self, 0, False)[0]

