"""Flat elementwise kernels on ember's C thread pool, the counterpart of ATen's `at::parallel_for` running
the vectorised loops of `native/cpu/BinaryOpsKernel.cpp` and `UnaryOpsKernel.cpp` over a TensorIterator's
contiguous range.

`run(name, arrays, s0)` runs the kernel `<name>_<f32|f64>` of csrc/elementwise_flat.c over c-contiguous
arrays of one size (inputs first, the output last; `s0` a Python-number operand) and returns False, having
done nothing, when C is unavailable or the kernel does not exist for that dtype (the caller keeps its numpy
path). csrc/parallel.c shares the elements out in chunks (_grain) over up to get_num_threads()
threads: C workers that spin briefly between jobs and need no GIL, with the caller claiming chunks too, so
a split never waits for a worker whose core is busy elsewhere (see that file). Python's pool (pool.py)
hands a part to a sleeping Python thread that must take the GIL first: on 2 loaded cores a 1M-element
float add ran slower split that way than on one thread. The pool is entered through csrc/parallel_call.c,
a small CPython extension (METH_FASTCALL, the GIL released for the call: a few hundred instructions), when it
builds (_fast_entry), else through ctypes (~15k instructions a call; session 15 measured ~2-3.5 us a call
saved at 2 threads, whatever the op's size).

Sizes: torch runs an elementwise op on one thread up to 32768 elements (its grain). The arithmetic, comparison
and other one-instruction kernels are no faster than numpy's loops on one thread and their foreign call costs
~3 us more, so they run here only when the op will be split (`splits()`: from MIN_ELEMS, two chunks, with more
than one thread); exp / sigmoid / where / clamp beat numpy on one thread too, and run from MIN_ELEMS_MATH.
So does tanh, although on one thread it is slower than numpy's loop (1M float32: 627 us against 380; its exp
and division cost more than numpy's polynomial pieces; torch's took 2700 here): its float32 bits differ from
numpy's, and a result must not depend on the thread count.
"""
import ctypes
import os

import numpy as np

from . import clib
from . import pool as _pool_mod
from .pool import get_num_threads

GRAIN = 32768           # elements: torch's internal::GRAIN_SIZE (it splits an op from here; chunks: _grain)
MIN_ELEMS = 2 * GRAIN   # from here, with more than one thread, the arithmetic and comparison kernels run in C
MIN_ELEMS_MATH = 4096   # exp / tanh / sigmoid / where / clamp run in C from here, on one thread too
_ALIGN = 64             # chunk boundaries at multiples of 64 elements (whole cache lines and SIMD vectors)

_SFX = {np.dtype(np.float32): "f32", np.dtype(np.float64): "f64"}
_ADDR = {}              # (name, dtype) -> kernel address, or 0 when there is none
_PAR = [None]
_LAST = [1]             # threads that took part in the last split (benchmarks read it through last_threads())


def _parallel_for():
    f = _PAR[0]
    if f is None:
        f = clib.kernel("parallel", "ember_parallel_for", "pppppddlli", "i")
        if f is not None:
            _PAR[0] = f
            _pool_mod._HUSH[0] = clib.kernel("parallel", "ember_parallel_hush", "")
    return f


def kernel(name, dtype):
    """The address of csrc/elementwise_flat.c's `<name>_<f32|f64>` (the suffix: the input dtype `dtype`), or 0."""
    key = (name, dtype)
    a = _ADDR.get(key)
    if a is None:
        a = 0
        sfx = _SFX.get(dtype)
        lib = clib.library("elementwise_flat") if sfx is not None and clib.enabled() else None
        if lib is not None:
            try:
                a = ctypes.cast(lib[f"{name}_{sfx}"], ctypes.c_void_p).value or 0
            except AttributeError:
                a = 0
        _ADDR[key] = a
    return a


def splits():
    """Whether ember's pool has more than one thread (torch.set_num_threads)."""
    return get_num_threads() > 1


CHUNK_MIN = 8192        # elements: the smallest chunk of a split op (its first-level-cache share of work)
_CHUNKS = 16            # chunks a thread (when they are at least CHUNK_MIN)


