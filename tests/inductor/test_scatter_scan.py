"""Lowerings with stores at computed positions (scatter, scatter_add, index_put, index_add, the max/avg pool
backwards, embedding's backward) and prefix scans (cumsum, cumprod): generated C, no extern call, forward and
gradients equal to eager; plus gathers (gather, index_select) and the random-op decision (extern calls on eager's
generator stream)."""
import numpy as np
import pytest

import ember
import ember.nn.functional as F
from ember._inductor.codegen import wrapper
from ember.testing import assert_close

from ._compiled import Compiled, fresh_caches

_fresh = pytest.fixture(autouse=True)(fresh_caches)


def _fallbacks(c):
    out = {}
    for call in c.calls:
        g = getattr(call, "_ember_graph", None)
        if g is not None:
            out.update(g.fallbacks)
    return out


def _check_fwd_bwd(fn, *args, no_fallback=True, rtol=1e-5):
    """Compiled forward and the gradients of the float inputs equal eager's; nothing but externs by design."""
    eager_args = [a.detach().clone().requires_grad_(a.dtype.is_floating_point) for a in args]
    comp_args = [a.detach().clone().requires_grad_(a.dtype.is_floating_point) for a in args]
    c = Compiled(fn)
    got = c(*comp_args)
    want = fn(*eager_args)
    assert_close(got, want, rtol=rtol, atol=1e-6, equal_nan=True)
    got.sum().backward()
    want.sum().backward()
    for g, w in zip(comp_args, eager_args):
        if w.grad is not None:
            assert_close(g.grad, w.grad, rtol=rtol, atol=1e-6)
    if no_fallback:
        from ember._inductor.lowering import EXTERN_OPS
        assert not {k for k in _fallbacks(c) if k not in EXTERN_OPS}, _fallbacks(c)
    return c


def test_scatter_src_value_and_add():
    x, src = ember.randn(4, 5), ember.randn(3, 5)
    idx = ember.tensor([[0, 1, 2, 3, 0], [3, 2, 1, 0, 1], [1, 1, 1, 1, 1]])
    c = _check_fwd_bwd(lambda t, s: t.scatter_add(0, idx, s) * 2, x, src)
    assert "scatter (accumulate)" in c.source()
    _check_fwd_bwd(lambda t, s: t.scatter(1, idx[:, :3], s[:, :3]) + 1, x[:3], src)
    _check_fwd_bwd(lambda t: t.scatter(1, idx[:, :2], 2.5).exp(), x[:3])


def test_duplicate_positions_accumulate_and_last_write_wins():
    x = ember.zeros(5)
    idx = ember.tensor([1, 1, 1, 3])
    v = ember.tensor([1.0, 2.0, 4.0, 8.0])
    c = Compiled(lambda t, v: (t.index_put((idx,), v, accumulate=True), t.index_put((idx,), v)))
    acc, last = c(x, v)
    assert acc.tolist() == [0.0, 7.0, 0.0, 8.0, 0.0]
    assert last.tolist() == [0.0, 4.0, 0.0, 8.0, 0.0]          # eager's: the last of duplicate positions
    assert not _fallbacks(c)


def test_index_put_broadcast_indices_and_rows():
    x = ember.randn(6, 4, 3)
    rows, cols = ember.tensor([[0], [5]]), ember.tensor([1, 3, 2])
    _check_fwd_bwd(lambda t, v: t.index_put((rows, cols), v, accumulate=True) * 3, x, ember.randn(2, 3, 3))
    _check_fwd_bwd(lambda t, v: t.index_put((ember.tensor([4, 0]),), v).sin(), x, ember.randn(3))


def test_index_add_and_gathers():
    x, src = ember.randn(5, 4), ember.randn(5, 3)
    idx = ember.tensor([0, 3, 0])
    _check_fwd_bwd(lambda t, s: t.index_add(1, idx, s, alpha=2.0), x, src)
    _check_fwd_bwd(lambda t: t.index_select(1, idx).tanh(), x)
    g = ember.tensor([[0, 0, 3], [1, 2, 2], [3, 3, 0], [0, 1, 2], [2, 2, 2]])
    _check_fwd_bwd(lambda t: t.gather(1, g) * 2, x)


