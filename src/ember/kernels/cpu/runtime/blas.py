"""One BLAS thread while a kernel shares a batch out over ember's thread pool and calls numpy's
matmul in each worker: otherwise OpenBLAS starts its own threads inside each worker (2 workers x 2
BLAS threads on 2 cores spin against each other: measured 2-10x slower and erratic).

OpenBLAS's thread count is process-wide (openblas_set_num_threads_local turned out process-wide too
in numpy's scipy-openblas 0.3.31), so `single_blas()` is entered by the thread that hands work to
the pool: the first of overlapping users saves the count and sets 1, the last one restores it
(BLAS calls of other threads meanwhile run on one thread: slower, never wrong). `available()`
says whether numpy's OpenBLAS was found; without it callers should not run matmuls in parallel.
`cblas_gemm()` gives the addresses of its cblas_sgemm/cblas_dgemm (generated C calls them directly).

`hold_single()`: once ember splits its gemms over its own C pool (runtime/gemm.py), OpenBLAS stays at one thread
for good (set_num_threads then sizes ember's pool only): an OpenBLAS worker spins ~0.1 s of cpu after each
threaded call and took the second core from ember's pool worker all through a train step (see gemm.py).
"""
import ctypes
import threading

_FNS = []
_LOCK = threading.Lock()
_STATE = [0, None]          # users inside, saved thread count
_HELD = [False]             # hold_single() was called: OpenBLAS stays at one thread
_WANT = [None]              # the count set_num_threads asked for (or OpenBLAS's own when it was held)


def _openblas_libs():
    """The OpenBLAS libraries mapped into this process (numpy's own first), as ctypes.CDLLs."""
    try:
        with open("/proc/self/maps") as f:
            paths = {ln.split()[-1] for ln in f if len(ln.split()) >= 6}
    except OSError:
        return
    paths = sorted(paths, key=lambda p: ("numpy" not in p, p))     # numpy's own OpenBLAS first
    for p in paths:
        if "openblas" not in p.rsplit("/", 1)[-1].lower() or ".so" not in p:
            continue
        try:
            yield ctypes.CDLL(p)
        except OSError:
            continue


def _find():
    """(set, get) num_threads functions of the OpenBLAS mapped into this process, or None."""
    for lib in _openblas_libs():
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


_GEMM = []


def cblas_gemm():
    """(address of cblas_sgemm, address of cblas_dgemm, integer width in bits) of numpy's OpenBLAS, or None when
    none was found. numpy's wheels bundle an ILP64 build with `scipy_`-prefixed, `64_`-suffixed names
    (`scipy_cblas_sgemm64_`, 64-bit sizes); a plain OpenBLAS exports `cblas_sgemm` with 32-bit sizes. The
    signature is cblas's: (order, transA, transB, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc), the three enums
    as C ints (row-major 101, no-transpose 111, transpose 112)."""
    if not _GEMM:
        import numpy  # noqa: F401  (numpy's BLAS must be loaded to be found)
        found = None
        for lib in _openblas_libs():
            for pre, suf, bits in (("scipy_", "64_", 64), ("", "64_", 64), ("", "", 32), ("scipy_", "", 32)):
                try:
                    s = getattr(lib, f"{pre}cblas_sgemm{suf}")
                    d = getattr(lib, f"{pre}cblas_dgemm{suf}")
                except AttributeError:
                    continue
                found = (ctypes.cast(s, ctypes.c_void_p).value, ctypes.cast(d, ctypes.c_void_p).value, bits)
                break
            if found is not None:
                break
        _GEMM.append(found)
    return _GEMM[0]


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
            _WANT[0] = n
            if _HELD[0]:
                n = 1
            if _STATE[0] == 0:
                fns[0](n)
            else:
                _STATE[1] = n


def hold_single():
    """Keep OpenBLAS at one thread from now on in this process (ember's gemms split over its own pool). Cheap
    once done: runtime/gemm.py calls it before every product large enough for OpenBLAS to thread."""
    if _HELD[0]:
        return
    fns = _fns()
    with _LOCK:
        _HELD[0] = True
        if fns is not None:
            if _STATE[0] == 0:
                now = fns[1]()
                if _WANT[0] is None:
                    _WANT[0] = now
                if now != 1:
                    fns[0](1)
            else:
                if _WANT[0] is None:
                    _WANT[0] = _STATE[1]
                _STATE[1] = 1


def held():
    """Whether hold_single() holds OpenBLAS at one thread."""
    return _HELD[0]


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


class native_threads:
    """`with native_threads(): ...` gives OpenBLAS back the thread count set_num_threads asked for while
    hold_single() holds it at one (and one again after): for code that calls cblas itself and does not split
    its products over ember's pool (the C entries of compiled graphs, _inductor/codegen/blas_calls.py). A no-op
    when OpenBLAS is not held, wanted one thread, or a single_blas user is inside."""

    def __enter__(self):
        self._on = False
        if _HELD[0] and (_WANT[0] or 1) > 1:
            fns = _fns()
            if fns is not None:
                with _LOCK:
                    if _STATE[0] == 0:
                        fns[0](_WANT[0])
                        self._on = True
        return self

    def __exit__(self, *exc):
        if self._on:
            fns = _fns()
            with _LOCK:
                if _STATE[0] == 0:
                    fns[0](1)
                else:
                    _STATE[1] = 1
