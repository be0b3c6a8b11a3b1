"""Big elementwise ops on ember's C pool (csrc/parallel.c + csrc/elementwise_flat.c, runtime/flat.py): the same
values as numpy's loops (bit for bit for + - * /, comparisons, neg, abs, sqrt, relu, where, casts), exp / tanh /
sigmoid of float32 within a few ulp of the exact value, torch's results at its float32 tolerance; in-place, out=,
aliasing, partial overlap, number operands; copy / fill / clamp_ and full sums / means (csrc/reduction_flat.c,
numpy's pairwise bits); the pool with concurrent callers and in a forked child."""
import os
import threading
import time

import numpy as np
import pytest

import ember
from ember.kernels.cpu.runtime import clib, flat

pytestmark = pytest.mark.skipif(not clib.enabled() or flat.kernel("add", np.dtype(np.float32)) == 0,
                                reason="C kernels unavailable")

N = 5 * flat.GRAIN + 13            # several chunks, not a multiple of any vector width


def _data(dtype, seed=0, n=N):
    rng = np.random.default_rng(seed)
    a = (rng.standard_normal(n) * 4).astype(dtype)
    b = (rng.standard_normal(n) * 4).astype(dtype)
    specials = [0.0, -0.0, np.nan, -np.nan, np.inf, -np.inf, 1e-40 if dtype == np.float32 else 1e-310, -1.5]
    a[:8] = specials
    b[:8] = specials[::-1]
    a[8:16] = b[8:16]               # equal pairs for the comparisons
    return a, b


@pytest.fixture(params=[1, 2], ids=["1thread", "2threads"])
def threads(request):
    old = ember.get_num_threads()
    ember.set_num_threads(request.param)
    yield request.param
    ember.set_num_threads(old)


BINARY = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide, "eq": np.equal,
          "ne": np.not_equal, "lt": np.less, "le": np.less_equal, "gt": np.greater, "ge": np.greater_equal}


def _same(got, want, msg=""):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape, msg
    np.testing.assert_array_equal(got.reshape(-1).view(np.uint8), want.reshape(-1).view(np.uint8), err_msg=msg)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_binary_ops_bit_identical_to_numpy(threads, dtype):
    a, b = _data(dtype)
    x, y = ember.from_numpy(a.copy()), ember.from_numpy(b.copy())
    with np.errstate(all="ignore"):
        for name, uf in BINARY.items():
            _same(getattr(ember, name)(x, y).numpy(), uf(a, b), name)
            _same(getattr(ember, name)(x, 0.3).numpy(), uf(a, dtype(0.3)), name + " scalar")
            _same(getattr(ember, name)(x, 3).numpy(), uf(a, dtype(3)), name + " int scalar")
            _same(getattr(ember, name)(x, ember.tensor(2.5, dtype=x.dtype)).numpy(), uf(a, dtype(2.5)), name + " 0-d")
        _same((1.5 - x).numpy(), dtype(1.5) - a, "rsub")
        _same((2.0 / x).numpy(), dtype(2.0) / a, "rdiv")
        _same(ember.sub(x, y, alpha=2).numpy(), a - b * dtype(2), "sub alpha")


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_inplace_out_and_aliasing(threads, dtype):
    a, b = _data(dtype)
    with np.errstate(all="ignore"):
        for name, uf in (("add", np.add), ("mul", np.multiply), ("div", np.divide), ("sub", np.subtract)):
            x = ember.from_numpy(a.copy())
            getattr(x, name + "_")(ember.from_numpy(b))
            _same(x.numpy(), uf(a, b), name + "_")
            x = ember.from_numpy(a.copy())
            getattr(x, name + "_")(0.75)
            _same(x.numpy(), uf(a, dtype(0.75)), name + "_ scalar")
            x = ember.from_numpy(a.copy())
            getattr(x, name + "_")(x)                    # an exact alias
            _same(x.numpy(), uf(a, a), name + "_ self")
            out = ember.empty(N, dtype=x.dtype)
            r = getattr(ember, name)(ember.from_numpy(a), ember.from_numpy(b), out=out)
            assert r is out
            _same(out.numpy(), uf(a, b), name + " out=")
            x, y = ember.from_numpy(a.copy()), ember.from_numpy(b.copy())
            getattr(ember, name)(x, y, out=y)               # out= aliasing an input exactly
            _same(y.numpy(), uf(a, b), name + " out=input")
        # partial overlap: x[1:] += x[:-1] is refused as torch refuses it, before anything is written
        x = ember.from_numpy(a.copy())
        with pytest.raises(RuntimeError, match="refer to a single memory location"):
            x[1:].add_(x[:-1])
        _same(x.numpy(), a, "overlap refused, x unchanged")
        out = ember.empty(N, dtype=ember.bool)
        ember.gt(ember.from_numpy(a), ember.from_numpy(b), out=out)
        _same(out.numpy(), a > b, "gt out=")
        x = ember.from_numpy(a.copy())
        x.gt_(ember.from_numpy(b))                          # a comparison in place keeps x's dtype
        _same(x.numpy(), (a > b).astype(dtype), "gt_")


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_unary_where_clamp_and_casts_bit_identical_to_numpy(threads, dtype):
    a, b = _data(dtype)
    x = ember.from_numpy(a.copy())
    with np.errstate(all="ignore"):
        _same((-x).numpy(), -a, "neg")
        _same(x.abs().numpy(), np.abs(a), "abs")
        # (torch's +NaN below 0, not the sqrt instruction's negative default NaN: kernels/cpu/elementwise.py)
        _same(x.sqrt().numpy(), np.where(a < 0, dtype(np.nan), np.sqrt(a)), "sqrt")
        _same(ember.relu(x).numpy(), np.where(a < 0, dtype(0), a), "relu")
        m = a > b
        _same(ember.where(ember.from_numpy(m), x, ember.from_numpy(b)).numpy(), np.where(m, a, b), "where")
        _same(x.clamp(-1, 2).numpy(), np.minimum(np.maximum(a, dtype(-1)), dtype(2)), "clamp")
        other = np.float64 if dtype == np.float32 else np.float32
        _same(x.to(getattr(ember, np.dtype(other).name)).numpy(), a.astype(other), "cast")
        y = ember.from_numpy(a.copy())
        y.neg_()
        _same(y.numpy(), -a, "neg_")
        y.abs_()
        _same(y.numpy(), np.abs(a), "abs_")
        out = ember.empty(N, dtype=x.dtype)
        ember.sqrt(x, out=out)
        _same(out.numpy(), np.where(a < 0, dtype(np.nan), np.sqrt(a)), "sqrt out=")


