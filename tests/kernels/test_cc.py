"""ember._cc builds C at run time: compile once into the cache, reuse it, fail cleanly."""
import ctypes
import os
import subprocess
import sys

import numpy as np
import pytest

from ember import _cc
from ember.kernels.cpu.runtime import clib

pytestmark = pytest.mark.skipif(_cc.compiler() is None, reason="no C compiler on this machine")


@pytest.fixture(autouse=True)
def _c_enabled(monkeypatch):
    """These tests exercise the build itself, so they run even when the suite runs with EMBER_DISABLE_C=1."""
    monkeypatch.delenv("EMBER_DISABLE_C", raising=False)

SRC = """
#include <stdint.h>
void axpy(double a, const double *x, double *y, int64_t n) {
    #pragma omp simd
    for (int64_t i = 0; i < n; i++) y[i] += a * x[i];
}
"""


def test_load_compiles_and_runs(tmp_path, monkeypatch):
    monkeypatch.setenv("EMBER_CACHE_DIR", str(tmp_path))
    lib = _cc.load(SRC, "axpy_test")
    f = _cc.function(lib, "axpy", "dppl")
    x = np.arange(5.0)
    y = np.ones(5)
    f(2.0, x.ctypes.data, y.ctypes.data, 5)
    np.testing.assert_array_equal(y, 1 + 2 * np.arange(5.0))
    files = sorted(os.listdir(os.path.join(tmp_path, "c")))
    key = files[1][len("axpy_test-"):-len(".so")]
    assert files == [f"axpy_test-{key}.protos.json", f"axpy_test-{key}.so"]


def test_cache_is_reused_by_a_new_process(tmp_path):
    src = os.path.dirname(os.path.dirname(os.path.dirname(_cc.__file__)))   # the ember under test
    env = dict(os.environ, EMBER_CACHE_DIR=str(tmp_path), PYTHONPATH=src)
    code = ("import sys; from ember import _cc; lib = _cc.load(sys.argv[1], 'reuse'); "
            "print(_cc.function(lib, 'axpy', 'dppl') is not None)")
    r1 = subprocess.run([sys.executable, "-c", code, SRC], env=env, capture_output=True, text=True)
    assert r1.returncode == 0, r1.stderr
    # the second process loads the cached library instead of rebuilding it: the file is untouched
    so = [os.path.join(tmp_path, "c", f) for f in os.listdir(os.path.join(tmp_path, "c")) if f.endswith(".so")]
    assert len(so) == 1
    before = os.stat(so[0]).st_mtime_ns
    r2 = subprocess.run([sys.executable, "-c", code, SRC], env=env, capture_output=True, text=True)
    assert r2.returncode == 0, r2.stderr
    assert os.stat(so[0]).st_mtime_ns == before
    assert len(os.listdir(os.path.join(tmp_path, "c"))) == 2         # the library and its prototypes


def test_compile_error_names_the_problem_and_leaves_nothing(tmp_path, monkeypatch):
    monkeypatch.setenv("EMBER_CACHE_DIR", str(tmp_path))
    with pytest.raises(_cc.CompileError, match="undeclared|error"):
        _cc.load("void f(void) { return undeclared_name; }", "broken")
    d = os.path.join(tmp_path, "c")
    assert os.listdir(d) == []


def test_disabled_by_environment(monkeypatch):
    monkeypatch.setenv("EMBER_DISABLE_C", "1")
    assert not _cc.available()
    with pytest.raises(RuntimeError, match="disabled"):
        _cc.load(SRC, "x")


def test_source_inlines_local_headers(tmp_path, monkeypatch):
    monkeypatch.setattr(clib, "_DIR", str(tmp_path))
    (tmp_path / "h.h").write_text("#define TWO 2\n")
    (tmp_path / "k.c").write_text('#include "h.h"\nint two(void) { return TWO; }\n')
    src = clib.source("k")
    assert "#define TWO 2" in src and '#include "h.h"' not in src


def test_use_c_switches_kernels_off_and_back():
    before = clib.enabled()
    with clib.use_c(False):
        assert clib.kernel("anything", "f", "p") is None
        assert not clib.enabled()
    assert clib.enabled() == before


