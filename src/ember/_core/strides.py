"""Stride arithmetic shared by meta functions and kernels (c10/core/TensorImpl + ATen utils)."""


_CONTIGUOUS = {}          # shape tuple -> its strides: a model uses a few dozen shapes, asked for thousands of times


def contiguous_strides(shape):
    try:
        return _CONTIGUOUS[shape]
    except (KeyError, TypeError):      # (TypeError: a list shape, not hashable)
        pass
    strides = [1] * len(shape)
    acc = 1
    for i in range(len(shape) - 1, -1, -1):
        strides[i] = acc
        acc *= max(shape[i], 1)
    strides = tuple(strides)
    if shape.__class__ is tuple and all(x.__class__ is int for x in shape):     # (not symbolic sizes)
        if len(_CONTIGUOUS) >= 4096:
            _CONTIGUOUS.clear()
        _CONTIGUOUS[shape] = strides
    return strides


def same_shape(a, b):
    """`a == b` for two shapes, asked by fast paths: with symbolic sizes, entries count as equal only when that
    is known without a guard (an unknown answer takes the general path instead of recording a guard)."""
    try:
        return hash(a) == hash(b) and a == b          # plain ints
    except TypeError:
        pass
    if len(a) != len(b):
        return False
    for x, y in zip(a, b):
        if x is not y and (x == y) is not True:
            return False
    return True


def numel(shape):
    n = 1
    for s in shape:
        n *= s
    return n


def is_contiguous(shape, strides):
    """torch's compute_contiguous: a tensor with no elements is contiguous whatever its strides (so
    `contiguous()` returns an empty permuted tensor as it is); otherwise strides dense from the last dim,
    size-1 dims taking any stride."""
    expected = 1
    for size, st in zip(reversed(shape), reversed(strides)):
        if size == 1:
            continue
        if size == 0:
            return True
        if st != expected:
            return 0 in shape        # (the dims already passed are not 0: a 0 further out still empties it)
        expected *= size
    return True


def is_channels_last(shape, strides):
    if len(shape) != 4:
        return False
    n, c, h, w = shape
    perm = (0, 2, 3, 1)
    return is_contiguous(tuple(shape[p] for p in perm), tuple(strides[p] for p in perm)) and not is_contiguous(shape, strides)


def is_channels_last_contiguous(shape, strides, ndim):
    """torch's compute_channels_last_contiguous_2d/_3d: a rank-`ndim` (4 or 5) tensor whose strides are dense in
    the order channels, then the spatial dims last to first, then batch (size-1 dims take any stride)."""
    if len(shape) != ndim:
        return False
    expected = 1
    for d in (1,) + tuple(range(ndim - 1, 1, -1)) + (0,):
        if shape[d] != 1:
            if strides[d] != expected:
                return False
            expected *= shape[d]
    return True


def is_non_overlapping_and_dense(shape, strides):
    """torch's is_non_overlapping_and_dense flag: is_contiguous (so every tensor with no elements, whatever
    its strides), channels-last contiguous, or dense in some order of its dims (size-1 dims taking any
    stride)."""
    if len(shape) == 1:
        return shape[0] < 2 or strides[0] == 1
    if 0 in shape:
        return True
    perm = sorted(range(len(shape)), key=lambda i: (strides[i], shape[i]))
    expected = 1
    for i in perm:
        if shape[i] == 1:
            continue
        if strides[i] != expected:
            return False
        expected *= shape[i]
    return True


def infer_dense_strides(shape, strides):
    """Dense strides keeping the memory order of (shape, strides) (ATen's infer_dense_strides): dims sorted
    by stride (stride-0 dims left where they are), sizes 0 and 1 counted as 1."""
    nd = len(shape)

    def should_swap(a, b):
        sa, sb = strides[a], strides[b]
        if sa == 0 or sb == 0:
            return 0
        if sa != sb:
            return -1 if sa < sb else 1
        return 1 if shape[a] > shape[b] else 0

    return strides_in_order(shape, sort_dims(nd, should_swap))


def dense_strides_like(shape, strides):
    """Strides for a new dense tensor that keeps the memory order of (shape, strides) (torch's
    empty_like with preserve_format): the input's own strides when it is non-overlapping and dense (an
    empty tensor always is: `empty_like` of an empty permuted tensor keeps its strides, and so does a
    contiguous one with odd strides on size-1 dims), else infer_dense_strides."""
    if strides == contiguous_strides(shape) or is_non_overlapping_and_dense(shape, strides):
        return tuple(strides)
    return infer_dense_strides(shape, strides)