def _grain(n, k):
    """The chunk size of a split over k threads: none up to GRAIN elements (torch's at::parallel_for runs
    those on one thread), then about 16 chunks a thread, at least CHUNK_MIN elements, 64-aligned. Small
    chunks let a thread that starts late, or loses its core for a while, leave the rest to the other (each
    runs its own part first, then claims what is left of the other's: csrc/parallel.c).
    Measured at 2 threads, load ~10, 1M float32, min / median us of 320 calls: in-place mul 4 chunks a
    thread 77.8 / 95.8, 8: 51.5 / 94.7, 16: 51.4 / 64.1, 32: 51.4 / 54.7; add 73.4 / 173.6 (4) -> 74.2 /
    84.3 (16); torch 47.8 / 16037 and 71.1 / 9724 in the same run (its OpenMP threads fought ember's)."""
    if n <= GRAIN:
        return n
    g = n // (_CHUNKS * k)
    if g < CHUNK_MIN:
        g = CHUNK_MIN
    return (g + _ALIGN - 1) // _ALIGN * _ALIGN


_address = clib.address


def run(name, arrays, s0=0.0, s1=0.0, dtype=None):
    """Kernel `name` for `dtype` (default: the first array's) over c-contiguous same-size arrays (inputs,
    then the output; bool arrays are bytes). True when done, False (nothing written) when C is off or there
    is no such kernel; the caller has checked layout, sizes and overlap. An op that moves STREAM_BYTES or
    more into an output that is none of its inputs runs the kernel's streaming-store form
    (`<name>_nt`, see csrc/elementwise_flat.c) when there is one: the same bits."""
    dt = arrays[0].dtype if dtype is None else dtype
    fn = _ADDR.get((name, dt))
    if fn is None:
        fn = kernel(name, dt)
    if not fn:
        return False
    o = arrays[-1]
    n = o.size
    if n >= _STREAM_MIN[0] and sum(a.nbytes for a in arrays) >= stream_bytes():
        for a in arrays[:-1]:
            if a is o:              # in place: its lines are in cache already (the kernels allow an exact alias)
                break
        else:
            fn = kernel(name + "_nt", dt) or fn
    return run_address(fn, arrays, n, s0, s1)


_STREAM = [None]        # STREAM_BYTES once read (stream_bytes())
_STREAM_MIN = [0]       # elements: below this no op reaches STREAM_BYTES (a cheap first test; set with it)


def _llc_bytes():
    """The size of the last-level cache a core shares (sysfs: cpu0's highest-level unified cache), or None.
    (getconf's LEVEL3_CACHE_SIZE reported 320 MB on the 32 MB L3 of the VM this was tuned on.)"""
    base = "/sys/devices/system/cpu/cpu0/cache"
    best = None
    try:
        for d in os.listdir(base):
            if not d.startswith("index"):
                continue
            with open(os.path.join(base, d, "level")) as f:
                level = int(f.read())
            with open(os.path.join(base, d, "type")) as f:
                if f.read().strip() == "Instruction":
                    continue
            with open(os.path.join(base, d, "size")) as f:
                txt = f.read().strip()
            size = int(txt[:-1]) * {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}[txt[-1]] if txt[-1] in "KMG" \
                else int(txt)
            if best is None or level > best[0]:
                best = (level, size)
    except (OSError, ValueError, KeyError):
        return None
    return best[1] if best else None


