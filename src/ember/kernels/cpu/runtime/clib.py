"""Loading the cpu kernels written in C (ATen's native/cpu kernels have no run-time build; this is
ember's): `kernels/cpu/csrc/<name>.c`, built on first use by `ember._cc`.

A kernel module asks for a function with `kernel("softmax", "softmax_rows_f32", "ppll")` and gets a
ctypes function, or None when C is unavailable (no compiler, EMBER_DISABLE_C=1, or the build failed,
which warns once). Every caller keeps its numpy path for None, so ember runs without a compiler and
tests can compare both paths (`use_c(False)` switches the C kernels off in this process).
`c_suffix` says whether arrays suit the C row kernels and `c_rows` calls one over chunks of rows (on the
calling thread below `min_elems`, else shared out over the pool).

Writing a C kernel that vectorises (check with gcc's `-fopt-info-vec`):
- a select (`x > a ? a : x`) stays a branch under the default `-ftrapping-math`, so sources with such
  loops start with `#pragma GCC optimize ("no-trapping-math")` (values, NaN and inf are unchanged; only
  FP exception flags, which ember never reads, may differ);
- a run-time flag tested inside the loop can cost 20x, so loops over options are specialised with the
  flags as compile-time constants (csrc/adam.c);
- libm's exp does not vectorise without fast-math, so csrc/vmath.h (softmax, norms) and
  csrc/gelu_math.h (GELU) carry vectorisable exps of their own; they are near twins and could become
  one header.
"""
import ctypes
import os
import threading
import warnings

import numpy as np

from .... import _cc
from .pool import split_run

_DIR = os.path.join(os.path.dirname(os.path.dirname(__file__)), "csrc")
_LIBS = {}
_FUNCS = {}
_LOCK = threading.Lock()
_ENABLED = [None]       # None: decide from ember._cc.available() on first use


def enabled():
    if _ENABLED[0] is None:
        _ENABLED[0] = _cc.available()
    return _ENABLED[0]


class use_c:
    """use_c(False) turns the C kernels off (True back on) for this process; also a context manager
    that restores the previous setting on exit."""

    def __init__(self, on):
        self._prev = enabled()
        _ENABLED[0] = bool(on) and _cc.available()
        _FUNCS.clear()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        _ENABLED[0] = self._prev
        _FUNCS.clear()


# csrc/ sources that are CPython extension modules, built and imported by their own loader (runtime/flat.py's
# _fast_entry for parallel_call), not ctypes libraries: library() returns None for them
EXTENSIONS = frozenset(("parallel_call",))


def library(name):
    """The loaded library of csrc/<name>.c, or None (warns once when the build fails)."""
    if name in EXTENSIONS:
        return None
    lib = _LIBS.get(name)
    if lib is None and name not in _LIBS:
        with _LOCK:
            if name not in _LIBS:
                try:
                    lib = _cc.load(source(name), name)
                except (OSError, RuntimeError) as e:
                    warnings.warn(f"ember: C kernels '{name}' unavailable, using numpy: {e}", RuntimeWarning)
                    lib = None
                _LIBS[name] = lib
            lib = _LIBS[name]
    return lib


def source(name):
    """The text of csrc/<name>.c with its local `#include "x.h"` lines replaced by csrc/x.h, so the
    build cache key covers the headers too."""
    out = []
    with open(os.path.join(_DIR, name + ".c")) as f:
        for line in f:
            s = line.strip()
            if s.startswith('#include "') and s.endswith('"'):
                with open(os.path.join(_DIR, s[10:-1])) as h:
                    out.append(h.read())
                out.append("\n")
            else:
                out.append(line)
    return "".join(out)


def kernel(name, fname, sig, restype=None):
    """The C function fname of csrc/<name>.c with argument types `sig` (see ember._cc.function), or
    None when C kernels are off or unavailable."""
    key = (name, fname, sig, restype)
    fn = _FUNCS.get(key)
    if fn is None:
        if not enabled():
            return None
        lib = library(name)
        if lib is None:
            return None
        fn = _FUNCS[key] = _cc.function(lib, fname, sig, restype)
    return fn


def _address_reader():
    """(address, the data field's offset or None). address(a): the data pointer of ndarray `a`, as `a.ctypes.data` gives it but about 7x cheaper (that
    property builds a ctypes helper object per call, ~1.5 us, which a small kernel call pays once per
    array). It reads the `data` field of numpy's PyArrayObject, which follows the object header; the
    offset is checked against `ctypes.data` on probe arrays here, and any mismatch (an unusual build)
    keeps the property."""
    at = ctypes.c_void_p.from_address
    off = object.__basicsize__                         # the PyObject header: refcount and type
    probes = [np.empty((3, 5), np.float32), np.arange(12.0)[3:], np.empty(0)]

    nd = np.ndarray

    def address(a):
        return at(id(a) + off).value if a.__class__ is nd else a.ctypes.data

    try:
        if all(address(p) == p.ctypes.data for p in probes if p.size):
            return address, off
    except (OSError, ValueError):        # pragma: no cover - a build whose header layout differs
        pass
    return (lambda a: a.ctypes.data), None  # pragma: no cover


# DATA_OFFSET: where an ndarray's data pointer sits in its object (checked above), or None; C code given it
# reads the pointer itself (runtime/flat.py's CPython entry of the pool)
address, DATA_OFFSET = _address_reader()


_C_TYPES = {np.dtype(np.float32): "f32", np.dtype(np.float64): "f64"}   # by dtype: dtype.name costs ~3 us


def c_suffix(*arrays):
    """'f32' / 'f64' when every array is C-contiguous of that one dtype (what the C row kernels
    take), else None (the caller keeps its numpy path)."""
    dt = arrays[0].dtype
    if any(a.dtype != dt or not a.flags.c_contiguous for a in arrays):
        return None
    return _C_TYPES.get(dt)


def c_rows(fn, arrays, *args, min_elems=1 << 16):
    """The C row kernel fn(pointers of `arrays`..., nrows, *args) over chunks of rows shared out over
    the thread pool, one foreign call per chunk (ctypes releases the GIL during the call). Every array
    is C-contiguous with the same number of rows (dim 0)."""
    if arrays[0].size < min_elems:      # split_run's inline case, without the call into the pool
        fn(*map(address, arrays), arrays[0].shape[0], *args)
        return

    def chunk(*arrs):
        fn(*map(address, arrs), arrs[0].shape[0], *args)
    split_run(chunk, arrays, 0, min_elems)