def channels_last_strides(shape):
    """c10's get_channels_last_strides_2d/_3d for a rank-4 or rank-5 shape: channels innermost, then the
    spatial dims last to first, then batch. The raw sizes multiply (unlike contiguous strides, a 0 is not
    counted as 1: an empty (2, 3, 0, 4) gets (0, 1, 12, 3), as in torch)."""
    if len(shape) == 4:
        n, c, h, w = shape
        s2 = c * w
        return (s2 * h, 1, s2, c)
    n, c, d, h, w = shape
    s3 = c * w
    s2 = s3 * h
    return (s2 * d, 1, s2, s3, c)


def _strides_like_channels_last(shape, strides, order):
    """c10's is_channels_last_strides_2d_s4/_3d_s5: the strides grow along `order` (channels, spatial dims
    last to first, batch), no size 0, a stride-0 channels dim or an ambiguous N111-style case refused."""
    if strides[1] == 0:
        return False
    lo = 0
    for d in order:
        if shape[d] == 0 or strides[d] < lo:
            return False
        if d == 0 and lo == strides[1]:
            return False
        lo = strides[d] * shape[d] if shape[d] > 1 else strides[d]
    return True


def suggest_memory_format(shape, strides):
    """torch's Tensor.suggest_memory_format: "channels_last" / "channels_last_3d" when a rank-4 / rank-5
    tensor's strides look channels-last (see _strides_like_channels_last), else "contiguous_format" (also
    for a transposed matrix: `to(memory_format=contiguous_format)` then returns the tensor itself)."""
    if len(shape) == 4 and _strides_like_channels_last(shape, strides, (1, 3, 2, 0)):
        return "channels_last"
    if len(shape) == 5 and _strides_like_channels_last(shape, strides, (1, 4, 3, 2, 0)):
        return "channels_last_3d"
    return "contiguous_format"


def storage_nbytes_needed(shape, strides, offset, itemsize):
    if any(s == 0 for s in shape):
        return 0
    extent = offset + 1 + sum((sz - 1) * st for sz, st in zip(shape, strides))
    return extent * itemsize


def wrap_dim(dim, ndim, scalar_ok=True):
    """Normalize a possibly-negative dim; IndexError like torch when out of range."""
    n = ndim if ndim > 0 or not scalar_ok else 1
    if not -n <= dim < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})")
    return dim + n if dim < 0 else dim


def sort_dims(nd, should_swap):
    """Dims ordered innermost first by a 3-way comparator: torch's insertion sort in
    TensorIterator::reorder_dimensions (starting from the reversed order, stable on ties)."""
    perm = list(range(nd - 1, -1, -1))
    for i in range(1, nd):
        d1 = i
        for d0 in range(i - 1, -1, -1):
            c = should_swap(perm[d0], perm[d1])
            if c > 0:
                perm[d0], perm[d1] = perm[d1], perm[d0]
                d1 = d0
            elif c < 0:
                break
    return perm


def strides_in_order(shape, perm, clamp_zero=True):
    """Dense strides laying dims out in `perm` order (innermost first)."""
    out, acc = [0] * len(shape), 1
    for i in perm:
        out[i] = acc
        acc *= max(shape[i], 1) if clamp_zero else shape[i]
    return tuple(out)


def iterator_strides(shape, operands):
    """Strides TensorIterator gives a new output of `shape` computed from input (sizes, strides)
    operands: dims sorted by the operands' strides in order (broadcast dims ignored)."""
    nd = len(shape)
    ops = [tuple(0 if (osz[i] == 1 and shape[i] != 1) else ost[i] for i in range(nd)) for osz, ost in operands]

    def should_swap(d0, d1):
        for st in ops:
            s0, s1 = st[d0], st[d1]
            if s0 == 0 or s1 == 0:
                continue
            if s0 != s1:
                return -1 if s0 < s1 else 1
            if shape[d0] > shape[d1]:
                return 1
        return 0
    perm = sort_dims(nd, should_swap)
    if 0 in shape and perm == list(range(nd - 1, -1, -1)):
        return contiguous_strides(shape)        # TensorIterator: an unpermuted order gives a contiguous output
    return strides_in_order(shape, perm, clamp_zero=False)
