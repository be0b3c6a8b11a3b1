"""ember._inductor.codecache (torch._inductor.codecache): compile_c builds through ember._cc into the shared disk
cache keyed by source, flags, compiler version and cpu; a second process finds the library without running the
compiler; concurrent processes building the same new source both get a working library; a failed build raises
CompileError with the compiler's output and leaves nothing behind; EMBER_CACHE_DIR moves the cache; PyCodeCache
keeps generated Python in files so tracebacks show their lines."""
import ctypes
import json
import os
import subprocess
import sys
import time
import traceback
import uuid

import pytest

from ember import _cc
from ember._cc.build import CompileError
from ember._inductor import codecache, config

pytestmark = pytest.mark.skipif(not _cc.available(), reason="needs a C compiler")

SRC = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "src")


def _source(tag, body="return a * b + 1;"):
    return f"/* {tag} */\n#include <stdint.h>\nint64_t mul_add(int64_t a, int64_t b) {{ {body} }}\n"


def _call(lib):
    fn = lib.mul_add
    fn.argtypes, fn.restype = [ctypes.c_int64, ctypes.c_int64], ctypes.c_int64
    return fn(6, 7)


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("EMBER_CACHE_DIR", str(tmp_path))
    codecache.counters.clear()
    return tmp_path


def test_compile_load_and_memory_hit(cache):
    src = _source(uuid.uuid4().hex)
    lib = codecache.compile_c(src, "muladd")
    assert _call(lib) == 43
    assert codecache.counters["c_compile"] == 1
    assert codecache.compile_c(src, "muladd") is lib
    assert codecache.counters["c_memory_hit"] == 1 and codecache.counters["c_compile"] == 1
    path = codecache.library_path(src, "muladd")
    assert os.path.exists(path) and path.startswith(str(cache))        # EMBER_CACHE_DIR respected
    assert os.path.dirname(path) == _cc.cache_dir()                     # the same directory as ember._cc's


def test_key_depends_on_flags_compiler_version_and_cpu(cache, monkeypatch):
    src = _source("key")
    k = codecache.c_key(src)
    assert codecache.c_key(src, ("-DX=1",)) != k
    assert codecache.c_key(src + " ") != k
    cc = codecache.cc_path()
    with monkeypatch.context() as m:
        m.setitem(codecache._VERSIONS, cc, "gcc (other) 99.1")
        assert codecache.c_key(src) != k
    assert codecache.c_key(src) == k
    with monkeypatch.context() as m:
        m.setattr(codecache._build, "_cpu_tag", lambda: "model name: other\nflags: sse2")
        assert codecache.c_key(src) != k
    assert codecache.compiler_version(cc).splitlines()[0]          # `cc --version` read (once per process)


_CHILD = r"""
import json, os, sys, time
sys.path.insert(0, {src!r})
from ember._inductor import codecache
go = {go!r}
if go:
    open(go + "." + str(os.getpid()), "w").close()
    while not os.path.exists(go):
        time.sleep(0.005)
lib = codecache.compile_c({source!r}, "muladd")
fn = lib.mul_add
import ctypes
fn.argtypes, fn.restype = [ctypes.c_int64, ctypes.c_int64], ctypes.c_int64
print(json.dumps({{"value": fn(6, 7), "counters": dict(codecache.counters)}}))
"""


def _child(source, go=""):
    code = _CHILD.format(src=SRC, go=go, source=source)
    return subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=dict(os.environ))


def _result(p):
    out, err = p.communicate(timeout=240)
    assert p.returncode == 0, err
    return json.loads(out.strip().splitlines()[-1])


def test_second_process_hits_the_disk_cache(cache):
    src = _source(uuid.uuid4().hex)
    first = _result(_child(src))
    assert first == {"value": 43, "counters": {"c_compile": 1}}
    second = _result(_child(src))
    assert second == {"value": 43, "counters": {"c_disk_hit": 1}}       # the compiler did not run


def test_concurrent_processes_build_the_same_source(cache):
    src = _source(uuid.uuid4().hex, body="int64_t s = 0; for (int64_t i = 0; i < b; i++) s += a; return s + 1;")
    go = str(cache / "go")
    procs = [_child(src, go) for _ in range(2)]
    deadline = time.time() + 120
    while sum(f.startswith("go.") for f in os.listdir(cache)) < 2 and time.time() < deadline:
        time.sleep(0.01)
    open(go, "w").close()                                                # release both at once
    results = [_result(p) for p in procs]
    assert [r["value"] for r in results] == [43, 43]
    assert all(sum(r["counters"].values()) == 1 for r in results)
    libs = [f for f in os.listdir(_cc.cache_dir()) if f.endswith(".so")]
    assert libs == [os.path.basename(codecache.library_path(src, "muladd"))]    # no temporary left over
    assert _call(codecache.compile_c(src, "muladd")) == 43


def test_failed_build_raises_with_output_and_leaves_nothing(cache):
    src = _source(uuid.uuid4().hex, body="return undefined_name_xyz;")
    with pytest.raises(CompileError) as ei:
        codecache.compile_c(src, "broken")
    assert "undefined_name_xyz" in str(ei.value) and "error" in str(ei.value)
    d = _cc.cache_dir()
    assert [f for f in os.listdir(d) if "broken" in f or f.startswith(".build-")] == []
    assert codecache.counters["c_compile"] == 0


def test_disabled_and_missing_compiler(cache, monkeypatch):
    with config.patch("cpp.cxx", (None, "no-such-compiler-xyz")):
        with pytest.raises(RuntimeError, match="no-such-compiler-xyz"):
            codecache.compile_c(_source("x"))
    monkeypatch.setenv("EMBER_DISABLE_C", "1")
    with pytest.raises(RuntimeError, match="EMBER_DISABLE_C"):
        codecache.compile_c(_source("y"))