def _spy_kernels(monkeypatch):
    """The names of the flat kernels run from here on (runtime/flat.run), appended as they run."""
    names = []
    real = flat.run

    def run(name, arrays, *args, **kw):
        names.append(name)
        return real(name, arrays, *args, **kw)
    monkeypatch.setattr(flat, "run", run)
    return names


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_copy_fill_and_clamp_inplace_on_the_pool(threads, dtype, monkeypatch):
    """clone / copy_ / fill_ / zero_ / clamp_ of big contiguous float tensors run csrc/elementwise_flat.c's
    copy / fill / clamp (copies with 2 threads, fills and clamp_ on one too) and give numpy's bits: NaN payloads copied
    unchanged, a fill value rounded to the dtype once, clamp_ keeping NaN and -0.0."""
    a, _ = _data(dtype)
    a[20] = np.frombuffer(np.array([0x7FC12345 if dtype == np.float32 else 0x7FF8000000012345],
                                   np.uint32 if dtype == np.float32 else np.uint64).tobytes(), dtype)[0]
    ran = _spy_kernels(monkeypatch)
    x = ember.from_numpy(a.copy())
    _same(x.clone().numpy(), a, "clone")
    y = ember.empty(N, dtype=x.dtype)
    y.copy_(x)
    _same(y.numpy(), a, "copy_")
    y.fill_(0.1)
    _same(y.numpy(), np.full(N, 0.1, dtype), "fill_ float")
    y.fill_(2 ** 40 + 1)
    _same(y.numpy(), np.full(N, 2 ** 40 + 1, dtype), "fill_ int")
    y.fill_(float("-inf"))
    _same(y.numpy(), np.full(N, -np.inf, dtype), "fill_ -inf")
    y.zero_()
    _same(y.numpy(), np.zeros(N, dtype), "zero_")
    with np.errstate(all="ignore"):
        for lo, hi in ((-1, 2), (0.5, None), (None, -0.25), (3, -3)):
            z = ember.from_numpy(a.copy())
            assert z.clamp_(lo, hi) is z
            want = a.copy()
            if lo is not None:
                want = np.maximum(want, dtype(lo))
            if hi is not None:
                want = np.minimum(want, dtype(hi))
            _same(z.numpy(), want, f"clamp_({lo}, {hi})")
    expected = {"clamp", "fill"} | ({"copy"} if threads > 1 else set())
    assert set(ran) == expected


def test_copy_fill_and_clamp_inplace_other_layouts_keep_numpy(threads):
    """Strided, overlapping, integer and float16 targets, and values C does not take, keep numpy's paths."""
    a, _ = _data(np.float32, n=2 * N)
    x = ember.from_numpy(a.copy())
    v = x[::2]
    v.fill_(1.5)
    assert np.all(x.numpy()[::2] == 1.5) and np.array_equal(x.numpy()[1::2], a[1::2], equal_nan=True)
    x = ember.from_numpy(a.copy())
    x[1::2].copy_(x[::2])                          # strided source and target
    _same(x.numpy()[1::2].copy(), a[::2].copy())
    i = ember.zeros(N, dtype=ember.int64)
    i.fill_(2 ** 60 + 1)
    assert int(i[5]) == 2 ** 60 + 1
    h = ember.from_numpy(a[:N].astype(np.float16))
    h.clamp_(-1, 1)
    _same(h.numpy(), np.clip(a[:N].astype(np.float16), -1, 1))
    with pytest.raises(RuntimeError):
        ember.from_numpy(a.copy()).clamp_()         # no bound: torch's error, nothing written


