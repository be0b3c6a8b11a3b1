"""The generated C: special values and integer semantics as eager, vectorised inner loops, the fallback when
gcc fails, EMBER_LOGS=output_code."""
import os
import re
import shutil
import subprocess
import sys
import warnings
import weakref

import numpy as np
import pytest

import ember
from ember.testing import assert_close

from ._compiled import Compiled, fresh_caches

_fresh = pytest.fixture(autouse=True)(fresh_caches)

NAN, INF = float("nan"), float("inf")


def _same(fn, *args):
    c = Compiled(fn)
    got = c(*args)
    want = fn(*args)
    got = got if isinstance(got, tuple) else (got,)
    want = want if isinstance(want, tuple) else (want,)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype
        assert_close(g, w, equal_nan=True, rtol=1e-6, atol=0)
    assert sum(c.kernels()) >= 1
    return c, got, want


def test_nan_propagates_through_max_min_and_reductions():
    x = ember.tensor([[1.0, NAN, 3.0], [-INF, 2.0, INF], [0.0, -0.0, 5.0]])
    y = ember.tensor([2.0, 2.0, NAN])
    _same(lambda x, y: (ember.maximum(x, y), ember.minimum(x, y), x.amax(-1), x.amin(-1), x.argmax(-1),
                        x.argmin(-1), x.sum(-1), x.clamp(0, 2), x.relu()), x, y)


def test_inf_arithmetic_and_signed_zero():
    x = ember.tensor([0.0, -0.0, INF, -INF, 1.0, -1.0])
    c, got, want = _same(lambda x: (1.0 / x, x * 0, x - x, x.exp(), (-x).sqrt(), x.sign(), x.neg()), x)
    # -0.0 keeps its sign: 1/-0.0 is -inf in both
    assert got[0].tolist()[1] == -INF and want[0].tolist()[1] == -INF


def test_float_floor_division_and_remainder_follow_python():
    x = ember.tensor([5.5, -5.5, 5.5, -5.5, 0.0, 3.0])
    y = ember.tensor([2.0, 2.0, -2.0, -2.0, 3.0, 0.0])
    _same(lambda x, y: (ember.div(x, y, rounding_mode="floor"), ember.remainder(x, y), ember.fmod(x, y),
                        ember.div(x, y, rounding_mode="trunc")), x, y)