def test_index_out_of_range_raises_like_eager():
    x = ember.randn(4, 3)
    bad = ember.tensor([0, 7])
    with pytest.raises(IndexError):
        x.index_put((bad,), ember.randn(3))
    c = Compiled(lambda t, v: t.index_put((bad,), v))
    with pytest.raises(IndexError):
        c(x, ember.randn(3))


@pytest.mark.parametrize("padding_idx", [None, 1])
def test_embedding_backward(padding_idx):
    w = ember.randn(10, 4)
    idx = ember.tensor([[1, 2, 1], [9, 0, 1]])
    _check_fwd_bwd(lambda t: F.embedding(idx, t, padding_idx=padding_idx) * 2, w)


@pytest.mark.parametrize("args", [(2,), (3, 2, 1), (3, 1, 0, 2)], ids=["k2", "k3s2p1", "dilated"])
def test_max_pool2d_backward(args, monkeypatch):
    from ember._inductor import lowering
    monkeypatch.setattr(lowering, "MAX_POOL_IN_C", False)     # the lowering (else a call to eager's pool.c)
    x = ember.randn(2, 3, 9, 9)
    c = _check_fwd_bwd(lambda t: F.max_pool2d(t, *args[:3], dilation=args[3] if len(args) > 3 else 1), x)
    assert "scatter (accumulate)" in c.source()


@pytest.mark.parametrize("kw", [dict(kernel_size=2), dict(kernel_size=3, stride=2, padding=1),
                                dict(kernel_size=3, stride=2, padding=1, count_include_pad=False),
                                dict(kernel_size=3, stride=1, padding=1, divisor_override=5),
                                dict(kernel_size=(3, 2), stride=(1, 2), ceil_mode=True)])
def test_avg_pool2d_backward(kw):
    _check_fwd_bwd(lambda t: F.avg_pool2d(t, **kw), ember.randn(2, 2, 7, 8))


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_cumsum_cumprod(dim):
    x = ember.randn(4, 5, 6) * 0.5 + 1
    # float32: cumprod's backward (a reversed cumsum of products over the output) is summed in another order by
    # the fused kernel than by eager's numpy calls, a few ulps apart (1.05e-5 relative was seen on one draw)
    c = _check_fwd_bwd(lambda t: t.cumsum(dim) * 2 + t.cumprod(dim), x, rtol=1e-4)
    assert "cumsum" in c.source() and "cumprod" in c.source()


@pytest.mark.parametrize("shape,dim", [((3, 1100, 700), 1), ((2100, 1000), 1), ((2100, 1000), 0),
                                       ((1, 1, 2_100_000), 2), ((7, 5), 0)])
def test_scans_split_their_non_scan_dims_over_threads(shape, dim):
    """A scan's first loop over a non-scan dim runs over [x0_lo, x0_hi): a scan of 2M+ elements with a
    non-scan dim is split over threads; results equal eager's (float64 inputs: no summation-order slack)."""
    from ember._inductor import config
    x = ember.rand(*shape, dtype=ember.float64) + 0.5
    with config.patch({"cpp.threads": 2}):
        c = Compiled(lambda t: (t.cumsum(dim), (t * 0.999).cumprod(dim)))
        got = c(x)
    for g, w in zip(got, (x.cumsum(dim), (x * 0.999).cumprod(dim))):
        assert_close(g, w, rtol=1e-12, atol=0)
    parallel = "ember_parallel(kernel" in c.source()
    has_rows = any(n != 1 for d, n in enumerate(shape) if d != dim)
    assert parallel == (has_rows and x.numel() >= wrapper.PARALLEL_MIN_WORK), c.source().split("int64_t entry0")[1]


