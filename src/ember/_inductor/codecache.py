"""torch._inductor.codecache: the disk caches of the code ember.compile generates -- C kernels built into shared
libraries, and the Python wrapper modules that call them.

- `compile_c(source, name)` builds C source through `ember._cc` (the run-time C building that ember's
  hand-written kernels use: same cache directory, same atomic-rename build) and returns the `ctypes.CDLL`.
  The cache key is a hash of the source, the flags, the compiler's path and version (`cc --version`, read once
  per process), the cpu (model name and flags from /proc/cpuinfo, since the build uses -march=native) and the
  platform. The compiler is `config.cpp.cxx` (default `$CC` or gcc); `config.cpp.simdlen` adds a vector-width
  flag (`config_flags()`).
  Concurrency: each build writes a private temporary file and renames it into place, so two processes building
  the same new source both end up loading a complete library (the later rename replaces the earlier file; a
  library already loaded keeps its inode). A failed build raises `ember._cc.CompileError` with the compiler's
  output and leaves nothing in the cache.
- `compile_c_async` returns a Future of compile_c run in a pool of `config.compile_threads` threads, so the
  builds of several graphs (a forward and its backward) overlap with each other and with Python work.
- `PyCodeCache` writes generated Python source to `<cache>/py/<hh>/<key>.py` (key: a hash of the source) and
  imports it from there, so a traceback through generated code shows its real lines.
- `counters` counts, per process: "c_compile" (the compiler ran), "c_disk_hit" (the library was in the cache
  directory), "c_memory_hit" (already loaded in this process), "py_write"/"py_load". A test or a benchmark reads
  them to tell a warm start from a cold one.
- `cache_dir()` is the root shared with `ember._cc` (`EMBER_CACHE_DIR`, default `~/.cache/ember`).
"""
import collections
import hashlib
import importlib.util
import os
import platform
import shutil
import subprocess
import threading

from ember import _cc
from ember._cc import build as _build
from ember._cc.build import CompileError  # noqa: F401  (raised by compile_c; torch's name is CppCompileError)

from . import config

# Added for generated code (not for ember._cc's hand-written kernels, whose cache keys stay as they are):
# -fno-trapping-math lets gcc if-convert and vectorise compare-selects (relu, NaN-propagating min/max, where). Results
# keep IEEE semantics (NaN/inf propagate, -0.0 stays); only the floating-point exception flags, which ember never
# reads, may differ. torch's inductor builds with it too. Without it a fused relu/min chain on random-sign data runs
# as a branchy scalar loop: 16 ms instead of 0.3 ms for 1M float32 here.
GENERATED_FLAGS = ("-fno-trapping-math",)
counters = collections.Counter()
_LOCK = threading.Lock()
_VERSIONS = {}           # compiler path -> its `--version` output
_LIBS = {}               # cache key -> CDLL loaded in this process
_KEY_LOCKS = {}          # cache key -> lock held while it is looked up or built


def cache_dir():
    """The root of ember's disk caches (C libraries live in its `c/`, Python wrappers in its `py/`)."""
    return os.path.dirname(_cc.cache_dir())


def cc_path():
    """The C compiler config.cpp.cxx names (torch's `(None, "g++")` form or a plain string), as a path."""
    cxx = config.cpp.cxx
    name = cxx[-1] if isinstance(cxx, (tuple, list)) else cxx
    if not name:
        return _cc.compiler()
    found = shutil.which(name)
    if found is None and name == os.environ.get("CC", "gcc"):
        return _cc.compiler()                 # the default compiler is missing: ember._cc's fallback (cc)
    if found is None:
        raise RuntimeError(f"config.cpp.cxx names the compiler {name!r}, which is not on PATH")
    return found


def compiler_version(cc):
    """`cc --version` output (first line is enough to tell builds apart; all of it is kept), once per process."""
    v = _VERSIONS.get(cc)
    if v is None:
        try:
            r = subprocess.run([cc, "--version"], capture_output=True, text=True, timeout=60)
            v = (r.stdout or r.stderr).strip()
        except (OSError, subprocess.SubprocessError) as e:
            v = f"unknown ({type(e).__name__})"
        _VERSIONS[cc] = v
    return v


def cpu_tag():
    """The cpu model name and feature flags the key depends on (what -march=native reads)."""
    return _build._cpu_tag()


def config_flags():
    """Compiler flags for generated code: GENERATED_FLAGS, and those `cpp.simdlen` asks for (float32 lanes gcc should vectorise for: 1 turns the
    vectoriser off, 4/8/16 prefer 128/256/512-bit vectors on x86; None leaves -march=native's choice)."""
    n = config.cpp.simdlen
    if n is None:
        return GENERATED_FLAGS
    if n == 1:
        return GENERATED_FLAGS + ("-fno-tree-vectorize",)
    if n in (4, 8, 16) and platform.machine() in ("x86_64", "AMD64", "i686"):
        return GENERATED_FLAGS + (f"-mprefer-vector-width={32 * n}",)
    raise RuntimeError(f"config.cpp.simdlen={n} is not supported here: expected None, 1, or 4, 8, 16 on x86")


def c_key(source, flags=()):
    """The cache key compile_c uses for this source and these extra flags."""
    cc = cc_path()
    return _build._key(source, _build.FLAGS + config_flags() + tuple(flags), cc, _key_extra(cc))


def _key_extra(cc):
    return "version:" + compiler_version(cc)


def library_path(source, name="kernel", flags=()):
    """Where compile_c keeps (or will keep) the library of this source."""
    return os.path.join(_cc.cache_dir(), f"{name}-{c_key(source, flags)}.so")