@pytest.mark.parity
def test_copy_fill_and_clamp_inplace_match_torch():
    torch = pytest.importorskip("torch")
    a, _ = _data(np.float32)
    for fn in (lambda L, x: x.clone(), lambda L, x: L.empty_like(x).copy_(x), lambda L, x: x.fill_(0.3),
               lambda L, x: x.zero_(), lambda L, x: x.clamp_(-1.5, 2), lambda L, x: x.clamp_(min=0)):
        got = fn(ember, ember.from_numpy(a.copy())).numpy()
        want = fn(torch, torch.from_numpy(a.copy())).numpy()
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("entry", ["cpython", "ctypes"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_full_sum_and_mean_bit_identical_to_numpy(threads, dtype, entry, monkeypatch):
    """x.sum() / x.mean() of big contiguous float tensors run csrc/reduction_flat.c (numpy's pairwise tree,
    its top subtrees over the pool): numpy's exact bits for any thread count and size (odd sizes give
    uneven subtrees and leaves), NaN and inf propagated, an all -0.0 sum 0.0 as numpy's; called through
    csrc/parallel_call.c or through ctypes."""
    if entry == "ctypes":
        monkeypatch.setattr(flat, "_FAST", [False])
    elif not flat._fast_entry():
        pytest.skip("no CPython entry here")
    calls = []
    real = flat.sum_all
    monkeypatch.setattr(flat, "sum_all", lambda a: calls.append(a.size) or real(a))
    from ember.kernels.cpu import reduction
    monkeypatch.setattr(reduction, "_sum_all", flat.sum_all)
    real_double = flat.sum_all_double          # (mean's)
    monkeypatch.setattr(reduction, "_sum_all_double", lambda a: calls.append(a.size) or real_double(a))
    rng = np.random.default_rng(7)
    for shape in [(N,), (1 << 20,), (512, 2051), (3, 333, 101), (flat.MIN_ELEMS_SUM,)]:
        a = (rng.standard_normal(shape) * 100 + 3).astype(dtype)
        x = ember.from_numpy(a)
        _same(x.sum().numpy(), np.sum(a), f"sum {shape}")
        _same(x.mean().numpy(), np.mean(a), f"mean {shape}")
    a, _ = _data(dtype)
    with np.errstate(invalid="ignore"):
        _same(ember.from_numpy(a).sum().numpy(), np.sum(a), "sum with NaN")
        _same(ember.from_numpy(a).mean().numpy(), np.mean(a), "mean with NaN")
    a = np.full(N, np.inf, dtype)
    _same(ember.from_numpy(a).sum().numpy(), np.sum(a), "sum of inf")
    _same(ember.from_numpy(a).mean().numpy(), np.mean(a), "mean of inf")
    a = np.full(N, -0.0, dtype)
    _same(ember.from_numpy(a).sum().numpy(), np.sum(a), "sum of -0.0")
    _same(ember.from_numpy(a).mean().numpy(), np.mean(a), "mean of -0.0")
    big = np.full(N, np.finfo(dtype).max / 2, dtype)        # the float32 sum overflows to inf, as numpy's
    with np.errstate(over="ignore"):
        _same(ember.from_numpy(big).mean().numpy(), np.mean(big), "mean of huge values")
    tiny = (rng.standard_normal(N) * 1e-38).astype(dtype)   # subnormal means
    _same(ember.from_numpy(tiny).mean().numpy(), np.mean(tiny), "mean of tiny values")
    assert len(calls) == 18
    small = rng.standard_normal(flat.MIN_ELEMS_SUM - 1).astype(dtype)   # below the C size: numpy's call
    _same(ember.from_numpy(small).sum().numpy(), np.sum(small), "small sum")
    strided = ember.from_numpy(rng.standard_normal(2 * N).astype(dtype))[::2]
    _same(strided.sum().numpy(), np.sum(strided.numpy()), "strided sum")
    assert len(calls) == 19 and calls[-1] == N           # the strided one: asked, declined (not contiguous)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_last_dim_sum_and_mean_bit_identical_to_numpy(threads, dtype, monkeypatch):
    """sum / mean over the last dim of a big contiguous float tensor run csrc/reduction_flat.c's row sums
    (rows over the pool): numpy's bits for short, long, odd and one-element rows, keepdim or not; other
    dims, dtype= and strided inputs keep numpy's path."""
    calls = []
    real = flat.sum_rows
    monkeypatch.setattr(flat, "sum_rows", lambda a: calls.append(a.shape) or real(a))
    from ember.kernels.cpu import reduction
    monkeypatch.setattr(reduction, "_sum_rows", flat.sum_rows)
    rng = np.random.default_rng(5)
    shapes = [(1024, 1024), (10, 100003), (1000, 33), (2, 3, 40001), (70001,), (35000, 1)]
    for shape in shapes:
        a = (rng.standard_normal(shape) * 100 + 2).astype(dtype)
        x = ember.from_numpy(a)
        for kd in (False, True):
            _same(x.sum(-1, keepdim=kd).numpy(), np.sum(a, -1, keepdims=kd), f"sum {shape} {kd}")
            _same(x.mean(-1, keepdim=kd).numpy(), np.mean(a, -1, keepdims=kd), f"mean {shape} {kd}")
    assert calls == [s for s in shapes for _ in range(4)]
    a = (rng.standard_normal((512, 256)) * 100).astype(dtype)
    x = ember.from_numpy(a)
    _same(x.sum(0).numpy(), np.sum(a, 0), "dim 0")
    _same(x.sum(-1, dtype=ember.float64).numpy(), np.sum(a, -1, dtype=np.float64), "dtype=")
    _same(x.t().sum(-1).numpy(), np.sum(a.T, -1), "strided")
    # dtype=float64 of a float64 tensor is its own dtype (routed); the strided one: asked, declined
    assert len(calls) == 4 * len(shapes) + (2 if dtype == np.float64 else 1)


@pytest.mark.parity
def test_full_sum_and_mean_match_torch():
    torch = pytest.importorskip("torch")
    a = np.random.default_rng(8).standard_normal(1 << 20).astype(np.float32) + 0.25
    for name in ("sum", "mean"):
        got = getattr(ember.from_numpy(a), name)()
        want = getattr(torch.from_numpy(a), name)()
        assert str(got.dtype) == str(want.dtype).replace("torch", "ember") and got.shape == want.shape
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5)
        got = getattr(ember.from_numpy(a.reshape(256, -1)), name)(-1, keepdim=True)
        want = getattr(torch.from_numpy(a.reshape(256, -1)), name)(-1, keepdim=True)
        assert got.shape == want.shape
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_big_gelu_on_the_pool_same_bits_for_any_thread_count(dtype, monkeypatch):
    """A big GELU (forward and backward, both approximations) runs csrc/gelu.c's chunk form on the C pool
    with 2 threads, with the one-thread call's exact bits."""
    import ember.nn.functional as F
    rng = np.random.default_rng(4)
    a = (rng.standard_normal(N) * 3).astype(dtype)
    g = rng.standard_normal(N).astype(dtype)
    a[:5] = [np.nan, np.inf, -np.inf, 0.0, -0.0]
    sizes = []
    real = flat.run_address
    monkeypatch.setattr(flat, "run_address", lambda fn, arrays, n, *s: sizes.append(n) or real(fn, arrays, n, *s))
    old = ember.get_num_threads()
    got = {}
    try:
        for k in (1, 2):
            ember.set_num_threads(k)
            for approx in ("none", "tanh"):
                x = ember.from_numpy(a.copy()).requires_grad_()
                y = F.gelu(x, approximate=approx)
                y.backward(ember.from_numpy(g))
                got[k, approx] = (y.detach().numpy(), x.grad.numpy())
    finally:
        ember.set_num_threads(old)
    for approx in ("none", "tanh"):
        for one, two in zip(got[1, approx], got[2, approx]):
            _same(two, one, approx)
    assert sizes == [N] * 4                 # the 2-thread forwards and backwards, none of the 1-thread ones


def _half_edges():
    """float32 values around every float16 value (the value, the midpoint to the next, one ulp either side),
    random bit patterns (NaN payloads, signalling ones too, subnormals, overflow) and bfloat16 ties."""
    rng = np.random.default_rng(9)
    h = np.arange(65536, dtype=np.uint16).view(np.float16)
    with np.errstate(all="ignore"):
        hf = h.astype(np.float32)
        mid = ((hf.astype(np.float64) + np.nextafter(h, np.float16(np.inf)).astype(np.float64)) / 2).astype(np.float32)
        up, down = np.float32(np.inf), np.float32(-np.inf)
        vals = [hf, mid, np.nextafter(mid, up), np.nextafter(mid, down), np.nextafter(hf, up), np.nextafter(hf, down)]
    bits = rng.integers(0, 2 ** 32, 1 << 18, dtype=np.uint64).astype(np.uint32)
    ties = (np.arange(65536, dtype=np.uint32) << 16) + np.uint32(0x8000)
    special = np.array([0x7F800001, 0xFF812345, 0x7FA00000, 0x7FC00000, 0x7F800000, 0x00000001, 0x80000000],
                       np.uint32)
    return np.concatenate(vals + [bits.view(np.float32), ties.view(np.float32), special.view(np.float32)])


def _torch_nans(a, h, b):
    """numpy's float16 / bfloat16 / float32 results with torch's NaN bits put in (kernels/cpu/copy_half.py):
    float16 quiet NaNs keeping sign and top payload, 0xffff for bfloat16 on the vectorised path, float16 ->
    float32 quieted."""
    nan = np.isnan(a)
    bits = a.view(np.uint32)[nan]
    h = h.copy()
    h.view(np.uint16)[nan] = (((bits >> 16) & 0x8000) | 0x7E00 | ((bits >> 13) & 0x3FF)).astype(np.uint16)
    b = b.copy()
    b.view(np.uint16)[nan] = 0xFFFF
    hf = h.astype(np.float32)
    hf.view(np.uint32)[np.isnan(hf)] |= np.uint32(0x400000)
    return h, b, hf


def test_float16_and_bfloat16_casts_bit_identical_to_numpy_with_torch_nans(threads, monkeypatch):
    """float32 <-> float16 / bfloat16 casts run csrc/elementwise_flat.c (from 4096 elements, any thread count)
    with numpy's (ml_dtypes') exact bits for numbers: rounding to nearest even, overflow, subnormals; NaNs
    as torch writes them (quieted float16 payloads, bfloat16 0xffff)."""
    ran = _spy_kernels(monkeypatch)
    x = _half_edges()
    with np.errstate(all="ignore"):
        for off in (0, 3):                   # a start off the vector alignment too
            a = x[off:]
            t = ember.from_numpy(a)
            h = t.to(ember.float16)
            b = t.to(ember.bfloat16)
            want_h, want_b, want_hf = _torch_nans(a, a.astype(np.float16), a.astype(b.numpy().dtype))
            _same(h.numpy(), want_h, "to float16")
            _same(b.numpy(), want_b, "to bfloat16")
            _same(h.float().numpy(), want_hf, "float16 to float32")
            _same(b.float().numpy(), b.numpy().astype(np.float32), "bfloat16 to float32")
    assert ran == ["to_f16", "to_bf16", "from_f16", "from_bf16"] * 2


@pytest.mark.parity
def test_float16_and_bfloat16_casts_match_torch():
    torch = pytest.importorskip("torch")
    x = _half_edges()                      # NaN payloads included
    for name in ("float16", "bfloat16"):
        got = ember.from_numpy(x).to(getattr(ember, name))
        want = torch.from_numpy(x).to(getattr(torch, name))
        np.testing.assert_array_equal(got.view(ember.int16).numpy(), want.view(torch.int16).numpy())
        np.testing.assert_array_equal(got.float().numpy().view(np.uint32), want.float().numpy().view(np.uint32))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_masked_fill_on_the_pool_bit_identical_to_numpy(threads, dtype, monkeypatch):
    """masked_fill / masked_fill_ of a big float tensor with a bool mask of its shape and a Python number run
    csrc/elementwise_flat.c's masked_fill (from 4096 elements): np.where's bits, the value rounded to the
    dtype once; a broadcast mask, a tensor value or an integer tensor keep numpy's path."""
    ran = _spy_kernels(monkeypatch)
    a, b = _data(dtype)
    m = a > b
    x = ember.from_numpy(a.copy())
    mask = ember.from_numpy(m)
    for v in (0.1, -float("inf"), float("nan"), -0.0, 3, 2 ** 40 + 1):
        _same(x.masked_fill(mask, v).numpy(), np.where(m, dtype(v), a), f"masked_fill {v}")
        y = ember.from_numpy(a.copy())
        assert y.masked_fill_(mask, v) is y
        _same(y.numpy(), np.where(m, dtype(v), a), f"masked_fill_ {v}")
    assert ran == ["masked_fill"] * 12
    _same(ember.from_numpy(np.stack([a, b])).masked_fill(mask, 1.5).numpy(),
          np.where(m, dtype(1.5), np.stack([a, b])), "broadcast mask")
    _same(x.masked_fill(mask, ember.tensor(2.5)).numpy(), np.where(m, dtype(2.5), a), "tensor value")
    i = ember.arange(N)
    _same(i.masked_fill(mask, 7).numpy(), np.where(m, 7, np.arange(N)), "int64 tensor")
    assert ran == ["masked_fill"] * 12


@pytest.mark.parity
def test_masked_fill_matches_torch():
    torch = pytest.importorskip("torch")
    a, b = _data(np.float32)
    for v in (0.0, -float("inf"), -1e4):
        got = ember.from_numpy(a.copy()).masked_fill(ember.from_numpy(a > b), v).numpy()
        want = torch.from_numpy(a.copy()).masked_fill(torch.from_numpy(a > b), v).numpy()
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)
        t = torch.from_numpy(a.copy())
        e = ember.from_numpy(a.copy())
        e.masked_fill_(ember.from_numpy(a > b), v)
        t.masked_fill_(torch.from_numpy(a > b), v)
        np.testing.assert_array_equal(e.numpy(), t.numpy())


