"""Helpers shared by the nn kernels (meta and cpu): output allocation, int-list expansion,
reduction codes and torch-style size formatting."""
import numpy as np

from ..._core import dtype as D
from ..._core.tensor_impl import TensorImpl as Tensor
from ..common import empty_tensor

REDUCTIONS = {"none": 0, "mean": 1, "sum": 2}


def tup(v, n):
    """Expand an int or short int list argument (`stride=1`, `[2]`) to an n-tuple."""
    if isinstance(v, int):
        return (int(v),) * n
    v = tuple(int(x) for x in v)
    return v * n if len(v) == 1 and n > 1 else v


def size_str(shape):
    return "[" + ", ".join(str(s) for s in shape) + "]"


def alloc(shape, dtype, device):
    return empty_tensor(tuple(int(s) for s in shape), dtype, device)


def wrap(arr, dtype, fresh=False):
    """A fresh contiguous cpu tensor holding `arr` (cast to `dtype`). `fresh=True`: the caller knows
    `arr` (possibly a reshaped view) aliases no input, so a contiguous one is used without a copy."""
    a = np.asarray(arr, dtype=dtype._np)
    if not a.flags.c_contiguous or not (a.flags.owndata or fresh):
        a = a.copy()
    return Tensor._wrap_np(a, dtype)


def is_meta(*ts):
    return any(isinstance(t, Tensor) and t.device.type == "meta" for t in ts)


def np_or_none(t):
    return None if t is None else t._np


def acc(t):
    """The numpy array to compute on: half precision is computed in float32."""
    a = t._np
    if a.dtype.kind == "f" and a.dtype.itemsize < 4 or a.dtype.kind == "V":
        return a.astype(np.float32)
    return a


def check_floating(t, what):
    if not (t.dtype.is_floating_point or t.dtype.is_complex):
        raise RuntimeError(f"\"{what}\" not implemented for '{_tn(t.dtype)}'")


def _tn(d):
    from ..common import _tname
    return _tname(d)


def reduce(arr, reduction):
    if reduction == 0:
        return arr
    if reduction == 1:
        return arr.mean() if arr.size else np.array(np.nan, arr.dtype)
    return arr.sum()


def reduced_shape(shape, reduction):
    return tuple(shape) if reduction == 0 else ()


FLOAT = (D.float32, D.float64, D.float16, D.bfloat16)


_POOL = None
_POOL_PID = None


def _pool():
    """A process-local thread pool (a forked child, e.g. a DataLoader worker, gets its own)."""
    global _POOL, _POOL_PID
    import os
    if _POOL is None or _POOL_PID != os.getpid():
        from concurrent.futures import ThreadPoolExecutor
        _POOL = ThreadPoolExecutor(max_workers=max(1, min(os.cpu_count() or 1, 8)))
        _POOL_PID = os.getpid()
    return _POOL


def run_parts(fn, k):
    """fn(0), ..., fn(k-1) in parallel: part 0 on the calling thread, the others on the pool (one
    thread hand-off fewer than sending every part to the pool, and the caller's core is not left
    idle). Waits for every part, even when one raises, then re-raises the first error."""
    if k <= 1:
        fn(0)
        return
    futures = [_pool().submit(fn, j) for j in range(1, k)]
    err = None
    try:
        fn(0)
    except BaseException as e:      # noqa: BLE001  (re-raised below, after the other parts finish)
        err = e
    errs = [f.exception() for f in futures]
    err = err or next((e for e in errs if e is not None), None)
    if err is not None:
        raise err


def split_run(fn, arrays, axis, min_elems=1 << 18):
    """Run fn(*chunks) over slices of every array along `axis`, in parallel threads (numpy ufuncs
    and reductions release the GIL). Small inputs run inline. The calling thread runs the first
    chunk itself rather than sleeping until the pool is done (run_parts: one hand-off fewer, which
    is most of the cost at the sizes of a small CNN's layers); the first error is raised once every
    chunk has finished."""
    n = arrays[0].shape[axis] if arrays[0].ndim else 0
    workers = _pool()._max_workers
    if arrays[0].size < min_elems or n < 2 or workers < 2:
        fn(*arrays)
        return
    k = min(workers, n)
    bounds = [n * i // k for i in range(k + 1)]
    sl = [(slice(None),) * axis + (slice(bounds[i], bounds[i + 1]),) for i in range(k)]
    run_parts(lambda j: fn(*(a[sl[j]] for a in arrays)), k)
