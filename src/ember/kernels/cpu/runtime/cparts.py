"""C kernels shared out over ember's C thread pool by whole items (images of a convolution, planes of a pool):
the counterpart of ATen's `at::parallel_for` over a batch, run by csrc/parallel.c.

`entry(lib, name)` is the address of a pool entry point `name(p, s, begin, end)` of csrc/<lib>.c (0 when C is off);
`run(fn, n, work, p0, p1, p2, p3)` runs it over items [0, n) in chunks of `grain(n)` items, on the calling thread
alone when the work is small or ember has one thread, and returns the number of chunks.

Why not the Python pool (pool.py) for these: its worker sleeps on a lock and must take the GIL, and its split is
static (the caller waits for the worker's half). Measured in the CNN train step at 2 threads on the 2-core EPYC
(per-op self time, min over steps): the direct convolutions and max pools split there ran no faster than on one
thread (conv2 backward 1.46 -> 1.39 ms, max pool 0.54 -> 0.54) while torch's halved. csrc/parallel.c's workers
spin 50 us between jobs, need no GIL, and whichever thread is free takes the next chunk.
"""
import ctypes

from . import clib
from .flat import _parallel_for
from .pool import get_num_threads

_ADDR = {}


def entry(lib, name):
    """The address of `name` in csrc/<lib>.c, or 0 (C off or unavailable)."""
    key = (lib, name)
    a = _ADDR.get(key)
    if a is None:
        a = 0
        dll = clib.library(lib) if clib.enabled() else None
        if dll is not None and _parallel_for() is not None:
            try:
                a = ctypes.cast(dll[name], ctypes.c_void_p).value or 0
            except AttributeError:
                a = 0
        _ADDR[key] = a
    return a if clib.enabled() else 0


def threads_for(work, min_work):
    """The threads to share `work` over: 1 below `min_work` or with one thread configured."""
    t = get_num_threads()
    return 1 if t < 2 or work < min_work else t


def grain(n, threads):
    """Items per chunk: about 4 chunks a thread (a late thread's chunks are taken by the others); all n on
    one thread."""
    return n if threads < 2 else max(1, n // (4 * threads))


def run(fn, n, threads, g, p0=None, p1=None, p2=None, p3=None, s0=0.0, s1=0.0):
    """fn(p, s, begin, end) over items [0, n) in chunks of g items on up to `threads` threads (the caller
    included); p = (p0, p1, p2, p3) addresses, s = (s0, s1) numbers."""
    if n:
        _parallel_for()(fn, p0, p1, p2, p3, s0, s1, n, g, threads)
    return -(-n // g) if n else 0
