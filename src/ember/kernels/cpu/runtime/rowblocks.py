"""Row-blocked loops for the memory-bound nn kernels (layer_norm, softmax, cross_entropy): a kernel
that makes several numpy passes over a (rows, k) matrix runs them on blocks of rows small enough to
stay in the CPU cache, so the data comes from memory once instead of once per pass, and block-sized
scratch buffers are reused instead of allocating full-size temporaries. Blocks are shared out over
the nn thread pool (split_run)."""
import numpy as np

from .pool import split_run

BLOCK_BYTES = 1 << 18


def block_rows(k, itemsize):
    """How many rows of length k make one cache-sized block."""
    return max(1, BLOCK_BYTES // max(1, k * itemsize))


def run_rows(fn, arrays):
    """fn(*blocks) for consecutive row blocks of the arrays in `arrays` (all with the same number of
    rows; a (rows, 1) statistics column or a 1-D row-index array is split alongside the data)."""
    a0 = max(arrays, key=lambda a: a.shape[1] if a.ndim > 1 else 1)     # the widest sets the block size
    step = block_rows(a0.shape[1] if a0.ndim > 1 else 1, a0.itemsize)

    def chunk(*arrs):
        for i in range(0, arrs[0].shape[0], step):
            fn(*(a[i:i + step] for a in arrs))
    split_run(chunk, arrays, 0)


_ONES = {}


def row_dot(a, b):
    """(rows, 1) row-wise dot products of two (rows, k) real matrices: np.vecdot runs one BLAS dot
    per row, several times faster than a multiply + add.reduce(axis=1) over short rows."""
    return np.vecdot(a, b)[:, None]


def row_sum(a):
    """(rows, 1) row sums of a real (rows, k) matrix, as dot products with a cached ones vector."""
    key = (a.shape[1], a.dtype.str)
    ones = _ONES.get(key)
    if ones is None:
        ones = _ONES[key] = np.ones(a.shape[1], a.dtype)
    return np.vecdot(a, ones)[:, None]