def test_same_function_with_two_signatures_stays_distinct(tmp_path, monkeypatch):
    monkeypatch.setenv("EMBER_CACHE_DIR", str(tmp_path))
    lib = _cc.load("long long ident(long long x) { return x; }", "ident")
    as_int = _cc.function(lib, "ident", "l", "l")
    as_void = _cc.function(lib, "ident", "l")
    assert as_int(7) == 7 and as_void(7) is None


PROTO_SRC = """
#include <stdint.h>
#include <stddef.h>
#define TWICE(T, NAME) int64_t NAME(const T *x, T *restrict y, int64_t n, int flag) { return n + flag; }
TWICE(float, twice_f32)
TWICE(double, twice_f64)
static void hidden(double *x) { x[0] = 1; }
void scale(double a, float b, size_t n, double *out) { hidden(out); out[0] = a * b * (double)n; }
void nothing(void) { }
"""


def test_prototypes_are_read_after_the_preprocessor():
    from ember._cc import protos as _cc_protos
    protos = _cc_protos.parse(_cc_protos.preprocess(_cc.compiler(), PROTO_SRC))
    assert protos == {"twice_f32": ("l", "ppli"), "twice_f64": ("l", "ppli"), "scale": ("", "dflp"),
                      "nothing": ("", "")}


def test_a_signature_that_does_not_match_the_c_definition_raises(tmp_path, monkeypatch):
    monkeypatch.setenv("EMBER_CACHE_DIR", str(tmp_path))
    lib = _cc.load(PROTO_SRC, "protos_test")
    f = _cc.function(lib, "twice_f64", "ppli", "l")
    assert f(0, 0, 40, 2) == 42
    assert _cc.function(lib, "twice_f64", "ppli") is not None        # the result may be ignored
    for sig, res in (("ppl", "l"), ("pplil", "l"), ("ppll", "l"), ("ppli", "i"), ("pppi", "l")):
        with pytest.raises(TypeError, match="twice_f64 is defined as \\(ppli\\) -> l"):
            _cc.function(lib, "twice_f64", sig, res)
    with pytest.raises(TypeError, match="scale"):
        _cc.function(lib, "scale", "ddlp")


def test_every_kernel_signature_matches_its_c_definition():
    """Each exported function of csrc/ has a known prototype, so clib's signature check covers it."""
    import subprocess as sp
    for f in sorted(os.listdir(clib._DIR)):
        if f.endswith(".c") and f[:-2] not in clib.EXTENSIONS:    # (CPython extensions: no ctypes functions)
            lib = clib.library(f[:-2])
            if lib is None:
                continue
            out = sp.run(["nm", "-D", "--defined-only", lib._name], capture_output=True, text=True).stdout
            exported = {ln.split()[-1] for ln in out.splitlines() if " T " in ln}
            if out:
                assert exported == set(lib._ember_protos), f


def test_first_build_prints_one_message_per_process_and_none_on_a_cache_hit(tmp_path):
    """A fresh process that compiles two sources prints the message once; a later process that finds
    both libraries in the cache prints nothing."""
    src = os.path.dirname(os.path.dirname(os.path.dirname(_cc.__file__)))
    env = dict(os.environ, EMBER_CACHE_DIR=str(tmp_path), PYTHONPATH=src)
    env.pop("EMBER_DISABLE_C", None)
    code = ("import sys; from ember import _cc; _cc.load(sys.argv[1], 'first'); "
            "_cc.load(sys.argv[1] + '\\nint one(void) { return 1; }\\n', 'second')")
    r1 = subprocess.run([sys.executable, "-c", code, SRC], env=env, capture_output=True, text=True)
    assert r1.returncode == 0, r1.stderr
    assert r1.stderr.count(_cc.BUILD_MESSAGE) == 1
    assert _cc.BUILD_MESSAGE == "ember: building CPU kernels (first run only)..."
    assert len([f for f in os.listdir(os.path.join(tmp_path, "c")) if f.endswith(".so")]) == 2
    r2 = subprocess.run([sys.executable, "-c", code, SRC], env=env, capture_output=True, text=True)
    assert r2.returncode == 0, r2.stderr
    assert _cc.BUILD_MESSAGE not in r2.stderr
