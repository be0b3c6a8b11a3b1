"""ember's cpu thread pool, the counterpart of ATen's intra-op pool (`at::parallel_for`,
aten/src/ATen/Parallel.h): `run_parts(fn, k)` and `split_run(fn, arrays, axis)`.

ctypes releases the GIL during a foreign call, and numpy ufuncs and reductions release it too, so kernels
split rows over this pool rather than linking an OpenMP runtime (which keeps forked DataLoader workers
safe: a forked child gets its own pool). The calling thread runs the first part itself.

Tuning: splitting pays only for big inputs. A ~0.1 ms row kernel (a GPT-sized layer_norm, softmax or
GELU) loses more to the pool hand-off than it gains, and in a train step the other core is usually busy
(BLAS threads spinning after a gemm, other processes), so those kernels run on the calling thread below
~2M elements (their `min_elems`); `split_run`'s default threshold is 256k elements.
"""
import os

_POOL = None
_POOL_PID = None
_NUM_THREADS = [None]     # torch.set_num_threads; None: one thread per core, at most 8
_DEFAULT_THREADS = []     # that default, counted once: os.cpu_count() reads /sys on every call (~6 us CPU, ~20 us
                          # wall here), and every split-capable gemm asked for it twice without set_num_threads


def get_num_threads():
    """torch.get_num_threads: how many threads the kernels split work over (the pool's size)."""
    n = _NUM_THREADS[0]
    if n:
        return n
    if not _DEFAULT_THREADS:
        cores = max(1, min(os.cpu_count() or 1, 8))
        env = _env_threads()
        _DEFAULT_THREADS.append(min(env, cores) if env else cores)
    return _DEFAULT_THREADS[0]


def _env_threads():
    """The thread count the environment asks for, as torch reads it at start-up (ATen's init_num_threads sizes its
    OpenMP team by MKL's max threads: MKL_NUM_THREADS first, then OMP_NUM_THREADS, at most one a core), or None
    when neither holds a positive count (torch then keeps its default). `torchrun`-style launchers
    (ember.distributed.run) set OMP_NUM_THREADS=1 for their workers; a list ("4,2", OpenMP's nested levels)
    gives its first count."""
    for var in ("MKL_NUM_THREADS", "OMP_NUM_THREADS"):
        v = os.environ.get(var, "").split(",")[0].strip()
        if v.isdigit() and int(v) > 0:
            return int(v)
    return None


def set_num_threads(n):
    """torch.set_num_threads: size the pool to `n` threads (1: every kernel runs on the calling thread)
    and set numpy's OpenBLAS to `n` threads too."""
    global _POOL
    if isinstance(n, bool) or not isinstance(n, int):
        raise RuntimeError(f"set_num_threads expects an int, but got {type(n).__name__}")
    if n <= 0:
        raise RuntimeError("set_num_threads expects a positive integer")
    _NUM_THREADS[0] = n
    old, _POOL = _POOL, None          # the next parallel kernel makes a pool of the new size
    if old is not None and _POOL_PID == os.getpid():    # a forked child's copy has no threads to stop
        old.shutdown(wait=False)
    from . import blas
    blas.set_num_threads(n)


_INTEROP = [None]
_HUSH = [None]            # csrc/parallel.c's ember_parallel_hush once runtime/flat.py has loaded that pool, else None


def get_num_interop_threads():
    """torch.get_num_interop_threads. ember runs ops one after another on the calling thread (no
    inter-op pool), so this is only the recorded setting (default: the intra-op count)."""
    return _INTEROP[0] or get_num_threads()


def set_num_interop_threads(n):
    if isinstance(n, bool) or not isinstance(n, int):
        raise RuntimeError(f"set_num_interop_threads expects an int, but got {type(n).__name__}")
    if n <= 0:
        raise RuntimeError("Expected positive number of threads")
    _INTEROP[0] = n


def _pool():
    """A process-local thread pool (a forked child, e.g. a DataLoader worker, gets its own)."""
    global _POOL, _POOL_PID
    if _POOL is None or _POOL_PID != os.getpid():
        from concurrent.futures import ThreadPoolExecutor   # here: importing it costs ~15 ms
        _POOL = ThreadPoolExecutor(max_workers=get_num_threads())
        _POOL_PID = os.getpid()
    return _POOL


def run_parts(fn, k):
    """fn(0), ..., fn(k-1) in parallel: part 0 on the calling thread, the others on the pool (one
    thread hand-off fewer than sending every part to the pool, and the caller's core is not left
    idle). Waits for every part, even when one raises, then re-raises the first error. First sends the C
    pool's spinning workers to sleep (csrc/parallel.c's ember_parallel_hush): one spinning out its idle budget
    (up to 4 ms) on the core this pool's thread wakes on made the CNN step slower."""
    if k <= 1:
        fn(0)
        return
    hush = _HUSH[0]
    if hush is not None:            # the C pool's idle workers stop spinning: these threads need the cpus
        hush()
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