def _ulps(got, exact):
    """|got - exact| in units of the float32 spacing at the exact value (finite, non-tiny results)."""
    with np.errstate(over="ignore"):
        ref32 = exact.astype(np.float32)
    keep = np.isfinite(ref32) & (np.abs(ref32) > 1e-30)
    return np.abs(got[keep].astype(np.float64) - exact[keep]) / np.spacing(np.abs(ref32[keep]))


MATH = {"exp": (np.exp, 1.0), "tanh": (np.tanh, 2.0), "sigmoid": (lambda v: 1 / (1 + np.exp(-v)), 3.0)}


@pytest.mark.parametrize("name", list(MATH))
def test_float32_math_within_a_few_ulp(threads, name):
    """The documented accuracy of csrc/elementwise_flat.c's exp / tanh / sigmoid over float32's range that
    matters (every 2^-14 step over [-20, 20] and beyond; exp up to its overflow), with the special values."""
    fn, ulp = MATH[name]
    hi = 88.5 if name == "exp" else 20.0
    x = np.concatenate([np.arange(-hi, hi, 2.0 ** -14, dtype=np.float32),
                        np.float32([0.0, -0.0, 1e-30, -1e-40, 5e-8, -3e-4, 100.0, -100.0, 1e30, -1e30])])
    got = getattr(ember.from_numpy(x), name)().numpy()
    with np.errstate(all="ignore"):
        exact = fn(x.astype(np.float64))
    assert _ulps(got, exact).max() <= ulp
    special = np.float32([np.nan, np.inf, -np.inf, 0.0, -0.0])
    s = getattr(ember.from_numpy(np.concatenate([special, x[:N]])), name)().numpy()[:5]
    with np.errstate(all="ignore"):
        want = fn(special.astype(np.float64)).astype(np.float32)
    _same(s, want, name + " specials")     # inf, 0 and the sign of zero exactly; NaN stays NaN