def compile_c(source, name="kernel", flags=()):
    """Build C `source` unless the disk cache holds it, load it and return the ctypes.CDLL.

    `name` makes the cached file readable (`<name>-<key>.so`); `flags` are added to ember._cc.FLAGS and the
    config's (`config_flags()`), e.g. `("-fopenmp",)`. Raises ember._cc.CompileError with the compiler's output
    when the build fails, and RuntimeError when C building is disabled (EMBER_DISABLE_C) or there is no compiler.
    Threads may call it at once: the same source builds once, different sources build in parallel."""
    if _cc.disabled():
        raise RuntimeError("ember._inductor needs a C compiler, but C building is disabled (EMBER_DISABLE_C)")
    cc = cc_path()
    if cc is None:
        raise RuntimeError("ember._inductor needs a C compiler: set CC or install gcc")
    return _compile_c_flags(source, name, config_flags() + tuple(flags), cc)


def _compile_c_flags(source, name, flags, cc):
    """compile_c with its flags and compiler resolved (reads no config: runs in compile_c_async's threads)."""
    extra = _key_extra(cc)
    key = _build._key(source, _build.FLAGS + flags, cc, extra)
    with _LOCK:
        key_lock = _KEY_LOCKS.setdefault(key, threading.Lock())
    with key_lock:                       # the same source builds once; other sources build in parallel
        with _LOCK:
            lib = _LIBS.get(key)
            if lib is not None:
                counters["c_memory_hit"] += 1
                return lib
        existed = os.path.exists(os.path.join(_cc.cache_dir(), f"{name}-{key}.so"))
        lib = _cc.load(source, name, flags, cc=cc, key_extra=extra)
        with _LOCK:
            counters["c_disk_hit" if existed else "c_compile"] += 1
            _LIBS[key] = lib
        return lib


def vectorization_report(source, flags=()):
    """The loops gcc vectorises in `source` when built as compile_c would build it: a list of
    (line number, message) from -fopt-info-vec-optimized (compiles to an object file, caches nothing)."""
    import re
    import tempfile
    cc = cc_path()
    allflags = [f for f in _build.FLAGS if f != "-shared"] + list(config_flags()) + list(flags)
    with tempfile.TemporaryDirectory() as d:
        src = os.path.join(d, "k.c")
        with open(src, "w") as f:
            f.write(source)
        r = subprocess.run([cc, *allflags, "-fopt-info-vec-optimized", "-c", src, "-o", os.path.join(d, "k.o")],
                           capture_output=True, text=True)
    if r.returncode != 0:
        raise CompileError(f"{os.path.basename(cc)} failed:\n{r.stderr.strip()}")
    return [(int(m.group(1)), m.group(2).strip()) for m in re.finditer(r"k\.c:(\d+):\d+: optimized: (.*)", r.stderr)]


_POOL = []


def compile_c_async(source, name="kernel", flags=()):
    """compile_c in a background thread (config.compile_threads of them; gcc runs as a subprocess, so builds overlap
    with each other and with the caller's Python work): returns a concurrent.futures.Future whose result() is the
    CDLL or raises what compile_c raises. The flags are read from the config now, not when the build runs."""
    from concurrent.futures import ThreadPoolExecutor
    if _cc.disabled():
        raise RuntimeError("ember._inductor needs a C compiler, but C building is disabled (EMBER_DISABLE_C)")
    flags = config_flags() + tuple(flags)
    cc = cc_path()
    if cc is None:
        raise RuntimeError("ember._inductor needs a C compiler: set CC or install gcc")
    with _LOCK:
        if not _POOL or _POOL[0][1] != config.compile_threads:
            _POOL[:] = [(ThreadPoolExecutor(max_workers=config.compile_threads,
                                            thread_name_prefix="ember-compile"), config.compile_threads)]
        pool = _POOL[0][0]

    return pool.submit(_compile_c_flags, source, name, flags, cc)


class PyCodeCache:
    """Generated Python modules on disk, keyed by a hash of their source (torch's PyCodeCache)."""

    modules = {}             # key -> module loaded in this process

    @staticmethod
    def key(source, extra=""):
        h = hashlib.sha256(source.encode())
        if extra:
            h.update(b"\0" + extra.encode())
        return "py" + h.hexdigest()[:30]

    @classmethod
    def write(cls, source, extra=""):
        """Write `source` to the cache (once) and return (key, path)."""
        key = cls.key(source, extra)
        d = os.path.join(cache_dir(), "py", key[2:4])
        path = os.path.join(d, key + ".py")
        if not os.path.exists(path):
            os.makedirs(d, exist_ok=True)
            tmp = f"{path}.{os.getpid()}.{threading.get_ident()}.tmp"
            with open(tmp, "w") as f:
                f.write(source)
            os.replace(tmp, path)
            counters["py_write"] += 1
        return key, path

    @classmethod
    def load(cls, source, extra=""):
        """The module made of `source`, written to the cache and imported from its file."""
        key, path = cls.write(source, extra)
        return cls.load_by_key_path(key, path)

    @classmethod
    def load_by_key_path(cls, key, path):
        mod = cls.modules.get(key)
        if mod is None:
            spec = importlib.util.spec_from_file_location(f"ember._inductor.generated.{key}", path)
            mod = importlib.util.module_from_spec(spec)
            mod.__file__ = path
            spec.loader.exec_module(mod)
            counters["py_load"] += 1
            cls.modules[key] = mod
        return mod

    @classmethod
    def cache_clear(cls):
        cls.modules.clear()


def clear_memory_caches():
    """Forget the libraries and modules loaded in this process (the disk cache stays); for tests."""
    with _LOCK:
        _LIBS.clear()
        _build._LOADED.clear()
    PyCodeCache.cache_clear()
    _VERSIONS.clear()
    counters.clear()

