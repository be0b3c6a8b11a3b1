"""torch/_inductor/cpp_builder.py + codecache.py counterpart: build C source with the system
compiler at run time, keep the library in a disk cache, load it with ctypes.

ember's hot cpu kernels (softmax, norms, im2col, pooling, ...) are small C files under
`kernels/cpu/csrc/`; the compiler layer will emit C the same way. `load(source)` compiles a source
string once into a shared library kept in a cache directory keyed by a hash of the source, the flags,
the compiler and the cpu, and returns the loaded `ctypes.CDLL`. Later processes find the library in
the cache and only pay for `dlopen`.

- The compiler is `$CC` or `gcc`. Flags are `-O3 -march=native` (the library is built on the machine
  that runs it) with `-fopenmp-simd` so `#pragma omp simd` vectorises loops without linking an
  OpenMP runtime (no thread pool that a forked DataLoader worker could inherit). Threading stays in
  Python: ctypes releases the GIL during a foreign call, so kernels split work over ember's thread pool.
- No -ffast-math: results keep IEEE semantics (NaN/inf propagation, no reassociation).
- `EMBER_DISABLE_C=1` turns the whole path off (kernels fall back to numpy); `EMBER_CACHE_DIR` moves the
  cache (default `$XDG_CACHE_HOME/ember` or `~/.cache/ember`).
- A failed compile raises `CompileError` with the compiler's output; `available()` says whether a
  compiler exists at all so callers can fall back quietly on machines without one.
- The first actual compile in a process (not a cache hit) prints one line to stderr,
  "ember: building CPU kernels (first run only)...", so a first import that pauses for gcc says why.
- `stats["builds"]` counts the compiler runs of this process (a cache hit does not run it); callers that
  know more about what the library depends on (ember._inductor.codecache: the compiler's version) pass
  it as `key_extra`, and may name another compiler with `cc`.
"""
import ctypes
import functools
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import threading

from . import protos as _protos

FLAGS = ("-O3", "-march=native", "-fPIC", "-shared", "-std=c11", "-fopenmp-simd", "-fno-math-errno")

_LOCK = threading.Lock()
_LOADED = {}            # key -> CDLL, per process
_KEY_LOCKS = {}         # key -> lock held while that key builds (other keys build in parallel)
_CC = None
_ANNOUNCED = [False]    # the first-build message was printed in this process
BUILD_MESSAGE = "ember: building CPU kernels (first run only)..."
stats = {"builds": 0}   # compiler runs in this process


class CompileError(RuntimeError):
    """The C compiler rejected a source; the message holds the compiler's output."""


def disabled():
    return os.environ.get("EMBER_DISABLE_C", "") not in ("", "0")


def compiler():
    """The path of the C compiler, or None when the machine has none."""
    global _CC
    if _CC is None:
        _CC = shutil.which(os.environ.get("CC", "gcc")) or shutil.which("cc") or ""
    return _CC or None


def available():
    """True when C kernels can be built here (a compiler exists and EMBER_DISABLE_C is not set)."""
    return not disabled() and compiler() is not None


def cache_dir():
    base = os.environ.get("EMBER_CACHE_DIR")
    if not base:
        xdg = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        base = os.path.join(xdg, "ember")
    return os.path.join(base, "c")


@functools.lru_cache(maxsize=None)
def _cpu_tag():
    """What -march=native depends on: the cpu model and its feature flags (read once per process)."""
    try:
        with open("/proc/cpuinfo") as f:
            lines = [ln for ln in f.read(1 << 16).splitlines() if ln.startswith(("model name", "flags"))]
        return "\n".join(lines[:2])
    except OSError:
        import platform
        return platform.machine() + platform.processor()


def _key(source, flags, cc=None, key_extra=""):
    h = hashlib.sha256()
    parts = (source, " ".join(flags), cc or compiler() or "", _cpu_tag(), sys.platform)
    for part in parts + ((key_extra,) if key_extra else ()):       # no extra: the keys of before
        h.update(part.encode())
        h.update(b"\0")
    return h.hexdigest()[:24]