@pytest.mark.parity
@pytest.mark.parametrize("name", ["exp", "tanh", "sigmoid", "exp_", "tanh_", "sigmoid_"])
def test_float32_math_matches_torch(name):
    torch = pytest.importorskip("torch")
    a, _ = _data(np.float32)
    got = getattr(ember.from_numpy(a.copy()), name)().numpy()
    want = getattr(torch.from_numpy(a.copy()), name)().numpy()
    np.testing.assert_allclose(got, want, rtol=1.3e-6, atol=1e-5, equal_nan=True)
    np.testing.assert_array_equal(np.signbit(got[~np.isnan(got)]), np.signbit(want[~np.isnan(want)]))


@pytest.mark.parity
def test_big_ops_match_torch_dtypes_and_values():
    torch = pytest.importorskip("torch")
    a, b = _data(np.float32)
    for fn in (lambda L, x, y: x + y, lambda L, x, y: x * 0.5, lambda L, x, y: x > y, lambda L, x, y: 1 - x,
               lambda L, x, y: L.where(x > 0, x, y), lambda L, x, y: x.to(L.float64), lambda L, x, y: x / y,
               lambda L, x, y: L.relu(x), lambda L, x, y: x.clone().add_(y), lambda L, x, y: x.clone().mul_(3)):
        got = fn(ember, ember.from_numpy(a.copy()), ember.from_numpy(b.copy()))
        want = fn(torch, torch.from_numpy(a.copy()), torch.from_numpy(b.copy()))
        assert str(got.dtype).split(".")[1] == str(want.dtype).split(".")[1]
        np.testing.assert_array_equal(got.numpy(), want.numpy())


@pytest.fixture
def streaming(monkeypatch):
    """Every flat op streams its output (runtime/flat.py's STREAM_BYTES set to 0); yields the names of the
    kernels looked up for it from here on, so a test can check the `_nt` forms ran."""
    old = flat.stream_bytes()
    looked = []
    real = flat.kernel

    def kernel(name, dtype):
        looked.append(name)
        return real(name, dtype)
    monkeypatch.setattr(flat, "kernel", kernel)
    flat.set_stream_bytes(0)
    yield looked
    flat.set_stream_bytes(old)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_streaming_kernels_bit_identical_to_numpy(threads, dtype, streaming):
    """The streaming-store forms (csrc/elementwise_flat.c's `_nt` kernels, for ops that move more than the
    cache holds) give the plain kernels' bits: + - * / with tensors and numbers on either side, neg, relu
    (-0.0 and NaN kept), clone, float32 <-> float64 casts; outputs at every alignment (a view's output
    starts mid-line), in-place ops and an out= aliasing an input keep the plain kernels."""
    if flat.kernel("add_nt", np.dtype(dtype)) == 0:
        pytest.skip("no streaming kernels on this cpu")
    a, b = _data(dtype)
    x, y = ember.from_numpy(a.copy()), ember.from_numpy(b.copy())
    other = np.float64 if dtype == np.float32 else np.float32
    with np.errstate(all="ignore"):
        for name, uf in (("add", np.add), ("sub", np.subtract), ("mul", np.multiply), ("div", np.divide)):
            _same(getattr(ember, name)(x, y).numpy(), uf(a, b), name)
            _same(getattr(ember, name)(x, 0.3).numpy(), uf(a, dtype(0.3)), name + " scalar")
            out = ember.empty(N, dtype=x.dtype)
            assert getattr(ember, name)(x, y, out=out) is out
            _same(out.numpy(), uf(a, b), name + " out=")
            for k in (1, 3, 7):                         # outputs and inputs off the 64-byte line
                _same(getattr(ember, name)(x[k:], y[k:]).numpy(), uf(a[k:], b[k:]), f"{name} [{k}:]")
                o = ember.empty(N, dtype=x.dtype)[k:]
                getattr(ember, name)(x[:-k], y[k:], out=o)
                _same(o.numpy(), uf(a[:-k], b[k:]), f"{name} out=[{k}:]")
        _same((1.5 - x).numpy(), dtype(1.5) - a, "rsub")
        _same((2.0 / x).numpy(), dtype(2.0) / a, "rdiv")
        _same((-x).numpy(), -a, "neg")
        _same(ember.relu(x).numpy(), np.where(a < 0, dtype(0), a), "relu")
        _same(x.clone().numpy(), a, "clone")
        _same(x.to(getattr(ember, np.dtype(other).name)).numpy(), a.astype(other), "cast")
        # one thread: the arithmetic, copies and casts stay with numpy (flat.splits), relu runs C
        assert ({"add_nt", "sub_s_nt", "sub_r_nt", "div_nt", "neg_nt", "relu_nt", "copy_nt",
                 "to_f64_nt" if dtype == np.float32 else "to_f32_nt"} if threads > 1 else {"relu_nt"}) <= set(streaming)
        del streaming[:]
        z = ember.from_numpy(a.copy())
        z.add_(y)
        z.mul_(0.5)
        _same(z.numpy(), (a + b) * dtype(0.5), "in place")
        y2 = ember.from_numpy(b.copy())
        ember.sub(x, y2, out=y2)
        _same(y2.numpy(), a - b, "out= an input")
        assert not any(n.endswith("_nt") for n in streaming)


