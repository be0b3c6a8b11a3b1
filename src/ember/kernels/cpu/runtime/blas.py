"""One BLAS thread while a kernel shares a batch out over ember's thread pool and calls numpy's
matmul in each worker: otherwise OpenBLAS starts its own threads inside each worker (2 workers x 2
BLAS threads on 2 cores spin against each other: measured 2-10x slower and erratic).

OpenBLAS's thread count is process-wide (openblas_set_num_threads_local turned out process-wide too
in numpy's scipy-openblas 0.3.31), so `single_blas()` is entered by the thread that hands work to
the pool: the first of overlapping users saves the count and sets 1, the last one restores it
(BLAS calls of other threads meanwhile run on one thread: slower, never wrong). `available()`
says whether numpy's OpenBLAS was found; without it callers should not run matmuls in parallel.
"""
import ctypes
import threading

_FNS = []
_LOCK = threading.Lock()
_STATE = [0, None]          # users inside, saved thread count


def _find():
    """(set, get) num_threads functions of the OpenBLAS mapped into this process, or None."""
    try:
        with open("/proc/self/maps") as f:
            paths = {ln.split()[-1] for ln in f if len(ln.split()) >= 6}
    except OSError:
        return None
    paths = sorted(paths, key=lambda p: ("numpy" not in p, p))     # numpy's own OpenBLAS first
    for p in paths:
        if "openblas" not in p.rsplit("/", 1)[-1].lower() or ".so" not in p:
            continue
        try:
            lib = ctypes.CDLL(p)
        except OSError:
            continue
        for pre, suf in (("scipy_", "64_"), ("", ""), ("", "64_"), ("scipy_", "")):
            try:
                s = getattr(lib, f"{pre}openblas_set_num_threads{suf}")
                g = getattr(lib, f"{pre}openblas_get_num_threads{suf}")
            except AttributeError:
                continue
            s.argtypes, s.restype = [ctypes.c_int], None
            g.argtypes, g.restype = [], ctypes.c_int
            return s, g
    return None


def _fns():
    if not _FNS:
        with _LOCK:
            if not _FNS:
                import numpy  # noqa: F401  (numpy's BLAS must be loaded to be found)
                _FNS.append(_find())
    return _FNS[0]


def available():
    return _fns() is not None


def set_num_threads(n):
    """OpenBLAS's thread count (torch.set_num_threads sets it with the pool's); inside single_blas the
    count is what the last user restores."""
    fns = _fns()
    if fns is not None:
        with _LOCK:
            if _STATE[0] == 0:
                fns[0](n)
            else:
                _STATE[1] = n


def get_num_threads():
    fns = _fns()
    return fns[1]() if fns is not None else None


class single_blas:
    """`with single_blas(): ...` keeps OpenBLAS on one thread (a no-op when it was not found)."""

    def __enter__(self):
        fns = _fns()
        if fns is not None:
            with _LOCK:
                if _STATE[0] == 0:
                    _STATE[1] = fns[1]()
                    if _STATE[1] != 1:
                        fns[0](1)
                _STATE[0] += 1
        return self

    def __exit__(self, *exc):
        fns = _fns()
        if fns is not None:
            with _LOCK:
                _STATE[0] -= 1
                if _STATE[0] == 0 and _STATE[1] != 1:
                    fns[0](_STATE[1])