def load(source, name="kernel", flags=(), *, cc=None, key_extra=""):
    """Compile `source` (C text) unless the cache holds it, load it and return the ctypes.CDLL.

    `name` only makes the cached file name readable; `flags` are added to FLAGS; `cc` is a compiler path
    (default `compiler()`); `key_extra` is more text for the cache key. Raises RuntimeError when C is
    disabled or no compiler exists, CompileError when the compiler fails."""
    if disabled():
        raise RuntimeError("C kernels are disabled (EMBER_DISABLE_C is set)")
    cc = cc or compiler()
    if cc is None:
        raise RuntimeError("no C compiler found: set CC or install gcc")
    allflags = FLAGS + tuple(flags)
    key = _key(source, allflags, cc, key_extra)
    with _LOCK:
        lib = _LOADED.get(key)
        if lib is not None:
            return lib
        key_lock = _KEY_LOCKS.setdefault(key, threading.Lock())
    with key_lock:                  # one build per key; builds of different sources run in parallel threads
        lib = _LOADED.get(key)
        if lib is not None:
            return lib
        d = cache_dir()
        path = os.path.join(d, f"{name}-{key}.so")
        if not os.path.exists(path):
            _build(cc, source, allflags, d, path)
        lib = ctypes.CDLL(path)
        lib._ember_protos = _protos.cached(cc, source, path[:-3] + ".protos.json",
                                           [f for f in allflags if f.startswith(("-I", "-D"))])
        with _LOCK:
            _LOADED[key] = lib
        return lib


def _announce():
    """Print BUILD_MESSAGE to stderr once per process, when a real compile starts."""
    if not _ANNOUNCED[0]:
        _ANNOUNCED[0] = True
        print(BUILD_MESSAGE, file=sys.stderr, flush=True)


def _build(cc, source, flags, d, path):
    """Compile into a private temporary file and rename it into place, so a concurrent process never
    loads a half-written library and a failed build leaves nothing behind."""
    _announce()
    with _LOCK:
        stats["builds"] += 1
    os.makedirs(d, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".build-", suffix=".so", dir=d)
    os.close(fd)
    src = tmp[:-3] + ".c"
    try:
        with open(src, "w") as f:
            f.write(source)
        r = subprocess.run([cc, *flags, src, "-o", tmp, "-lm"], capture_output=True, text=True)
        if r.returncode != 0:
            raise CompileError(f"{os.path.basename(cc)} failed to build {os.path.basename(path)}:\n{r.stderr.strip()}")
        os.replace(tmp, path)
    finally:
        for p in (src, tmp):
            try:
                os.unlink(p)
            except FileNotFoundError:
                pass


_CTYPES = {"p": ctypes.c_void_p, "l": ctypes.c_int64, "i": ctypes.c_int, "d": ctypes.c_double,
           "f": ctypes.c_float}


def function(lib, fname, sig, restype=None):
    """lib.fname with its argument types from a signature string: p pointer, l int64, i int,
    d double, f float (e.g. "ppll" for (void*, void*, int64, int64)). When the C definition of
    fname was read from the source (see ember._cc.protos), a `sig` or `restype` that does not match it
    raises TypeError instead of crashing at the call; restype None may ignore a returned value."""
    proto = getattr(lib, "_ember_protos", {}).get(fname)
    if proto is not None and (proto[1] != sig or (restype or "") not in ("", proto[0])):
        raise TypeError(f"C function {fname} is defined as ({proto[1] or 'void'}) -> {proto[0] or 'void'}, "
                        f"but was asked for with signature '{sig}' -> {restype or 'void'}")
    fn = lib[fname]          # a fresh function object: getattr(lib, ...) is shared by every caller
    fn.argtypes = [_CTYPES[c] for c in sig]
    fn.restype = _CTYPES[restype] if restype else None
    return fn