@pytest.mark.parity
def test_streaming_kernels_match_torch(streaming):
    torch = pytest.importorskip("torch")
    a, b = _data(np.float32)
    for fn in (lambda L, x, y: x + y, lambda L, x, y: x * 0.5, lambda L, x, y: 1 - x, lambda L, x, y: x / y,
               lambda L, x, y: L.relu(x), lambda L, x, y: -x, lambda L, x, y: x.to(L.float64),
               lambda L, x, y: x.double().float(), lambda L, x, y: L.add(x, y, out=L.empty_like(y))):
        got = fn(ember, ember.from_numpy(a.copy()), ember.from_numpy(b.copy()))
        want = fn(torch, torch.from_numpy(a.copy()), torch.from_numpy(b.copy()))
        assert str(got.dtype).split(".")[1] == str(want.dtype).split(".")[1]
        np.testing.assert_array_equal(got.numpy().view(np.uint8), want.numpy().view(np.uint8))


@pytest.mark.parity
@pytest.mark.parametrize("op", ["add", "sub", "mul", "div"])
def test_big_out_variants_match_torch(threads, op):
    """out= of big float tensors (elementwise.py's out= fast path straight to the C kernel, and what must leave
    it): tensor and Python-number operands, out= aliasing an input exactly, an out= view beside its inputs, a
    strided out, an out of another dtype (cast), a wrongly sized out (resized, torch's warning), an int
    beyond 2**53 and a bool operand: torch's values, dtypes, shapes and warnings."""
    torch = pytest.importorskip("torch")
    import warnings
    a, b = _data(np.float32)

    def both(fn):
        res = []
        for L in (ember, torch):
            x, y = L.from_numpy(a.copy()), L.from_numpy(b.copy())
            with warnings.catch_warnings(record=True) as w:
                warnings.simplefilter("always")
                try:
                    with np.errstate(all="ignore"):
                        r = fn(L, x, y).numpy().copy()
                except RuntimeError as e:
                    r = (type(e), str(e))
            res.append((r, [str(m.message).split(".")[0] for m in w]))
        (got, gw), (want, ww) = res
        if isinstance(want, tuple) or isinstance(got, tuple):
            assert isinstance(got, tuple) and isinstance(want, tuple) and got == want
            return
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_array_equal(got.view(np.uint8), want.view(np.uint8))
        assert gw == ww

    both(lambda L, x, y: getattr(L, op)(x, y, out=L.empty_like(x)))
    both(lambda L, x, y: getattr(L, op)(x, 0.75, out=L.empty_like(x)))
    both(lambda L, x, y: getattr(L, op)(x, 3, out=L.empty_like(x)))
    both(lambda L, x, y: getattr(L, op)(x, 2 ** 60 + 1, out=L.empty_like(x)))
    if op != "sub":             # (sub of a bool: torch's error, fix20's _bool_sub_check)
        both(lambda L, x, y: getattr(L, op)(x, True, out=L.empty_like(x)))
    both(lambda L, x, y: getattr(L, op)(x, y, out=x))                        # exact alias
    both(lambda L, x, y: getattr(L, op)(x[1:], y[1:], out=L.empty(N + 1, dtype=L.float32)[2:]))  # out a view
    both(lambda L, x, y: getattr(L, op)(x[:N // 2], y[:N // 2], out=L.empty(N, dtype=L.float32)[::2]))
    both(lambda L, x, y: getattr(L, op)(x, y, out=L.empty(N, dtype=L.float64)))
    both(lambda L, x, y: getattr(L, op)(x, y, out=L.empty(7, dtype=L.float32)))


def test_layouts_the_pool_does_not_take_stay_correct(threads):
    """Non-contiguous, broadcast, mixed-dtype, integer and float16 operands keep their numpy paths."""
    a, b = _data(np.float32, n=2 * N)
    x, y = ember.from_numpy(a.copy()), ember.from_numpy(b.copy())
    _same((x[::2] + y[::2]).numpy(), a[::2] + b[::2])
    _same((x.view(-1, 2) * y[:2]).numpy(), a.reshape(-1, 2) * b[:2])
    _same((x + y.double()).numpy(), a.astype(np.float64) + b.astype(np.float64))
    i = ember.arange(N, dtype=ember.int32)
    _same((i * 3 + 1).numpy(), np.arange(N, dtype=np.int32) * 3 + 1)
    _same((i > 7).numpy(), np.arange(N) > 7)
    h = x.half()
    _same((h + h).numpy(), a.astype(np.float16) + a.astype(np.float16))
    _same((x + 2 ** 60).numpy(), a + np.float32(2 ** 60))    # an int beyond 2^53 keeps numpy's path


def test_concurrent_callers_and_thread_counts():
    """Two Python threads running big ops at once (one takes the pool, the other runs inline) both get
    the right results; a pool sized 1 never splits."""
    a, b = _data(np.float32, n=4 * N)
    old = ember.get_num_threads()
    ember.set_num_threads(2)
    errors = []

    def work(seed):
        x, y = ember.from_numpy(a * seed), ember.from_numpy(b)
        for _ in range(30):
            if not np.array_equal((x + y).numpy(), a * seed + b, equal_nan=True):
                errors.append(seed)
    try:
        ts = [threading.Thread(target=work, args=(s,)) for s in (1, 2, 3)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
        assert errors == []
        ember.set_num_threads(1)
        ember.from_numpy(a).exp()                        # exp runs in C on one thread too
        assert flat.last_threads() == 1
    finally:
        ember.set_num_threads(old)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_forked_child_runs_big_ops_on_its_own_workers():
    """After the parent's pool has run (its workers exist and spin), a forked child's big ops start the
    child's own workers and finish: the child never waits on a thread that fork did not copy."""
    a, b = _data(np.float32, n=4 * N)
    old = ember.get_num_threads()
    ember.set_num_threads(2)
    try:
        for _ in range(5):
            (ember.from_numpy(a) + ember.from_numpy(b)).exp()
        pid = os.fork()
        if pid == 0:                                     # the child: exit status says whether it worked
            ok = False
            try:
                for _ in range(20):
                    r = (ember.from_numpy(a) * ember.from_numpy(b)).numpy()
                ok = np.array_equal(r, a * b, equal_nan=True)
            finally:
                os._exit(0 if ok else 1)
        deadline = time.time() + 60
        while True:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                break
            if time.time() > deadline:
                os.kill(pid, 9)
                os.waitpid(pid, 0)
                pytest.fail("the forked child hung in ember's C pool")
            time.sleep(0.05)
        assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0
        _same((ember.from_numpy(a) + ember.from_numpy(b)).numpy(), a + b)   # the parent's pool still works
    finally:
        ember.set_num_threads(old)


@pytest.mark.parametrize("spin_us,backoff", [(0, 0), (0, 32), (50, 32), (2000, 1)])
def test_spin_budgets_and_pool_counters(spin_us, backoff):
    """Any idle spin budget (0: workers sleep at once) and wake-up back-off (0: wake them for every job) gives
    the same bits; the pool's counters (runtime/flat.py's pool_stats) account for every split job and chunk."""
    a, b = _data(np.float32, n=4 * N)
    old = ember.get_num_threads()
    ember.set_num_threads(2)
    prev = flat.set_spin_us(spin_us)
    prev_backoff = flat.set_wake_backoff(backoff)
    try:
        assert prev_backoff >= 0
        assert prev >= 0
        flat.pool_stats(reset=True)
        x, y = ember.from_numpy(a), ember.from_numpy(b)
        for _ in range(10):
            _same((x * y).numpy(), a * b)
            time.sleep(0.0002)                         # let a short budget run out between jobs
        st = flat.pool_stats(reset=True)
        assert st["jobs"] == 10 and st["busy"] == 0
        assert 0 <= st["joined"] <= 10 and st["asleep"] <= 10 and st["waited"] <= st["joined"]
        assert st["caller_chunks"] <= st["chunks"] == 10 * -(-a.size // flat._grain(a.size, 2))
        assert st["woke_late"] <= st["woke"] and st["same_cpu"] <= st["woke"]
        assert st["wake_skipped"] <= st["asleep"] and (backoff or st["wake_skipped"] == 0)
        assert st["long_waits"] <= st["waited"] and st["backed_off"] + st["joined"] <= st["jobs"]
        # every wake-up follows a counted sleep (the one worker may have been asleep before the reset)
        assert st["woke"] <= st["spun_out"] + st["preempted"] + st["gave_way"] + 1
        assert flat.pool_stats()["jobs"] == 0          # reset
    finally:
        flat.set_spin_us(prev)
        flat.set_wake_backoff(prev_backoff)
        ember.set_num_threads(old)


def test_python_pool_hushes_spinning_c_workers():
    """runtime/pool.py's run_parts sends the C pool's spinning idle workers to sleep before its own threads need
    the cpus (csrc/parallel.c's ember_parallel_hush, counted as `hushed`), whatever their spin budget (here
    200 ms: without the hush they would still spin), and the next split job wakes them with the same bits."""
    from ember.kernels.cpu.runtime import pool
    a, b = _data(np.float32, n=4 * N)
    old = ember.get_num_threads()
    ember.set_num_threads(2)
    prev, prev_max = flat.set_spin_us(200000), flat.set_spin_max_us(0)
    try:
        x, y = ember.from_numpy(a), ember.from_numpy(b)
        _same((x * y).numpy(), a * b)              # the C pool is loaded and its worker started
        calls, hush = [], pool._HUSH[0]
        assert hush is not None
        pool._HUSH[0] = lambda: calls.append(1) or hush()
        try:
            parts = []
            pool.run_parts(parts.append, 2)
            assert calls == [1] and sorted(parts) == [0, 1]
            pool.run_parts(parts.append, 1)         # one part: no other thread, no hush
            assert calls == [1]
        finally:
            pool._HUSH[0] = hush
        flat.pool_stats(reset=True)
        st = {}
        for _ in range(30):         # a worker preempted on a loaded machine slept for that reason: try again
            _same((x * y).numpy(), a * b)
            pool.run_parts(parts.append, 2)
            for _ in range(50):
                time.sleep(0.002)
                st = flat.pool_stats()
                if st["hushed"]:
                    break
            if st["hushed"]:
                break
        if not st["hushed"] and st["preempted"]:
            pytest.skip(f"every spinning worker lost its cpu before the hush (a loaded machine): {st}")
        assert st["hushed"] >= 1 and st["spun_out"] == 0      # none ran out its 200 ms budget
        _same((x * y).numpy(), a * b)
    finally:
        flat.set_spin_us(prev)
        flat.set_spin_max_us(prev_max)
        ember.set_num_threads(old)


def _slices():
    """The scheduler time slice (ns) of each of this process's threads, from /proc (Linux with EEVDF), or None."""
    out = []
    try:
        for t in os.listdir("/proc/self/task"):
            with open(f"/proc/self/task/{t}/sched") as f:
                out += [int(line.split(":")[1]) for line in f if line.startswith("se.slice")]
    except (OSError, ValueError):
        return None
    return out or None


def test_pool_workers_ask_for_a_short_time_slice():
    """The C pool's workers run with a 100 us scheduler slice (csrc/parallel.c's ep_apply_slice: a woken worker
    then preempts another process's thread at once instead of waiting out its ~3 ms slice); set_slice_us(0) gives
    them the kernel's default back at their next wake-up; the bits never change."""
    if _slices() is None:
        pytest.skip("no se.slice in /proc/<pid>/task/<tid>/sched (not Linux, or a kernel before EEVDF)")
    a, b = _data(np.float32, n=4 * N)
    old = ember.get_num_threads()
    ember.set_num_threads(2)
    prev, prev_max = flat.set_spin_us(0), flat.set_spin_max_us(0)      # workers sleep after each job
    prev_slice = flat.set_slice_us(100)
    try:
        assert prev_slice >= 0
        x, y = ember.from_numpy(a), ember.from_numpy(b)
        for _ in range(5):
            _same((x * y).numpy(), a * b)
            time.sleep(0.002)
        if 100000 not in _slices():
            pytest.skip("the kernel ignored sched_attr.sched_runtime (before Linux 6.12)")
        assert flat.set_slice_us(0) == 100
        deadline = time.time() + 10
        while 100000 in _slices() and time.time() < deadline:     # taken up at the next wake-up
            _same((x * y).numpy(), a * b)
            time.sleep(0.002)
        assert 100000 not in _slices()
    finally:
        flat.set_slice_us(prev_slice)
        flat.set_spin_us(prev)
        flat.set_spin_max_us(prev_max)
        ember.set_num_threads(old)


@pytest.mark.parametrize("floor,ceiling", [(50, 400), (50, 50), (0, 400), (100, 20)])
def test_adaptive_spin_stays_between_its_floor_and_ceiling(floor, ceiling):
    """The idle spin budget (csrc/parallel.c's ep_spin_adapt) moves between set_spin_us's floor and
    set_spin_max_us's ceiling whatever the jobs' rhythm and the machine's load (a ceiling at or below the floor:
    a fixed spin; a floor of 0: workers sleep at once), and setting the floor resets it; bits unchanged."""
    a, b = _data(np.float32, n=4 * N)
    old = ember.get_num_threads()
    ember.set_num_threads(2)
    prev, prev_max = flat.set_spin_us(floor), flat.set_spin_max_us(ceiling)
    try:
        assert prev >= 0 and prev_max >= 0
        assert flat.spin_now_us() == floor
        x, y = ember.from_numpy(a), ember.from_numpy(b)
        for gap in [0.0001] * 8 + [0.001, 0.03, 0.0001]:
            _same((x * y).numpy(), a * b)
            time.sleep(gap)
            assert floor <= flat.spin_now_us() <= max(floor, ceiling)
    finally:
        flat.set_spin_us(prev)
        flat.set_spin_max_us(prev_max)
        ember.set_num_threads(old)


@pytest.mark.skipif(not hasattr(os, "fork") or not hasattr(os, "sched_setaffinity"), reason="needs fork, affinity")
def test_pool_on_one_allowed_cpu():
    """A process allowed a single cpu (taskset 1 core) starts workers that can only run beside the caller:
    a worker cannot move off the caller's cpu (csrc/parallel.c's ep_move_off), the wake-up back-off applies,
    and every result is still right and nothing hangs."""
    a, b = _data(np.float32, n=4 * N)
    pid = os.fork()
    if pid == 0:
        ok = False
        try:
            os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})
            ember.set_num_threads(2)        # the child's workers start here, with the one-cpu mask
            flat.pool_stats(reset=True)
            for _ in range(40):
                r = (ember.from_numpy(a) * ember.from_numpy(b)).numpy()
                s = ember.from_numpy(a).sum().item()
            st = flat.pool_stats()
            # a worker that joins here runs only while the caller waits: the long-wait back-off may run jobs on
            # the caller alone (counted as jobs, their chunks as the caller's)
            ok = (np.array_equal(r, a * b, equal_nan=True) and np.isnan(s) == np.isnan(np.add.reduce(a))
                  and st["moved"] == 0 and st["jobs"] >= 40 and st["long_waits"] <= st["waited"]
                  and st["backed_off"] <= st["jobs"] - st["joined"] and st["caller_chunks"] <= st["chunks"])
        finally:
            os._exit(0 if ok else 1)
    deadline = time.time() + 120
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        if time.time() > deadline:
            os.kill(pid, 9)
            os.waitpid(pid, 0)
            pytest.fail("the one-cpu child hung in ember's C pool")
        time.sleep(0.05)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0


class _Sub(np.ndarray):
    pass


def test_cpython_entry_same_bits_as_the_ctypes_entry(threads, monkeypatch):
    """run_address calls the pool through csrc/parallel_call.c (a CPython extension) when it builds, else
    through ctypes: both give the same bits for kernels of 2, 3 and 4 arrays and of scalar operands, and an
    array that is not exactly an ndarray (a subclass) goes through ctypes."""
    import sysconfig
    fast = flat._fast_entry()
    assert os.path.samefile(flat._python_include(), sysconfig.get_paths()["include"])
    if not fast:
        assert not os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h"))
        pytest.skip("no Python headers: the ctypes entry only")
    a, b = _data(np.float32)
    m = a > 0
    cases = [("mul", [a, b], 0.0, 0.0), ("neg", [a], 0.0, 0.0), ("clamp", [a], -1.5, 2.0),
             ("where", [m.view(np.uint8), a, b], 0.0, 0.0), ("add_s", [a], 0.25, 0.0)]
    for name, ins, s0, s1 in cases:
        outs = []
        for entry in (fast, False):
            monkeypatch.setattr(flat, "_FAST", [entry])
            o = np.empty(a.shape, a.dtype)
            assert flat.run_address(flat.kernel(name, np.dtype(np.float32)), ins + [o], o.size, s0, s1)
            assert 1 <= flat.last_threads() <= threads
            outs.append(o)
        _same(outs[0], outs[1], name)
    monkeypatch.setattr(flat, "_FAST", [fast])
    o = np.empty(a.shape, a.dtype).view(_Sub)
    assert flat.run_address(flat.kernel("mul", np.dtype(np.float32)), (a, b, o), o.size)
    _same(np.asarray(o), a * b, "subclass output")
    with pytest.raises(TypeError):
        fast(flat.kernel("mul", np.dtype(np.float32)), [a, b, [1.0]], 0.0, 0.0, 3, 1)