def test_cumsum_special_values_and_integers():
    x = ember.tensor([1.0, np.inf, -np.inf, 2.0, np.nan, 3.0, -0.0])
    c = Compiled(lambda t: (t.cumsum(0), t.cumprod(0)))
    for g, w in zip(c(x), (x.cumsum(0), x.cumprod(0))):
        assert_close(g, w, equal_nan=True)
    i = ember.tensor([[2**40, 2**40, 7], [1, -3, 5]], dtype=ember.int64)
    c = Compiled(lambda t: t.cumsum(1) + t.cumprod(1))
    assert_close(c(i), i.cumsum(1) + i.cumprod(1))          # wraps like eager's int64
    s = ember.tensor([[1, 2, 3]], dtype=ember.int32)
    got = Compiled(lambda t: t.cumsum(1))(s)
    assert got.dtype == s.cumsum(1).dtype == ember.int64


def test_cumsum_of_long_rows_matches_eager_float32_order():
    x = ember.rand(3, 5000)
    got = Compiled(lambda t: t.cumsum(1))(x)
    assert_close(got, x.cumsum(1), rtol=1e-6, atol=1e-6)


def test_random_ops_are_extern_calls_on_eagers_stream():
    """The decision (lowering.FALLBACK_REASONS): rand/randn/dropout run eager's kernels on ember's generator, so a
    compiled function draws the same numbers as eager for a seed, forward and backward (the dropout mask)."""
    x = ember.randn(64, 32)

    def f(t):
        return F.dropout(t * 2, 0.5, training=True) + ember.rand(32) - ember.randn(64, 1)
    c = Compiled(f)
    a = x.detach().clone().requires_grad_()
    ember.manual_seed(123)
    got = c(a)
    got.sum().backward()
    b = x.detach().clone().requires_grad_()
    ember.manual_seed(123)
    want = f(b)
    want.sum().backward()
    assert_close(got, want)
    assert_close(a.grad, b.grad)
    fb = _fallbacks(c)
    assert any("dropout" in k or "bernoulli" in k for k in fb), fb
    assert all("random" in fb[k] for k in fb if "rand" in k or "dropout" in k or "bernoulli" in k)
    ember.manual_seed(123)
    again = c(x)                                              # cached code, same seed: same numbers
    assert_close(again, got.detach())


def _scatter_cases():
    n = 1500
    idx0, idx1 = ember.randint(0, n, (n, n)), ember.randint(0, 400, (n, n))
    rows = ember.randint(0, 40, (n,))
    return {
        "scatter_add_dim0": (lambda x, s: x.scatter_add(0, idx0, s), (n, n), (n, n)),
        "scatter_add_dim1": (lambda x, s: x.scatter_add(1, idx1, s), (n, 400), (n, n)),
        "scatter_dim0": (lambda x, s: x.scatter(0, idx0, s), (n, n), (n, n)),
        "index_put_acc": (lambda x, v: x.index_put((rows,), v, accumulate=True), (40, n), (n, n)),
        "index_add_dim0": (lambda x, v: x.index_add(0, rows, v, alpha=0.5), (40, n), (n, n)),
    }


@pytest.mark.parametrize("case", ["scatter_add_dim0", "scatter_add_dim1", "scatter_dim0", "index_put_acc",
                                  "index_add_dim0"])
def test_scatters_split_an_independent_dim_over_threads(case):
    """A scatter whose stores are independent along an output dim (any dim but the scattered one) splits it over
    threads; duplicate positions land in one thread, in the serial order: the result equals the one-thread
    kernel's bit for bit (scatter_add included), and eager's."""
    from ember._inductor import config
    fn, xs, ss = _scatter_cases()[case]
    x, s = ember.randn(*xs), ember.randn(*ss)
    with config.patch({"cpp.threads": 1}):
        serial = Compiled(fn)
        one = serial(x, s)
    ember._dynamo.reset()
    with config.patch({"cpp.threads": 2}):
        c = Compiled(fn)
        got = c(x, s)
    assert bool((got == one).all())
    assert_close(got, fn(x, s), rtol=1e-5, atol=1e-5)
    if case.startswith("scatter"):       # (eager's index_add sums duplicate rows in another order)
        assert bool((got == fn(x, s)).all())
    assert "ember_parallel(kernel" in c.source() and "ember_parallel(kernel" not in serial.source()
    assert "x0_lo" in c.source().split("scatter")[1]