def test_py_code_cache_writes_a_file_tracebacks_show(cache):
    source = "def boom(x):\n    y = x + 1\n    raise ValueError('generated line 3')\n"
    mod = codecache.PyCodeCache.load(source)
    key, path = codecache.PyCodeCache.write(source)
    assert mod.__file__ == path and path.startswith(str(cache)) and open(path).read() == source
    assert codecache.PyCodeCache.load(source) is mod
    with pytest.raises(ValueError) as ei:
        mod.boom(1)
    frames = traceback.extract_tb(ei.value.__traceback__)
    assert frames[-1].filename == path and frames[-1].lineno == 3
    assert frames[-1].line == "raise ValueError('generated line 3')"
    assert codecache.PyCodeCache.key(source) != codecache.PyCodeCache.key(source, extra="other")


def test_simdlen_selects_flags_and_key(cache):
    src = _source(uuid.uuid4().hex, body="int64_t s = 0; for (int64_t i = 0; i < b; i++) s += a * i; return s;")
    base = codecache.c_key(src)
    with config.patch("cpp.simdlen", 1):
        assert codecache.config_flags() == codecache.GENERATED_FLAGS + ("-fno-tree-vectorize",)
        assert codecache.c_key(src) != base
        lib = codecache.compile_c(src, "scalar")
        assert os.path.basename(codecache.library_path(src, "scalar")) in os.listdir(_cc.cache_dir())
    fn = lib.mul_add
    fn.argtypes, fn.restype = [ctypes.c_int64, ctypes.c_int64], ctypes.c_int64
    assert fn(2, 4) == 2 * (0 + 1 + 2 + 3)
    with config.patch("cpp.simdlen", 3):
        with pytest.raises(RuntimeError, match="simdlen=3 is not supported"):
            codecache.compile_c(src, "bad")


_SELECT_LOOP = """#include <stdint.h>
static inline float min_nan(float a, float b) { return (a != a) ? a : ((b != b) ? b : (a < b ? a : b)); }
void relu_min(const float* restrict x, float* restrict y, int64_t n) {
    #pragma omp simd
    for (int64_t i = 0; i < n; i++) {
        float r = x[i] < 0 ? 0 : x[i];
        y[i] = min_nan(r * r, 4.0f);
    }
}
"""


def test_generated_flags_vectorise_compare_selects(cache):
    """relu and a NaN-propagating min written as selects: with GENERATED_FLAGS gcc vectorises the loop (without
    -fno-trapping-math it reports "control flow in loop" and runs it scalar, branching on the data). The negative
    case is checked for AVX2 (x86-64-v3): with AVX-512's masked loads gcc vectorises the loop even with trapping
    math, so on such a CPU the flag makes no difference."""
    report = codecache.vectorization_report(_SELECT_LOOP)
    assert any("loop vectorized" in msg for _, msg in report), report
    avx2 = ("-march=x86-64-v3",)
    report = codecache.vectorization_report(_SELECT_LOOP, avx2)
    assert any("loop vectorized" in msg for _, msg in report), report
    assert codecache.vectorization_report(_SELECT_LOOP, avx2 + ("-ftrapping-math",)) == []    # the flag does it
    lib = codecache.compile_c(_SELECT_LOOP, "relu_min")
    fn = lib.relu_min
    fn.argtypes, fn.restype = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64], None
    import numpy as np
    x = np.array([-1.0, -0.0, 0.5, 3.0, np.nan, np.inf, -np.inf, 1.0], np.float32)
    y = np.empty_like(x)
    fn(x.ctypes.data, y.ctypes.data, len(x))
    np.testing.assert_array_equal(y, [0.0, 0.0, 0.25, 4.0, np.nan, 4.0, 0.0, 1.0])    # IEEE semantics kept


_RENDEZVOUS_CC = """#!/bin/sh
# a compiler that waits (up to 60 s) until two builds have started, then runs gcc: it only finishes both builds
# promptly when they run at the same time
case " $* " in *" --version "*|*" -E "*) exec gcc "$@";; esac
echo $$ >> "{log}.start"
i=0
while [ "$(wc -l < "{log}.start")" -lt 2 ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i+1)); done
wc -l < "{log}.start" >> "{log}.seen"
exec gcc "$@"
"""


def test_async_builds_run_in_parallel_and_share_keys(cache, tmp_path):
    log = tmp_path / "cc"
    script = tmp_path / "rendezvous-cc"
    script.write_text(_RENDEZVOUS_CC.format(log=log))
    script.chmod(0o755)
    a, b = _source(uuid.uuid4().hex), _source(uuid.uuid4().hex, body="return a - b;")
    with config.patch({"cpp.cxx": (None, str(script)), "compile_threads": 2}):
        fa = codecache.compile_c_async(a, "async_a")
        fb = codecache.compile_c_async(b, "async_b")
        fa2 = codecache.compile_c_async(a, "async_a")              # the same source: built once
        la, lb, la2 = fa.result(timeout=300), fb.result(timeout=300), fa2.result(timeout=300)
    assert _call(la) == 43 and la2 is la
    fn = lb.mul_add
    fn.argtypes, fn.restype = [ctypes.c_int64, ctypes.c_int64], ctypes.c_int64
    assert fn(6, 7) == -1
    assert sorted(int(x) for x in (tmp_path / "cc.seen").read_text().split()) == [2, 2]   # both saw each other
    assert codecache.counters["c_compile"] == 2


def test_async_build_failure_is_raised_by_result(cache):
    fut = codecache.compile_c_async(_source(uuid.uuid4().hex, body="return nope;"), "broken_async")
    with pytest.raises(CompileError, match="nope"):
        fut.result(timeout=300)