def stream_bytes():
    """STREAM_BYTES: from how many bytes moved (inputs read plus output written) a flat op stores its
    output with non-temporal stores: 1.5 times the last-level cache (32 MB when unknown). Below it the
    output is likely still in cache when the next op reads it; above, the op evicts its own data anyway,
    and streaming skips the read-for-ownership of every output line. Measured at 2 threads on the 32 MB
    L3 here (load 3-11, min us of 180 calls, plain -> streaming, torch): 4M float32 add (48 MB) 459 -> 328
    (381), add out= 603 -> 426 (399), 8M add 1724 -> 1331, 8M x + 1 (64 MB) 1245 -> 853; but ops that move
    exactly the cache's size ran slower streamed, a repeated op keeping its 32 MB in cache: 4M relu 263 ->
    350 (223), 4M x + 1 231 -> 314 (198), and so did 2M (24 MB) ones: x + 1 102 -> 159 (95)."""
    b = _STREAM[0]
    if b is None:
        b = set_stream_bytes((_llc_bytes() or 32 << 20) * 3 // 2)
    return b


def set_stream_bytes(nbytes):
    """Sets STREAM_BYTES (tests run the streaming kernels on small arrays with it); returns it."""
    _STREAM[0] = int(nbytes)
    _STREAM_MIN[0] = max(1, _STREAM[0] // 32)     # bytes an element at most: 24 (a float64 binary op)
    return _STREAM[0]


_FAST = [None]          # csrc/parallel_call.c's run, or False when it cannot be built (run_address)
_FAST_SUM = [None]      # its sum_all (flat.sum_all), set with _FAST


def _fast_entry():
    """csrc/parallel_call.c's `run(fn, arrays, s0, s1, n, k)` (a CPython extension calling csrc/parallel.c,
    built with the Python headers and loaded once), or False when C is off, ndarray's data offset is unknown
    or the build fails (run_address then calls the pool through ctypes). Per call of a 1M-element float32
    add (the kernel excluded), callgrind: ctypes ~14k instructions plus ~1k for each array's address, this
    entry a few hundred (see that file)."""
    f = _FAST[0]
    if f is None:
        f = False
        par = _parallel_for()
        if par is not None and clib.DATA_OFFSET is not None:
            try:
                import importlib.machinery
                import importlib.util
                from .... import _cc
                name = "_ember_parallel_call"
                lib = _cc.load(clib.source("parallel_call"), "parallel_call", ("-I" + _python_include(),))
                loader = importlib.machinery.ExtensionFileLoader(name, lib._name)
                mod = importlib.util.module_from_spec(importlib.util.spec_from_loader(name, loader))
                loader.exec_module(mod)
                mod.init(ctypes.cast(par, ctypes.c_void_p).value, np.ndarray, clib.DATA_OFFSET, GRAIN, _CHUNKS,
                         CHUNK_MIN, _ALIGN)
                f = mod.run
                _FAST_SUM[0] = mod.sum_all
            except (OSError, RuntimeError, ImportError, KeyError, TypeError, ValueError):
                f = False           # (no Python headers, ...): the ctypes call below
        _FAST[0] = f
    return f


def _python_include():
    """The directory of Python.h: sysconfig's include path, read without importing sysconfig (~12 ms) when the
    usual layout holds (<base prefix>/include/pythonX.Y<abiflags>)."""
    import sys
    d = os.path.join(sys.base_prefix, "include", f"python{sys.version_info[0]}.{sys.version_info[1]}"
                     f"{getattr(sys, 'abiflags', '')}")
    if os.path.exists(os.path.join(d, "Python.h")):
        return d
    import sysconfig
    return sysconfig.get_paths()["include"]


def run_address(fn, arrays, n, s0=0.0, s1=0.0):
    """The kernel at address fn over n elements of `arrays` (at most 4, the output last)."""
    fast = _FAST[0]
    if fast is None:
        fast = _fast_entry()
    if fast:
        if n:
            try:
                _LAST[0] = fast(fn, arrays, s0, s1, n, get_num_threads())
                return True
            except TypeError:       # an array that is not exactly an ndarray: the ctypes call reads it
                pass
        else:
            return True
    par = _PAR[0] or _parallel_for()
    if par is None:
        return False
    if n:
        k = get_num_threads()
        g = _grain(n, k) if k > 1 else n
        na = len(arrays)
        if na == 2:                 # unary / scalar kernels read p[0] and write p[2]
            _LAST[0] = par(fn, _address(arrays[0]), None, _address(arrays[1]), None, s0, s1, n, g, k)
        elif na == 3:
            _LAST[0] = par(fn, _address(arrays[0]), _address(arrays[1]), _address(arrays[2]), None, s0, s1, n,
                           g, k)
        else:
            p = [_address(a) for a in arrays] + [None] * (4 - na)
            _LAST[0] = par(fn, p[0], p[1], p[2], p[3], s0, s1, n, g, k)
    return True


_SUMS = {}              # dtype -> csrc/reduction_flat.c's sum_all_<sfx> (ctypes), or None
_JOINED = np.zeros(1, np.intc)              # where the sum kernels write how many threads took part
_JOINED_AT = _JOINED.ctypes.data
MIN_ELEMS_SUM = 2 * 16384   # from here a full sum runs csrc/reduction_flat.c (its tree's top subtrees, LEAF_MIN)


def sum_all(a):
    """np.add.reduce(a, axis=None) with numpy's exact bits, as a numpy scalar of a's dtype, for a big
    c-contiguous float32/64 array, split over the pool (csrc/reduction_flat.c: numpy's pairwise tree, its
    top subtrees on any threads, so the bits do not depend on the thread count); None when C is off or
    the array does not fit (the caller keeps numpy)."""
    r = sum_all_double(a)
    return None if r is None else a.dtype.type(r)


def sum_all_double(a):
    """sum_all's sum as the Python float the kernel returns (a float32 sum held exactly), or None: mean does
    its division on it (kernels/cpu/reduction.py)."""
    dt = a.dtype
    fn = _SUMS.get(dt, 0)
    if fn == 0:
        sfx = _SFX.get(dt)
        fn = clib.kernel("reduction_flat", f"sum_all_{sfx}", "plipp", "d") if sfx is not None else None
        _SUMS[dt] = fn
        if fn is not None:
            _SUM_AT[dt] = ctypes.cast(fn, ctypes.c_void_p).value
    if fn is None or a.size < MIN_ELEMS_SUM or not a.flags.c_contiguous:
        return None
    fast = _FAST[0]
    if fast is None:
        fast = _fast_entry()
    if fast and a.__class__ is np.ndarray:      # the CPython entry (csrc/parallel_call.c): ~10k instructions less
        r, _LAST[0] = _FAST_SUM[0](_SUM_AT[dt], a, a.size, get_num_threads())
        return r
    par = _PAR[0] or _parallel_for()
    if par is None:
        return None
    k = get_num_threads()
    r = fn(_address(a), a.size, k, ctypes.cast(par, ctypes.c_void_p).value if k > 1 else None, _JOINED_AT)
    _LAST[0] = int(_JOINED[0])
    return r


_SUM_AT = {}                # dtype -> the address of sum_all_<sfx> (with _SUMS)


_ROWS = {}


def sum_rows(a):
    """np.add.reduce(a, axis=-1) with numpy's exact bits (each row's pairwise sum, plus 0) as a flat array of
    a.size // a.shape[-1] sums, for a big c-contiguous float32/64 array of 1+ dims, rows shared over the pool
    (csrc/reduction_flat.c); None when C is off or the array does not fit."""
    dt = a.dtype
    fn = _ROWS.get(dt, 0)
    if fn == 0:
        sfx = _SFX.get(dt)
        fn = clib.kernel("reduction_flat", f"sum_rows_{sfx}", "pllpipp") if sfx is not None else None
        _ROWS[dt] = fn
    if fn is None or a.size < MIN_ELEMS_SUM or not a.ndim or not a.flags.c_contiguous:
        return None
    par = _PAR[0] or _parallel_for()
    if par is None:
        return None
    cols = a.shape[-1]
    rows = a.size // cols
    out = np.empty(rows, dt)
    k = get_num_threads()
    fn(_address(a), rows, cols, _address(out), k, ctypes.cast(par, ctypes.c_void_p).value if k > 1 else None,
       _JOINED_AT)
    _LAST[0] = int(_JOINED[0])
    return out


_STAT_NAMES = ("jobs", "joined", "asleep", "waited", "wait_ns", "chunks", "caller_chunks", "busy", "wake_skipped",
               "long_waits", "backed_off", "woke", "woke_late", "same_cpu", "moved")


def pool_stats(reset=False):
    """csrc/parallel.c's counters since the last reset, as a dict (benchmarks/elementwise_bandwidth.py reports
    them): split `jobs`; jobs a worker `joined`; jobs published while a worker was `asleep` (it must be woken
    through the scheduler); joined jobs whose caller `waited` for the worker after its own chunks and the
    `wait_ns` summed; `chunks` of split jobs and the `caller_chunks` the caller ran; calls run inline because
    the pool was `busy` with another thread's job; jobs published without waking a sleeping worker
    (`wake_skipped`: the back-off of csrc/parallel.c's ep_wake_policy); joined jobs whose caller waited long for
    a worker that lost its cpu mid-chunk (`long_waits`: csrc/parallel.c's EP_LONG_WAIT_NS) and the jobs then run
    on the caller alone (`backed_off`, also counted in `jobs`, `chunks` and `caller_chunks`); the workers'
    wake-ups from sleep
    (`woke`), those that found their job already done (`woke_late`), and those that ran on the caller's cpu
    (`same_cpu`: on a loaded machine the scheduler puts a woken worker beside the caller, where it preempts
    the caller and a split gains nothing; csrc/parallel.c's ep_on_callers_cpu), and the workers' moves off
    the caller's cpu (`moved`: ep_move_off); then why idle workers stopped spinning and slept: their budget ran
    out with no job (`spun_out`), another thread took their cpu while they spun (`preempted`: on 2 cores, another
    process, or torch's OpenMP thread spinning after its own op in the same process), or they were on the
    caller's cpu (`gave_way`); the woken workers' delays after their job's publishing, summed (`wake_ns`: tens of
    microseconds each on an idle cpu of this VM), and the wake-ups that took csrc/parallel.c's EP_SLOW_WAKE_NS or
    longer (`slow_wakes`: no cpu was idle; the idle spin then stays at its floor), and the sleeps of spinning
    workers sent to sleep because runtime/pool.py's Python threads were about to need the cpus (`hushed`).
    None when C is off."""
    if _parallel_for() is None:
        return None
    f = clib.kernel("parallel", "ember_parallel_stats", "pi")
    out = np.zeros(len(_STAT_NAMES), np.int64)
    f(out.ctypes.data, 1 if reset else 0)
    g = clib.kernel("parallel", "ember_parallel_sleep_stats", "pi")
    why = np.zeros(len(_SLEEP_NAMES), np.int64)
    g(why.ctypes.data, 1 if reset else 0)
    return dict(zip(_STAT_NAMES + _SLEEP_NAMES, out.tolist() + why.tolist()))


_SLEEP_NAMES = ("spun_out", "preempted", "gave_way", "wake_ns", "slow_wakes", "hushed")


def set_spin_us(us):
    """How long (us of wall time) an idle C pool worker spins for the next job before it sleeps, at least (the
    budget grows from there up to set_spin_max_us while jobs come soon after the worker sleeps, nothing
    preempts it and its wake-ups are quick: csrc/parallel.c's ep_spin_adapt); returns the previous setting, or
    None when C is off. Default 50 (csrc/parallel.c's EP_SPIN_NS, which says why)."""
    if _parallel_for() is None:
        return None
    f = clib.kernel("parallel", "ember_parallel_set_spin", "l", "l")
    return f(int(us * 1000)) / 1000


def set_spin_max_us(us):
    """The most (us of wall time) an idle C pool worker's adaptive spin grows to (at or below set_spin_us's
    floor: a fixed spin); returns the previous ceiling, or None when C is off. Default 4000 (EP_SPIN_MAX_NS)."""
    if _parallel_for() is None:
        return None
    f = clib.kernel("parallel", "ember_parallel_set_spin_max", "l", "l")
    return f(int(us * 1000)) / 1000


def set_slice_us(us):
    """The C pool workers' scheduler time slice in us (csrc/parallel.c's ep_apply_slice; 0: the kernel's default),
    taken up by each worker at its next wake-up; returns the previous setting, or None when C is off. Default 100."""
    if _parallel_for() is None:
        return None
    f = clib.kernel("parallel", "ember_parallel_set_slice", "l", "l")
    return f(int(us * 1000)) / 1000


def spin_now_us():
    """The idle spin budget the C pool's workers use now (us), or None when C is off."""
    if _parallel_for() is None:
        return None
    f = clib.kernel("parallel", "ember_parallel_spin_now", "", "l")
    return f() / 1000


def set_wake_backoff(jobs):
    """The cap (in jobs) of csrc/parallel.c's wake-up back-off (ep_wake_policy; 0: wake sleeping workers for
    every job); returns the previous cap, or None when C is off. Default 32."""
    if _parallel_for() is None:
        return None
    f = clib.kernel("parallel", "ember_parallel_set_backoff", "i", "i")
    return f(int(jobs))


def last_threads():
    """How many threads took part in the last kernel run here (1: the caller alone)."""
    return _LAST[0]


def overlaps(out, *inputs):
    """True when out shares memory with an input other than by being that very array (same data, same
    layout): the flat kernels read element i before they write it, so only an exact alias is safe."""
    for a in inputs:
        if a is out:                # in place (relu_, clamp_, ...): an exact alias, without numpy's check
            continue
        if a.__class__ is np.ndarray and np.may_share_memory(out, a):
            if not (_address(a) == _address(out) and a.strides == out.strides and a.shape == out.shape):
                return True
    return False