def test_scatter_without_an_independent_dim_stays_serial():
    """index_put into a 1-d tensor: every store may hit every element, one thread (eager's order)."""
    from ember._inductor import config
    idx = ember.randint(0, 50, (3_000_000,))
    x, v = ember.randn(50), ember.randn(3_000_000)
    with config.patch({"cpp.threads": 2}):
        c = Compiled(lambda t, u: t.index_put((idx,), u, accumulate=True))
        got = c(x, v)
    assert_close(got, x.index_put((idx,), v, accumulate=True), rtol=0, atol=0)
    assert "ember_parallel" not in c.source().split("int64_t entry0")[1]


def test_scatter_producers_are_inlined_into_its_kernel():
    """The init value and the stored values are computed inside the scatter's kernel (no buffer of their own)."""
    x, src = ember.randn(6, 5), ember.randn(4, 5)
    idx = ember.randint(0, 6, (4, 5))
    def fn(t, s):
        return (t * 2 + 1).scatter_add(0, idx, s.exp() * 3)
    c = Compiled(fn)
    assert_close(c(x, src), fn(x, src))
    assert c.kernels() == [1], c.source()
    assert "vm_expf" in c.source().split("scatter (accumulate)")[1]


@pytest.mark.parametrize("threads", [1, 2])
def test_pointwise_epilogue_fuses_into_the_scatter_kernel(threads):
    """`scatter_add(...) * 2 + 1`: the pointwise consumer reading the scatter's output at the element it stores
    loops over the output after the stores, in the scatter's kernel (over the thread's slice when it is split)."""
    from ember._inductor import config
    n = 1500
    x, s = ember.randn(n, 700), ember.randn(n, 700)
    idx = ember.randint(0, n, (n, 700))

    def f(a, b):
        return a.scatter_add(0, idx, b) * 2 + 1
    with config.patch({"cpp.threads": threads}):
        c = Compiled(f)
        got = c(x, s)
    assert bool((got == f(x, s)).all())
    assert c.kernels() == [1]
    assert ("ember_parallel(kernel" in c.source()) == (threads == 2)


def test_scatter_consumers_reading_other_elements_stay_apart():
    """A consumer reading another element of the scatter's output (flip), a reduction of it, and a 1-d (serial)
    scatter's epilogue (fused, whole loops)."""
    x, s = ember.randn(6, 5), ember.randn(4, 5)
    idx = ember.randint(0, 6, (4, 5))

    def flipped(a, b):
        y = a.scatter_add(0, idx, b)
        return y + y.flip(0)
    c = Compiled(flipped)
    assert_close(c(x, s), flipped(x, s))
    assert c.kernels() == [2]

    def summed(a, b):
        return a.scatter_add(0, idx, b).sum(0)
    c = Compiled(summed)
    assert_close(c(x, s), summed(x, s))
    assert c.kernels() == [2]
    rows = ember.tensor([1, 1, 3])

    def serial(a, v):
        return a.index_put((rows,), v, accumulate=True).exp()
    c = Compiled(serial)
    a, v = ember.randn(5), ember.randn(3)
    assert_close(c(a, v), serial(a, v))
    assert c.kernels() == [1]


@pytest.mark.parametrize("shape,dim", [((2100, 1000), 1), ((2100, 1000), 0), ((7, 5), 0), ((50,), 0)])
def test_pointwise_epilogue_fuses_into_the_scan_kernel(shape, dim):
    """`cumsum(dim) * 2 + x`: the epilogue runs after the scan in its kernel, over the same thread slice when the
    scan's rows are split over threads."""
    from ember._inductor import config
    x = ember.rand(*shape, dtype=ember.float64)

    def f(t):
        return t.cumsum(dim) * 2 + t
    with config.patch({"cpp.threads": 2}):
        c = Compiled(f)
        got = c(x)
    assert_close(got, f(x), rtol=1e-12, atol=0)
    assert c.kernels() == [1], c.source()
    assert ("ember_parallel(kernel" in c.source()) == (x.numel() >= wrapper.PARALLEL_MIN_WORK and len(shape) > 1)
