"""v[i[k]] += s[k] along the first axis, repeated indices accumulating (what np.add.at does).

np.add.at runs an unbuffered loop per element: ~20x slower than grouping the equal indices with a
stable sort and summing each group with np.add.reduceat, then adding each group's sum once. That
fast path is taken for float32/float64 with non-negative indices and enough rows for the sort to
pay; it adds a group's rows in blocks rather than strictly one after another, so sums can differ from
np.add.at's by ulp-level rounding, as torch's own summation order does. Everything else (integer or
half dtypes, negative indices that could alias a positive one, a few rows) keeps np.add.at."""
import numpy as np

MIN_ROWS = 32


def add_rows(v, i, s):
    if (v.dtype.kind != "f" or v.dtype.itemsize < 4 or s.dtype != v.dtype or i.size < MIN_ROWS
            or i.min() < 0):
        np.add.at(v, i, s)
        return
    order = np.argsort(i, kind="stable")
    si = i[order]
    starts = np.flatnonzero(np.concatenate(([True], si[1:] != si[:-1])))
    v[si[starts]] += np.add.reduceat(s[order], starts, axis=0)
