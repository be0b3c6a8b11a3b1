"""Scatter and Scan kernels (scatter, scatter_add, index_put, index_add, embedding's and the pools' backwards,
cumsum, cumprod) under dynamic shapes: one size-parameterised build serves every size (the sizes are run-time
arguments of the kernels), forward and gradients equal eager at each size, and nothing recompiles."""
import pytest

import ember
import ember.nn.functional as F
from ember._dynamo.utils import counters
from ember._inductor import codecache
from ember.testing import assert_close

from ._compiled import Compiled, fresh_caches

# a failed build or lowering would run the graph as fx and still give eager's results: it must not happen here
pytestmark = pytest.mark.filterwarnings("error:ember._inductor:UserWarning")


@pytest.fixture(autouse=True)
def _fresh():
    codecache.counters.clear()
    yield from fresh_caches()


def _fallbacks(c):
    from ember._inductor.lowering import EXTERN_OPS
    out = {}
    for call in c.calls:
        g = getattr(call, "_ember_graph", None)
        if g is not None:
            out.update({k: v for k, v in g.fallbacks.items() if k not in EXTERN_OPS})
    return out


def _run_sizes(fn, make_args, sizes, grad=True):
    """fn compiled with dynamic=True, called at each size: forward (and the float inputs' gradients) equal eager;
    one frame, size-parameterised graphs only, no per-size build, no fallback. Returns the Compiled."""
    c = Compiled(fn, dynamic=True)
    for n in sizes:
        args = make_args(n)
        eager = [a.detach().clone().requires_grad_(grad and a.dtype.is_floating_point) for a in args]
        comp = [a.detach().clone().requires_grad_(grad and a.dtype.is_floating_point) for a in args]
        got, want = c(*comp), fn(*eager)
        assert_close(got, want, rtol=1e-5, atol=1e-5, equal_nan=True)
        if grad:
            got.sum().backward()
            want.sum().backward()
            for g, w in zip(comp, eager):
                if w.grad is not None:
                    assert_close(g.grad, w.grad, rtol=1e-5, atol=1e-5)
    assert counters["frames"]["ok"] == 1, dict(counters["frames"])
    assert counters["inductor"]["specialized_symbolic_graphs"] == 0
    assert counters["inductor"]["dynamic_codegen_fallback"] == 0
    assert counters["inductor"]["fx_fallback"] == 0
    assert counters["inductor"]["dynamic_graphs"] == len(c.calls) >= 1
    assert not _fallbacks(c), _fallbacks(c)
    builds = codecache.counters["c_compile"] + codecache.counters["c_disk_hit"]
    assert builds <= len(c.calls)
    return c


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_cumsum_cumprod_symbolic_sizes(dim):
    c = _run_sizes(lambda t: t.cumsum(dim) * 2 + t.cumprod(dim),
                   lambda n: (ember.rand(n, 5, n + 1) * 0.5 + 0.75,), (3, 4, 7, 2))
    src = c.source()
    assert "cumsum" in src and "cumprod" in src
    assert "zj < s" in src or f"zj < (s" in src           # the scan loop runs to a run-time size


def test_cumsum_of_integers_symbolic_sizes():
    _run_sizes(lambda t: (t.cumsum(1), t.cumprod(0)), lambda n: (ember.randint(-3, 4, (n, 2 * n)),), (3, 5, 9),
               grad=False)


def test_scan_split_over_threads_at_large_run_time_sizes():
    """The thread split of a symbolic scan is decided per call, on the run-time sizes."""
    from ember._inductor import config
    with config.patch({"cpp.threads": 2}):
        c = _run_sizes(lambda t: t.cumsum(1), lambda n: (ember.rand(n, 1000, dtype=ember.float64),),
                       (3, 2200, 5), grad=False)
    assert "ember_parallel(kernel" in c.source()


def test_scatter_and_scatter_add_symbolic_sizes():
    def make(n):
        return ember.randn(n, 4), ember.randint(0, n, (n + 3, 4)), ember.randn(n + 3, 4)
    c = _run_sizes(lambda x, i, s: x.scatter_add(0, i, s * 2) + 1, make, (3, 5, 8, 2))
    assert "scatter (accumulate)" in c.source()
    _run_sizes_fresh(lambda x, i, s: x.scatter(0, i[:2], s[:2]).exp(),
                     lambda n: (ember.randn(n, 4), ember.stack([ember.randperm(n)[:2] for _ in range(4)], 1),
                                ember.randn(n + 3, 4)), (3, 5, 8))
    _run_sizes_fresh(lambda x, i: x.scatter(1, i, 2.5) * x, lambda n: (ember.randn(2, n), ember.randint(0, n, (2, n))),
                     (3, 6, 4))


def _run_sizes_fresh(*a, **k):
    ember._dynamo.reset()
    counters.clear()
    codecache.counters.clear()
    return _run_sizes(*a, **k)


def test_index_put_and_index_add_symbolic_sizes():
    def make(n):
        return ember.randn(n, 11), ember.randint(0, n, (n + 2,)), ember.randn(n + 2, 11)
    _run_sizes(lambda x, i, v: x.index_put((i,), v, accumulate=True) * 3, make, (3, 5, 8))
    _run_sizes_fresh(lambda x, i, v: x.index_add(0, i, v, alpha=2.0).sin(), make, (4, 7, 3))
    _run_sizes_fresh(lambda x, i, v: x.index_put((i[:1],), v[0]), make, (4, 7, 3))


def test_embedding_backward_symbolic_batch():
    w = ember.randn(10, 4)
    c = _run_sizes(lambda t, i: F.embedding(i, t) * 2,
                   lambda n: (w, ember.randint(0, 10, (n, 7))), (3, 5, 8))
    assert any("scatter (accumulate)" in m.c_source for m in c.modules)


@pytest.mark.parametrize("pool", ["max", "avg"])
def test_pool_backwards_symbolic_sizes(pool):
    if pool == "max":
        def fn(t):
            return F.max_pool2d(t, 3, 2, 1)
    else:
        def fn(t):
            return F.avg_pool2d(t, 3, stride=2, padding=1, count_include_pad=False)
    c = _run_sizes(fn, lambda n: (ember.randn(n, 2, 2 * n + 1, 2 * n + 1),), (3, 4, 6))
    assert any("scatter (accumulate)" in m.c_source for m in c.modules)