def test_integer_floor_division_remainder_with_negatives():
    x = ember.tensor([7, -7, 7, -7, 0, -9223372036854775807 - 1])
    y = ember.tensor([2, 2, -2, -2, 5, 3])
    _same(lambda x, y: (ember.div(x, y, rounding_mode="floor"), ember.remainder(x, y), ember.fmod(x, y),
                        ember.div(x, y, rounding_mode="trunc"), x // y), x, y)


def test_integer_overflow_wraps_like_eager():
    x = ember.tensor([2147483647, -2147483648, 100000], dtype=ember.int32)
    b = ember.tensor([100, -100, 27], dtype=ember.int8)
    big = ember.tensor([9223372036854775807, 3037000500])
    _same(lambda x, b, big: (x + 1, x * 3, x - 2, b * 3, b + 100, big + 1, big * big), x, b, big)


def test_bool_and_uint8_semantics():
    a = ember.tensor([True, False, True])
    u = ember.tensor([250, 3, 0], dtype=ember.uint8)
    _same(lambda a, u: (a + a, a * a, ~a, u + 10, u - 5, a.logical_xor(u > 1)), a, u)


def test_bf16_results_round_like_eager():
    x = (ember.randn(64) * 100).to(ember.bfloat16)
    c = Compiled(lambda x: (x * 3 + 1).to(ember.bfloat16))
    got = c(x)
    want = (x * 3 + 1)
    assert got.dtype == ember.bfloat16
    assert_close(got.float(), want.float(), rtol=1e-2, atol=1e-2)


def test_embedding_index_out_of_range_raises_index_error():
    w = ember.randn(5, 3)
    c = Compiled(lambda w, i: ember.nn.functional.embedding(i, w) + 1)
    c(w, ember.tensor([0, 4]))
    with pytest.raises(IndexError):
        c(w, ember.tensor([0, 5]))


def test_pointwise_inner_loop_is_vectorised_by_gcc():
    c = Compiled(lambda x, y: ((x * y + 1.5) * x - y).relu())
    c(ember.randn(64, 256), ember.randn(64, 256))
    src = c.source()
    gcc = shutil.which(os.environ.get("CC", "gcc"))
    if gcc is None:
        pytest.skip("no C compiler")
    from ember._cc.build import FLAGS
    flags = [f for f in FLAGS if f not in ("-shared", "-fPIC")]
    r = subprocess.run([gcc, *flags, "-fopt-info-vec-optimized", "-x", "c", "-", "-c", "-o", os.devnull],
                       input=src, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    lines = src.splitlines()
    kernel_start = next(i for i, ln in enumerate(lines) if ln.startswith("static void kernel0")) + 1
    vec_lines = [int(m.group(1)) for m in re.finditer(r"<stdin>:(\d+):\d+: optimized: loop vectorized", r.stderr)]
    assert any(ln > kernel_start for ln in vec_lines), r.stderr


def test_failed_build_falls_back_to_the_interpreter_with_a_warning(monkeypatch):
    from ember._cc import CompileError
    from ember._inductor import compile_fx as cfx

    def broken(source, name):
        raise CompileError("gcc: simulated failure")
    monkeypatch.setattr(cfx, "_compile_c", broken)
    x = ember.randn(4, 5)
    with pytest.warns(UserWarning, match="building the generated C failed"):
        out = ember.compile(lambda x: (x.sin() * 2).sum(-1))(x)
    assert_close(out, (x.sin() * 2).sum(-1))


def test_compiler_that_fails_in_a_fresh_process_falls_back(tmp_path):
    code = (
        "import warnings, ember\n"
        "from ember.testing import assert_close\n"
        "x = ember.randn(3, 4)\n"
        "with warnings.catch_warnings(record=True) as w:\n"
        "    warnings.simplefilter('always')\n"
        "    out = ember.compile(lambda x: (x * 3).exp().sum(-1))(x)\n"
        "assert_close(out, (x * 3).exp().sum(-1))\n"
        "assert any('failed' in str(m.message) for m in w), [str(m.message) for m in w]\n"
        "print('ok')\n")
    env = dict(os.environ, CC="/bin/false", EMBER_CACHE_DIR=str(tmp_path))
    src = os.path.join(os.path.dirname(__file__), "..", "..", "src")
    env["PYTHONPATH"] = os.path.abspath(src) + os.pathsep + env.get("PYTHONPATH", "")
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0 and "ok" in r.stdout, r.stderr[-3000:]


def test_output_code_log_prints_c_and_wrapper(capsys, monkeypatch):
    monkeypatch.setenv("EMBER_LOGS", "output_code")
    ember.compile(lambda x: x.cos() + 1)(ember.randn(3))
    err = capsys.readouterr().err
    assert "static void kernel0" in err and "def call(*args):" in err


def test_no_warning_on_a_successful_compile():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = ember.compile(lambda x: x.tanh() * 2)(ember.ones(3))
    assert_close(out, ember.ones(3).tanh() * 2)


def test_reductions_down_columns_use_the_column_form():
    x = ember.randn(300, 70)
    x[5, 3] = NAN
    c, got, want = _same(lambda x: (x.amax(0), x.argmax(0), x.argmin(0), x.amin(0)), x)
    assert "(columns)" in c.source()
    f = lambda x: ((x * 2).sum(0) + 1, x.mean(0))   # noqa: E731
    c = Compiled(f)
    s, m = c(x)
    assert "(columns)" in c.source()
    # a float32 column sum adds down the column in float32, as eager's numpy does: eager's bits
    es, em = f(x)
    np.testing.assert_array_equal(s.numpy(), es.numpy())
    xd = x.double()
    # (300 float32 additions of partial sums up to ~50: a few 1e-4 from the exact sum at worst, as eager's)
    assert_close(s.double(), (xd * 2).sum(0) + 1, rtol=1e-5, atol=1e-3, equal_nan=True)
    assert_close(m.double(), xd.mean(0), rtol=1e-5, atol=1e-5, equal_nan=True)


@pytest.mark.parametrize("dtype", [ember.float32, ember.float64])
@pytest.mark.parametrize("case", ["conv_bias", "middle", "last", "all", "column", "short_rows", "fused"])
def test_sums_have_eagers_bits(case, dtype):
    """Float sums follow numpy's order (eager's np.add.reduce): each contiguous run of reduced values summed
    pairwise, the runs added in order; a column added in order. A convolution's bias gradient (a sum over
    (0, 2, 3)) and a Linear's (over 0) thus have eager's bits."""
    rng = np.random.default_rng(3)
    shape, f = {
        "conv_bias": ((64, 6, 28, 28), lambda x: x.sum([0, 2, 3])),
        "middle": ((5, 3, 40, 7), lambda x: x.sum([0, 2])),
        "last": ((9, 1000), lambda x: x.sum(-1)),
        "all": ((17, 60), lambda x: x.sum()),
        "column": ((64, 120), lambda x: x.sum(0)),
        "short_rows": ((300, 5), lambda x: x.sum(1)),
        "fused": ((16, 6, 10, 10), lambda x: (x * (x > 0)).sum([0, 2, 3])),
    }[case]
    x = ember.tensor(rng.standard_normal(shape) * 10).to(dtype)
    c = Compiled(f)
    got = c(x)
    assert sum(c.kernels()) >= 1
    np.testing.assert_array_equal(got.numpy(), f(x).numpy())


def test_long_float32_row_sums_keep_float32_accuracy():
    x = ember.rand(3, 200_003) + 1000.0
    c = Compiled(lambda x: x.sum(-1))
    got = c(x)
    exact = x.double().sum(-1)
    assert_close(got.double(), exact, rtol=2e-7, atol=0)


def test_large_kernels_split_their_outer_loop_over_threads_and_fork_safely(monkeypatch):
    from ember._inductor import config
    from ember._inductor.codegen import wrapper
    monkeypatch.setattr(wrapper, "PARALLEL_MIN_WORK", 1 << 16)
    x = ember.randn(512, 300)
    with config.patch({"cpp.threads": 2}):
        c, got, want = _same(lambda x: (x * 3 - 1, (x - 1).amax(-1), x.amin(0)), x)
    assert "ember_parallel(" in c.source()
    if not hasattr(os, "fork"):
        return
    pid = os.fork()                  # a forked child (a DataLoader worker) runs the compiled code too
    if pid == 0:
        try:
            ok = all(bool((g == w).all()) for g, w in zip(c(x)[:2], want[:2]))
        finally:
            os._exit(0 if ok else 1)
    _, status = os.waitpid(pid, 0)
    assert os.WEXITSTATUS(status) == 0


def test_small_kernels_stay_on_the_calling_thread():
    c, _, _ = _same(lambda x: x * 2 + 1, ember.randn(8, 8))
    assert "ember_parallel(kernel" not in c.source()


def test_integer_division_by_zero_raises_like_eager():
    a, b = ember.tensor([4, 5]), ember.tensor([0, 1])
    for fn in (lambda a, b: a // b + 1, lambda a, b: ember.remainder(a, b) * 2, lambda a, b: ember.fmod(a, b) - 1):
        with pytest.raises(RuntimeError, match="ZeroDivisionError"):
            fn(a, b)
        c = Compiled(fn)
        with pytest.raises(RuntimeError, match="ZeroDivisionError"):
            c(a, b)
        assert_close(c(a, b + 1), fn(a, b + 1))


def test_arenas_are_reused_only_when_nothing_holds_them():
    f = ember.compile(lambda x: (x * 2 + 1).exp() * 3)
    x = ember.randn(50_000)
    held = f(x)
    held_np = held.numpy().copy()
    second = f(x + 1)                       # `held` is alive: its storage must not be written again
    np.testing.assert_array_equal(held.numpy(), held_np)
    assert_close(second, ((x + 1) * 2 + 1).exp() * 3)
    base = weakref.ref(second.numpy().base)
    del held, second
    third = f(x)
    assert third.numpy().base is base()     # released: the arena of the last call is reused
    assert_close(third, (x * 2 + 1).exp() * 3)
    view = third[10:20]
    del third
    fourth = f(x - 1)                       # a view keeps the arena alive too
    assert_close(view, ((x * 2 + 1).exp() * 3)[10:20])
    assert_close(fourth, ((x - 1) * 2 + 1).exp() * 3)


def test_arenas_start_at_64_byte_boundaries():
    # every arena (and so every slot of the memory plan, laid out at multiples of 64 bytes) starts at a
    # cache-line boundary in every process, whatever malloc returned
    f = ember.compile(lambda x, y: ((x * 2 + 1).exp(), (y - 1).sin(), x[:3] * 5))
    for n in (1000, 20_000, 70_001):
        x, y = ember.randn(n), ember.randn(n + 5)
        outs = f(x, y)
        for t in outs:
            assert t.numpy().ctypes.data % 64 == 0
        assert_close(outs[1], (y - 1).sin())
        assert_close(outs[2], x[:3] * 5)


def test_parallel_kernels_run_on_embers_c_pool(monkeypatch):
    """A kernel split over threads shares its outer loop out over ember's C pool (csrc/parallel.c, bound at load),
    not over threads created per call: the pool counts the job; the result is the one-thread result."""
    from ember._inductor import config
    from ember._inductor.codegen import wrapper
    from ember.kernels.cpu.runtime.flat import pool_stats
    if pool_stats() is None:
        pytest.skip("ember's C pool is not available")
    monkeypatch.setattr(wrapper, "PARALLEL_MIN_WORK", 1 << 12)
    x = ember.randn(64, 300)
    f = lambda x: (x * 3 - 1).sin().sum(-1)       # noqa: E731
    old = ember.get_num_threads()
    ember.set_num_threads(2)
    try:
        with config.patch({"cpp.threads": 2}):
            c = Compiled(f)
            pool_stats(reset=True)
            got = c(x)
            stats = pool_stats()
        with config.patch({"cpp.threads": 1}):
            one = Compiled(f)(x)
    finally:
        ember.set_num_threads(old)
    assert "ember_parallel(" in c.source()
    assert stats["jobs"] + stats["busy"] >= 1
    np.testing.assert_array_equal(got.numpy(), one.numpy())


def test_short_contiguous_rows_merge_into_one_loop():
    """A pointwise kernel over (4, 6, 28, 28) whose loads and stores walk the last two dims contiguously runs them
    as one 784-long loop (a 28-long loop with a bool store never reached a vector iteration); a transposed read or
    an index used as a value keeps the nest. Values as eager's either way."""
    x = ember.randn(4, 6, 28, 28)
    f = lambda t: (t.relu(), t > 0)          # noqa: E731
    c, got, want = _same(f, x)
    src = c.source()
    assert "x2 < 784" in src and "x3 < 28" not in src
    np.testing.assert_array_equal(got[1].numpy(), want[1].numpy())
    g = lambda t: (t.transpose(2, 3) * 2).relu()      # noqa: E731
    c, _, _ = _same(g, x)
    assert "x3 < 28" in c.source()
    h = lambda t: t + ember.arange(28.0)      # noqa: E731
    c, _, _ = _same(h, x)
    assert "x3 < 28" in c.source()


@pytest.mark.parametrize("dtype", [ember.float32, ember.float64])
def test_long_row_sums_in_split_kernels_fit_the_pool_workers_stack(dtype, monkeypatch):
    """Rows of 16384 summed in a kernel split over ember's C pool (whose workers have 64 KB stacks): too long for
    a numpy-order run array (NUMPY_RUN_BYTES), they take the blocked sum; a short row keeps numpy's order."""
    from ember._inductor import config
    from ember._inductor.codegen import wrapper
    monkeypatch.setattr(wrapper, "PARALLEL_MIN_WORK", 1 << 12)
    x = (ember.randn(16, 16384) + 1).to(dtype)
    y = ember.randn(64, 500).to(dtype)
    f = lambda x, y: ((x * 2).sum(-1), (y * 2).sum(-1), (x - 1).sum(-1))     # noqa: E731
    old = ember.get_num_threads()
    ember.set_num_threads(2)
    try:
        with config.patch({"cpp.threads": 2}):
            c = Compiled(f)
            got = c(x, y)
    finally:
        ember.set_num_threads(old)
    want = f(x, y)
    assert "ember_parallel(" in c.source()
    np.testing.assert_array_equal(got[1].numpy(), want[1].numpy())
    for g, w in ((got[0], want[0]), (got[2], want[2])):
        assert_close(g.double(), w.double(), rtol=1e-5, atol=0)
