"""The C row kernels of softmax/log_softmax, layer_norm and nll_loss (csrc/softmax.c, norm.c, nll.c,
vmath.h): each op runs with C on and off (clib.use_c) on odd sizes and special values, and both
paths must match torch (parity) and each other; the C path must really be taken when a compiler
exists."""
import numpy as np
import pytest

import ember
import ember.nn.functional as F
from ember import _cc
from ember.kernels.cpu.runtime import clib

needs_cc = pytest.mark.skipif(not _cc.available(), reason="no C compiler (or EMBER_DISABLE_C set)")
RNG = np.random.default_rng(7)
DTYPES = [np.float32, np.float64]
TOL = {np.float32: 2e-5, np.float64: 1e-10}
# (rows, k): no rows, one row, k=1, lengths that are not multiples of the vector width, and sizes
# large enough to be split over threads
SHAPES = [(0, 5), (1, 1), (1, 7), (3, 1), (5, 13), (4, 3, 37), (2, 1000), (300, 257)]


@pytest.fixture
def torch():
    return pytest.importorskip("torch")


def both_paths(fn):
    """fn() with the C kernels on, then off."""
    with clib.use_c(True):
        on = fn()
    with clib.use_c(False):
        off = fn()
    return on, off


def assert_same(a, b, dt):
    np.testing.assert_allclose(a, b, rtol=TOL[dt], atol=TOL[dt], equal_nan=True)


class Spy:
    """Records which C functions the kernels asked clib for, and whether they got one."""

    def __init__(self, monkeypatch):
        self.got = {}
        real = clib.kernel

        def kernel(name, fname, *a, **k):
            fn = real(name, fname, *a, **k)
            self.got[fname] = fn is not None
            return fn
        monkeypatch.setattr(clib, "kernel", kernel)


# ---------------------------------------------------------------- vmath.h exp

@needs_cc
@pytest.mark.parametrize("dt", DTYPES)
def test_vmath_exp_within_one_ulp_and_specials(dt, tmp_path, monkeypatch):
    monkeypatch.setenv("EMBER_CACHE_DIR", str(tmp_path))        # the test library stays out of the cache
    ctype = "float" if dt == np.float32 else "double"
    fname = "vm_expf" if dt == np.float32 else "vm_exp"
    src = clib.source("softmax") + (f"\nvoid test_exp(const {ctype} *x, {ctype} *y, int64_t n) {{\n"
                                    f"  _Pragma(\"omp simd\") for (int64_t i = 0; i < n; i++) y[i] = {fname}(x[i]);\n}}\n")
    fn = _cc.function(_cc.load(src, "vmath_test"), "test_exp", "ppl")
    lo, hi = (-104.0, 88.7) if dt == np.float32 else (-745.0, 709.7)
    x = np.concatenate([RNG.uniform(lo, hi, 200_000), RNG.uniform(-1, 1, 100_000),
                        np.linspace(-0.4, 0.4, 1001)]).astype(dt)
    specials = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1000.0, -1000.0, hi + 1, lo - 1], dt)
    x = np.concatenate([x, specials])
    y = np.empty_like(x)
    fn(x.ctypes.data, y.ctypes.data, x.size)
    ref_t = np.float64 if dt == np.float32 else np.longdouble
    with np.errstate(over="ignore", under="ignore"):
        ref = np.exp(x.astype(ref_t))
        expect = np.exp(x)
    normal = np.isfinite(expect) & (np.abs(expect) >= np.finfo(dt).tiny)
    ulps = np.abs(y[normal].astype(ref_t) - ref[normal]) / np.spacing(expect[normal]).astype(ref_t)
    assert ulps.max() <= 1.0, float(ulps.max())
    n = specials.size
    np.testing.assert_array_equal(y[-n:], expect[-n:])              # NaN, inf, 0 where numpy gives them
    sub = ~normal & np.isfinite(expect)             # subnormal results: within 1 subnormal step of the true value
    assert np.all(np.abs(y[sub].astype(ref_t) - ref[sub]) <= np.finfo(dt).smallest_subnormal)


@needs_cc
def test_vmath_exp16_is_vm_expf_lane_for_lane(tmp_path, monkeypatch):
    # softmax.c's AVX-512 short-row path computes exp with vm_expf16: vm_expf's operations on 16 lanes, so the
    # same values bit for bit (a machine without AVX-512 has no such path and skips)
    monkeypatch.setenv("EMBER_CACHE_DIR", str(tmp_path))
    src = clib.source("softmax") + """
#if defined(__AVX512F__) && defined(__FMA__)
int test_exp16(const float *x, float *y, int64_t n) {
    for (int64_t i = 0; i + 16 <= n; i += 16) _mm512_storeu_ps(y + i, vm_expf16(_mm512_loadu_ps(x + i)));
    return 1;
}
#else
int test_exp16(const float *x, float *y, int64_t n) { (void)x; (void)y; (void)n; return 0; }
#endif
void test_exp1(const float *x, float *y, int64_t n) { for (int64_t i = 0; i < n; i++) y[i] = vm_expf(x[i]); }
"""
    lib = _cc.load(src, "vmath16_test")
    x = np.concatenate([RNG.uniform(-120, 110, 100_000), RNG.uniform(-1, 1, 10_000),
                        [np.nan, np.inf, -np.inf, 0.0, -0.0, -110.0, 100.0, 88.7, -87.3, -104.0]]).astype(np.float32)
    x = np.concatenate([x, np.zeros(-x.size % 16, np.float32)])
    y16, y1 = np.empty_like(x), np.empty_like(x)
    if not _cc.function(lib, "test_exp16", "ppl", "i")(x.ctypes.data, y16.ctypes.data, x.size):
        pytest.skip("no AVX-512 on this machine")
    _cc.function(lib, "test_exp1", "ppl")(x.ctypes.data, y1.ctypes.data, x.size)
    np.testing.assert_array_equal(y16.view(np.uint32), y1.view(np.uint32))


# ---------------------------------------------------------------- the C path is taken

@needs_cc
def test_kernels_build_and_are_used(monkeypatch):
    for lib, fname, sig, res in [("softmax", "softmax_fwd_f32", "pplli", None),
                                 ("softmax", "softmax_bwd_f64", "ppplli", None),
                                 ("norm", "layer_norm_fwd_f32", "ppppllppd", None),
                                 ("norm", "layer_norm_bwd_f64", "ppppllpppp", None),
                                 ("nll", "nll_fwd_f32", "pplllplpp", "l"), ("nll", "nll_bwd_f64", "ppplllpl", None)]:
        assert clib.kernel(lib, fname, sig, res) is not None, fname
    spy = Spy(monkeypatch)
    x = ember.from_numpy(RNG.standard_normal((6, 10)).astype(np.float32)).requires_grad_()
    F.softmax(x, -1).sum().backward()
    F.log_softmax(x, -1).sum().backward()
    F.layer_norm(x, [10], ember.ones(10, requires_grad=True), ember.zeros(10, requires_grad=True)).sum().backward()
    F.cross_entropy(x, ember.from_numpy(np.arange(6) % 10)).backward()
    F.group_norm(x.reshape(3, 4, 5), 2, ember.ones(4, requires_grad=True), ember.zeros(4)).sum().backward()
    for fname in ["softmax_fwd_f32", "softmax_bwd_f32", "layer_norm_fwd_f32", "layer_norm_bwd_f32",
                  "nll_fwd_f32", "nll_bwd_f32", "group_norm_fwd_f32", "group_norm_bwd_f32"]:
        assert spy.got.get(fname) is True, (fname, spy.got)


def test_use_c_false_gives_no_kernel():
    with clib.use_c(False):
        assert clib.kernel("softmax", "softmax_fwd_f32", "pplli") is None


# ---------------------------------------------------------------- softmax / log_softmax

def _special_rows(dt, k=11):
    """Rows with huge values, -inf entries, only -inf, +inf, NaN, and values far below the max."""
    rows = RNG.standard_normal((7, k)).astype(dt) * 3
    big = np.finfo(dt).max / 4
    rows[0, :] = big
    rows[0, 3] = -big
    rows[1, ::2] = -np.inf
    rows[2, :] = -np.inf
    rows[3, 5] = np.inf
    rows[4, 1] = np.nan
    rows[5, :] = -1e4
    rows[5, 0] = 0.0
    rows[6, :4] = 90.0
    return rows


def _softmax_case(x, g, log, dim):
    def run():
        xe = ember.from_numpy(x.copy()).requires_grad_()
        y = (F.log_softmax if log else F.softmax)(xe, dim)
        y.backward(ember.from_numpy(g.copy()))
        return y.detach().numpy(), xe.grad.numpy()
    return run


@pytest.mark.parity
@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("log", [False, True])
@pytest.mark.parametrize("shape", SHAPES + ["special"])
def test_softmax_c_and_numpy_match_torch(torch, dt, log, shape):
    x = _special_rows(dt) if shape == "special" else RNG.standard_normal(shape).astype(dt) * 4
    g = RNG.standard_normal(x.shape).astype(dt)
    (y_c, d_c), (y_n, d_n) = both_paths(_softmax_case(x, g, log, -1))
    xt = torch.from_numpy(x.copy()).requires_grad_()
    yt = (torch.log_softmax if log else torch.softmax)(xt, -1)
    yt.backward(torch.from_numpy(g.copy()))
    for mine in (y_c, y_n):
        assert_same(mine, yt.detach().numpy(), dt)
        assert mine.dtype == dt
    for mine in (d_c, d_n):
        assert_same(mine, xt.grad.numpy(), dt)
    assert_same(y_c, y_n, dt)
    assert_same(d_c, d_n, dt)


@pytest.mark.parity
@pytest.mark.parametrize("log", [False, True])
@pytest.mark.parametrize("k", [1, 4, 15, 16, 17, 28, 31, 33, 48, 52, 63, 64, 65, 100, 127, 128, 129])
def test_softmax_short_float32_rows_match_torch(torch, log, k):
    # rows of at most 128 float32 run csrc/softmax.c's masked 16-lane path on AVX-512 (attention scores at a
    # short context, log_softmax over a small vocabulary); 129 is the general loop again. Special rows
    # included, values in float32's tolerance.
    x = RNG.standard_normal((9, k)).astype(np.float32) * 5
    if k >= 6:
        x = np.concatenate([x, _special_rows(np.float32, k)])
    with ember.no_grad():
        y = (F.log_softmax if log else F.softmax)(ember.from_numpy(x.copy()), -1).numpy()
    ref = (torch.log_softmax if log else torch.softmax)(torch.from_numpy(x.copy()), -1).numpy()
    assert_same(y, ref, np.float32)
    np.testing.assert_array_equal(np.isnan(y), np.isnan(ref))
    np.testing.assert_array_equal(y == 0, ref == 0)                  # -inf entries give exact zeros
    # a row's result does not depend on the rows around it or on how many there are
    with ember.no_grad():
        one = (F.log_softmax if log else F.softmax)(ember.from_numpy(x[3:4].copy()), -1).numpy()
    np.testing.assert_array_equal(one[0], y[3])


@needs_cc
@pytest.mark.parametrize("k", [1, 2, 5, 16, 17, 32, 64, 65, 100, 128])
def test_log_softmax_rows_in_groups_of_eight_keep_each_rows_bits(k):
    """csrc/softmax.c's log_softmax of short float32 rows eight at a time (their log(sum) in one double vector,
    lsm_log8) gives each row the bits of that row computed alone ((float)log of its sum by libm): random rows
    of many scales, rows whose sum is exactly 1 (one element far above the rest), k itself (all equal),
    near powers of two, and special rows; row counts that leave a remainder of 1-7 rows."""
    x = RNG.standard_normal((203, k)).astype(np.float32) * RNG.choice([1e-3, 1, 5, 30], (203, 1)).astype(np.float32)
    x[:8, :] = 0.0                                  # sum = k exactly
    x[8:16, 0] = 200.0                              # sum = 1: log 0
    x[16:24] = np.log(np.float32(2.0) ** RNG.integers(0, 7, (8, 1)) / k).astype(np.float32)
    if k >= 6:
        x[24:31] = _special_rows(np.float32, k)
    with ember.no_grad():
        y = F.log_softmax(ember.from_numpy(x.copy()), -1).numpy()
        alone = np.concatenate([F.log_softmax(ember.from_numpy(x[i:i + 1].copy()), -1).numpy()
                                for i in range(x.shape[0])])
        tail = F.log_softmax(ember.from_numpy(x[:13].copy()), -1).numpy()
    np.testing.assert_array_equal(y.view(np.uint32)[~np.isnan(y)], alone.view(np.uint32)[~np.isnan(y)])
    np.testing.assert_array_equal(np.isnan(y), np.isnan(alone))
    np.testing.assert_array_equal(tail, y[:13])


def _has_avx512():
    try:
        with open("/proc/cpuinfo") as f:
            flags = f.read()
    except OSError:
        return False
    return " avx512f" in flags and " fma" in flags


@needs_cc
@pytest.mark.skipif(not _has_avx512(), reason="the short-row backward path is AVX-512 only")
@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("log", [False, True])
@pytest.mark.parametrize("k", [1, 15, 16, 17, 64, 65, 100, 128])
def test_softmax_backward_short_float32_rows_have_the_documented_order(threads, log, k):
    """csrc/softmax.c's AVX-512 backward of float32 rows of at most 128: the row sum (softmax: of g * y;
    log_softmax: of g) in 16 float lanes, lane l adding j = l mod 16 in order, the lanes added pairwise
    (+8, +4, +2, +1); bit for bit at 1 and 2 threads. log_softmax's output is 0 here (exp gives 1 exactly), so
    its dx = g - sum shows the sum's bits."""
    rows = 3000                                  # enough for the C pool's parts at 2 threads
    g = RNG.standard_normal((rows, k)).astype(np.float32)
    y = np.zeros((rows, k), np.float32) if log else RNG.random((rows, k)).astype(np.float32)
    t = g if log else g * y
    sv = np.zeros((rows, 16), np.float32)
    for j0 in range(0, k, 16):
        n = min(16, k - j0)
        sv[:, :n] += t[:, j0:j0 + n]
    for s in (8, 4, 2, 1):
        sv[:, :s] += sv[:, s:2 * s]
    st = sv[:, :1]
    want = g - st if log else (g - st) * y
    old = ember.get_num_threads()
    ember.set_num_threads(threads)
    try:
        fn = ember.ops.aten._log_softmax_backward_data if log else ember.ops.aten._softmax_backward_data
        got = fn.default(ember.tensor(g), ember.tensor(y), -1, ember.float32).numpy()
    finally:
        ember.set_num_threads(old)
    np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32))


@pytest.mark.parity
@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("log", [False, True])
@pytest.mark.parametrize("shape,dim", [((5, 6, 7), 0), ((5, 6, 7), 1), ((1, 3, 1), 1), ((2, 1, 9), 1),
                                       ((300, 260), 0), ((4, 9, 33, 10), 1), ((3, 200, 130), 1), ((0, 3, 4), 1), ((50, 7, 1), 1),
                                       ("special", 0)])
def test_softmax_inner_dim_c_and_numpy_match_torch(torch, dt, log, shape, dim):
    """A dim that is not the last: the (outer, k, inner) C kernels, split over outer slabs or (one
    slab) over the inner columns."""
    x = _special_rows(dt).T.copy() if shape == "special" else RNG.standard_normal(shape).astype(dt) * 4
    g = RNG.standard_normal(x.shape).astype(dt)
    (y_c, d_c), (y_n, d_n) = both_paths(_softmax_case(x, g, log, dim))
    xt = torch.from_numpy(x.copy()).requires_grad_()
    yt = (torch.log_softmax if log else torch.softmax)(xt, dim)
    yt.backward(torch.from_numpy(g.copy()))
    for y, d in ((y_c, d_c), (y_n, d_n)):
        assert_same(y, yt.detach().numpy(), dt)
        assert_same(d, xt.grad.numpy(), dt)
    assert_same(y_c, y_n, dt)
    assert_same(d_c, d_n, dt)


@needs_cc
def test_softmax_inner_dim_uses_c(monkeypatch):
    spy = Spy(monkeypatch)
    x = ember.randn(3, 5, 4, requires_grad=True)
    F.log_softmax(x, 1).sum().backward()
    assert spy.got.get("softmax_fwd_inner_f32") and spy.got.get("softmax_bwd_inner_f32")


@pytest.mark.parametrize("dt", DTYPES)
def test_softmax_strided_input_falls_back(dt):
    x = RNG.standard_normal((5, 6, 7)).astype(dt)
    xt = ember.from_numpy(x.copy()).transpose(0, 2)          # not contiguous
    for dim in (-1, 1):
        on, off = both_paths(lambda: F.softmax(xt, dim).numpy())
        xs = np.swapaxes(x, 0, 2)
        e = np.exp(xs - xs.max(axis=dim, keepdims=True))
        assert_same(on, e / e.sum(axis=dim, keepdims=True), dt)
        assert_same(on, off, dt)


def test_softmax_float16_runs_in_float32():
    x = RNG.standard_normal((4, 9)).astype(np.float16)
    on, off = both_paths(lambda: F.softmax(ember.from_numpy(x.copy()), -1))
    assert on.dtype == ember.float16
    np.testing.assert_array_equal(on.numpy(), off.numpy())


@needs_cc
@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("log", [0, 1])
@pytest.mark.parametrize("shape,dim", [((1, 4, 4, 4), -1), ((1, 4, 4, 4), 3), ((5, 13), 1), ((1,), 0), ((3, 1), -1)])
def test_softmax_last_dim_direct_equals_general_path(monkeypatch, dt, log, shape, dim):
    from ember.kernels.cpu import softmax as S
    x = ember.from_numpy((RNG.standard_normal(shape) * 3).astype(dt))
    fast = S._last_dim_direct(x, dim, False, log)
    assert fast is not None
    monkeypatch.setattr(S, "_last_dim_direct", lambda *a: None)
    ref = (S._log_softmax if log else S._softmax)(x, dim, False)
    assert fast.shape == ref.shape and fast.dtype is ref.dtype
    np.testing.assert_array_equal(fast.numpy(), ref.numpy())


def test_softmax_last_dim_direct_declines_other_cases():
    from ember.kernels.cpu import softmax as S
    x = ember.randn(4, 6)
    assert S._last_dim_direct(x, 0, False, 0) is None                 # not the last dim
    assert S._last_dim_direct(x.t(), -1, False, 0) is None            # not contiguous
    assert S._last_dim_direct(x.half(), -1, True, 0) is None          # half_to_float
    assert S._last_dim_direct(x.half(), -1, False, 0) is None         # float16 computes in float32
    assert S._last_dim_direct(ember.randn(0, 6), -1, False, 0) is None
    assert S._last_dim_direct(ember.tensor(2.0), -1, False, 0) is None
    with pytest.raises(RuntimeError, match="only supported for Half"):
        ember.ops.aten._softmax.default(x, -1, True)


# ---------------------------------------------------------------- layer_norm

def _ln_case(x, g, k_dims, affine, mask=None):
    def run():
        xe = ember.from_numpy(x.copy()).requires_grad_()
        ns = list(x.shape[-k_dims:])
        w = b = None
        if affine in ("w", "wb"):
            w = ember.from_numpy(np.linspace(0.5, 1.5, int(np.prod(ns))).reshape(ns).astype(x.dtype)).requires_grad_()
        if affine in ("b", "wb"):
            b = ember.from_numpy(np.linspace(-1, 1, int(np.prod(ns))).reshape(ns).astype(x.dtype)).requires_grad_()
        y = F.layer_norm(xe, ns, w, b, 1e-5)
        y.backward(ember.from_numpy(g.copy()))
        return [y.detach().numpy(), xe.grad.numpy()] + [None if t is None else t.grad.numpy() for t in (w, b)]
    return run


def _ln_torch(torch, x, g, k_dims, affine):
    xt = torch.from_numpy(x.copy()).requires_grad_()
    ns = list(x.shape[-k_dims:])
    n = int(np.prod(ns))
    w = torch.linspace(0.5, 1.5, n, dtype=xt.dtype).reshape(ns).requires_grad_() if "w" in affine else None
    b = torch.linspace(-1, 1, n, dtype=xt.dtype).reshape(ns).requires_grad_() if "b" in affine else None
    y = torch.nn.functional.layer_norm(xt, ns, w, b, 1e-5)
    y.backward(torch.from_numpy(g.copy()))
    return [y.detach().numpy(), xt.grad.numpy()] + [None if t is None else t.grad.numpy() for t in (w, b)]


@pytest.mark.parity
@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("affine", ["", "w", "b", "wb"])
@pytest.mark.parametrize("shape,k_dims", [((1, 1), 1), ((3, 1), 1), ((1, 7), 1), ((5, 13), 1), ((2, 3, 37), 1),
                                          ((4, 5, 6), 2), ((0, 8), 1), ((300, 257), 1)])
def test_layer_norm_c_and_numpy_match_torch(torch, dt, affine, shape, k_dims):
    x = (RNG.standard_normal(shape) * 3 + 5).astype(dt)
    g = RNG.standard_normal(shape).astype(dt)
    on, off = both_paths(_ln_case(x, g, k_dims, affine))
    ref = _ln_torch(torch, x, g, k_dims, affine)
    tol = 1e-4 if dt == np.float32 else 1e-9
    one = x.shape[-1] == 1 and k_dims == 1
    for mine in (on, off):
        for i, (a, r) in enumerate(zip(mine, ref)):
            assert (a is None) == (r is None)
            if a is None:
                continue
            assert a.dtype == dt
            if one and i == 2:
                # one element per row: xhat is exactly 0, so dw is 0; torch's sum(dy*x) - mean*sum(dy)
                # form leaves rounding noise amplified by rstd = 1/sqrt(eps) there
                np.testing.assert_array_equal(a, 0)
                continue
            np.testing.assert_allclose(a, r, rtol=tol, atol=tol)


@pytest.mark.parametrize("dt", DTYPES)
def test_layer_norm_stats_and_masks_match_numpy_path(dt):
    x = np.concatenate([RNG.standard_normal((6, 33)), np.full((1, 33), 1e4), np.zeros((1, 33))]).astype(dt)
    x[2, 4] = np.nan
    w = ember.from_numpy(RNG.standard_normal(33).astype(dt))
    b = ember.from_numpy(RNG.standard_normal(33).astype(dt))
    g = ember.from_numpy(RNG.standard_normal(x.shape).astype(dt))
    aten = ember.ops.aten

    def run():
        xe = ember.from_numpy(x.copy())
        y, mean, rstd = aten.native_layer_norm.default(xe, [33], w, b, 1e-5)
        grads = [aten.native_layer_norm_backward.default(g, xe, [33], mean, rstd, w, b, list(mask))
                 for mask in [(True, True, True), (False, True, False), (True, False, False), (False, False, True)]]
        return [y.numpy(), mean.numpy(), rstd.numpy()] + [[None if t is None else t.numpy() for t in gr] for gr in grads]
    on, off = both_paths(run)
    for a, b_ in zip(on[:3], off[:3]):
        assert_same(a, b_, dt)
    assert np.isnan(on[0][2]).all() and np.isnan(on[1][2]) and np.isfinite(on[0][[0, 1, 3, 4, 5, 6]]).all()
    assert on[2][-1, 0] == pytest.approx(1 / np.sqrt(1e-5), rel=1e-5)     # constant row: rstd = 1/sqrt(eps)
    for ga, gb in zip(on[3:], off[3:]):
        for a, b_ in zip(ga, gb):
            assert (a is None) == (b_ is None)
            if a is not None:
                assert_same(a, b_, dt)


@needs_cc
@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("affine", ["", "w", "b", "wb"])
@pytest.mark.parametrize("shape", [(1, 1), (1, 4, 128), (3, 7), (2, 5, 33)])
def test_layer_norm_last_dim_fast_path_equals_general_c_path(monkeypatch, dt, affine, shape):
    # the small-input path (norm_rows.c_layer_norm_last_dim) runs the same C kernel as the general one:
    # output, mean and rstd (their shapes and dtypes too) are bitwise the general path's
    from ember.kernels.cpu import norm_rows
    k = shape[-1]
    x = ember.from_numpy((RNG.standard_normal(shape) * 3 + 5).astype(dt))
    w = ember.from_numpy(np.linspace(0.5, 1.5, k).astype(dt)) if "w" in affine else None
    b = ember.from_numpy(np.linspace(-1, 1, k).astype(dt)) if "b" in affine else None
    fast = norm_rows.c_layer_norm_last_dim(x, [k], w, b, 1e-5)
    assert fast is not None
    monkeypatch.setattr(norm_rows, "c_layer_norm_last_dim", lambda *a: None)
    general = ember.ops.aten.native_layer_norm.default(x, [k], w, b, 1e-5)
    for f, g in zip(fast, general):
        assert f.shape == g.shape and f.dtype == g.dtype and f.is_contiguous()
        np.testing.assert_array_equal(f.numpy(), g.numpy())


def test_layer_norm_last_dim_fast_path_declines_what_it_does_not_check():
    # every case it cannot take goes to the general path, which checks shapes and raises torch's errors
    from ember.kernels.cpu import norm_rows
    x = ember.randn(3, 8)
    w = ember.ones(8)
    fp = norm_rows.c_layer_norm_last_dim
    assert fp(x.t(), [3], None, None, 1e-5) is None                       # not contiguous
    assert fp(x.half(), [8], None, None, 1e-5) is None                    # float16 runs in float32
    assert fp(x, [3, 8], None, None, 1e-5) is None                        # two normalised dims
    assert fp(x, [4], None, None, 1e-5) is None                           # wrong normalized_shape
    assert fp(x, [8], ember.ones(4), None, 1e-5) is None                  # wrong weight shape
    assert fp(x, [8], w.double(), None, 1e-5) is None                     # weight of another dtype
    assert fp(x, [8], None, ember.ones(16)[4:12], 1e-5) is not None        # a contiguous view is fine
    assert fp(ember.randn(0, 8), [8], None, None, 1e-5) is None           # empty
    with pytest.raises(RuntimeError, match="Expected weight to be of same shape"):
        ember.ops.aten.native_layer_norm.default(x, [8], ember.ones(4), None, 1e-5)
    with pytest.raises(RuntimeError, match="expected input with shape"):
        ember.ops.aten.native_layer_norm.default(x, [4], None, None, 1e-5)


def test_address_is_the_data_pointer():
    base = np.arange(60.0).reshape(6, 10)
    class Sub(np.ndarray):
        pass
    for a in [base, base[2:], base[:, 3:], base.T, base[::2, 1::3], base[1], np.ones(1, np.float32),
              base.view(np.uint8), base[3:].view(Sub)]:
        assert clib.address(a) == a.ctypes.data


# ---------------------------------------------------------------- nll_loss / cross_entropy

@pytest.mark.parity
@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("rows,c", [(1, 1), (1, 7), (9, 13), (400, 300)])
def test_cross_entropy_c_and_numpy_match_torch(torch, dt, reduction, weighted, rows, c):
    x = (RNG.standard_normal((rows, c)) * 3).astype(dt)
    t = RNG.integers(0, c, rows)
    t[::3] = -100 if rows > 1 else t[::3]           # ignored rows
    wt = RNG.uniform(0.1, 2, c).astype(dt) if weighted else None

    def run():
        xe = ember.from_numpy(x.copy()).requires_grad_()
        w = None if wt is None else ember.from_numpy(wt.copy())
        loss = F.cross_entropy(xe, ember.from_numpy(t.copy()), weight=w, reduction=reduction)
        loss.backward(ember.from_numpy(np.linspace(0.5, 2, rows).astype(dt)) if reduction == "none" else None)
        return loss.detach().numpy(), xe.grad.numpy()
    on, off = both_paths(run)
    xt = torch.from_numpy(x.copy()).requires_grad_()
    lt = torch.nn.functional.cross_entropy(xt, torch.from_numpy(t.copy()), weight=None if wt is None else
                                           torch.from_numpy(wt.copy()), reduction=reduction)
    lt.backward(torch.from_numpy(np.linspace(0.5, 2, rows).astype(dt)) if reduction == "none" else None)
    for loss, grad in (on, off):
        assert_same(loss, lt.detach().numpy(), dt)
        assert loss.dtype == dt and loss.shape == tuple(lt.shape)
        assert_same(grad, xt.grad.numpy(), dt)


@pytest.mark.parametrize("on", [True, False])
def test_nll_bad_target_raises_and_all_ignored_mean_is_nan(on):
    x = ember.from_numpy(RNG.standard_normal((4, 5)).astype(np.float32))
    with clib.use_c(on):
        with pytest.raises(IndexError, match="Target 5 is out of bounds"):
            F.nll_loss(x, ember.from_numpy(np.array([0, 5, 1, -100])))
        with pytest.raises(IndexError, match="Target -2 is out of bounds"):
            F.nll_loss(x, ember.from_numpy(np.array([0, 1, -2, 3])))
        assert np.isnan(F.nll_loss(x, ember.from_numpy(np.full(4, -100))).item())
        assert F.nll_loss(x, ember.from_numpy(np.full(4, 7)), ignore_index=7, reduction="sum").item() == 0.0


@pytest.mark.parametrize("on", [True, False])
def test_nll_1d_input_and_uint8_target(on):
    x = RNG.standard_normal(6)
    with clib.use_c(on):
        loss = F.nll_loss(ember.from_numpy(x.copy()), ember.tensor(4))
        l8 = F.nll_loss(ember.from_numpy(np.stack([x, x])), ember.from_numpy(np.array([4, 2], np.uint8)),
                        reduction="none")
    assert loss.item() == -x[4]
    np.testing.assert_array_equal(l8.numpy(), [-x[4], -x[2]])


# ---------------------------------------------------------------- group_norm

@pytest.mark.parity
@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("affine", [False, True])
@pytest.mark.parametrize("shape,groups", [((1, 4, 1, 1), 2), ((2, 6, 5), 3), ((3, 6, 7, 5), 6), ((2, 4, 3, 3), 1),
                                          ((4, 32, 24, 24), 8)])
def test_group_norm_c_and_numpy_match_torch(torch, dt, affine, shape, groups):
    x = (RNG.standard_normal(shape) * 2 + 3).astype(dt)
    g = RNG.standard_normal(shape).astype(dt)
    c = shape[1]
    wn, bn = RNG.uniform(0.5, 1.5, c).astype(dt), RNG.standard_normal(c).astype(dt)

    def run():
        xe = ember.from_numpy(x.copy()).requires_grad_()
        w = ember.from_numpy(wn.copy()).requires_grad_() if affine else None
        b = ember.from_numpy(bn.copy()).requires_grad_() if affine else None
        y = F.group_norm(xe, groups, w, b)
        y.backward(ember.from_numpy(g.copy()))
        return [y.detach().numpy(), xe.grad.numpy()] + ([w.grad.numpy(), b.grad.numpy()] if affine else [])
    on, off = both_paths(run)
    xt = torch.from_numpy(x.copy()).requires_grad_()
    wt = torch.from_numpy(wn.copy()).requires_grad_() if affine else None
    bt = torch.from_numpy(bn.copy()).requires_grad_() if affine else None
    yt = torch.nn.functional.group_norm(xt, groups, wt, bt)
    yt.backward(torch.from_numpy(g.copy()))
    ref = [yt.detach().numpy(), xt.grad.numpy()] + ([wt.grad.numpy(), bt.grad.numpy()] if affine else [])
    tol = 2e-4 if dt == np.float32 else 1e-9
    for mine in (on, off):
        for a, r in zip(mine, ref):
            assert a.dtype == dt
            scale = max(1.0, float(np.abs(r).max()))      # dw/db: the error grows with the size of the sums
            np.testing.assert_allclose(a, r, rtol=tol, atol=tol * scale)


@pytest.mark.parametrize("dt", DTYPES)
def test_group_norm_stats_and_masks_match_numpy_path(dt):
    x = RNG.standard_normal((3, 6, 4, 4)).astype(dt)
    x[1, 2, 0, 0] = np.nan
    w = ember.from_numpy(RNG.standard_normal(6).astype(dt))
    b = ember.from_numpy(RNG.standard_normal(6).astype(dt))
    g = ember.from_numpy(RNG.standard_normal(x.shape).astype(dt))
    aten = ember.ops.aten

    def run():
        xe = ember.from_numpy(x.copy())
        y, mean, rstd = aten.native_group_norm.default(xe, w, b, 3, 6, 16, 3, 1e-5)
        out = [y.numpy(), mean.numpy(), rstd.numpy()]
        for wt in (w, None):
            for mask in [(True, True, True), (False, True, False), (True, False, False), (False, False, True)]:
                gr = aten.native_group_norm_backward.default(g, xe, mean, rstd, wt, 3, 6, 16, 3, list(mask))
                out.append([None if t is None else t.numpy() for t in gr])
        return out
    on, off = both_paths(run)
    for a, b_ in zip(on[:3], off[:3]):
        assert_same(a, b_, dt)
    assert np.isnan(on[0][1, 2:4]).all() and np.isfinite(on[0][[0, 2]]).all() and np.isfinite(on[0][1, :2]).all()
    for ga, gb in zip(on[3:], off[3:]):
        for a, b_ in zip(ga, gb):
            assert (a is None) == (b_ is None)
            if a is not None:
                assert_same(a, b_, dt)


# ---------------------------------------------------------------- batch_norm

@pytest.mark.parity
@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize("affine", [False, True])
@pytest.mark.parametrize("shape", [(1, 3, 16), (2, 3, 4, 5), (3, 5, 17), (8, 16, 12, 12), (4, 6)])
def test_batch_norm_c_and_numpy_match_torch(torch, dt, training, affine, shape):
    x = (RNG.standard_normal(shape) * 2 + 300).astype(dt)       # far from 0: one-pass stats must not cancel
    g = RNG.standard_normal(shape).astype(dt)
    c = shape[1]
    wn, bn = RNG.uniform(0.5, 1.5, c).astype(dt), RNG.standard_normal(c).astype(dt)
    rm0, rv0 = RNG.standard_normal(c).astype(dt) + 300, RNG.uniform(1, 5, c).astype(dt)

    def run():
        xe = ember.from_numpy(x.copy()).requires_grad_()
        w = ember.from_numpy(wn.copy()).requires_grad_() if affine else None
        b = ember.from_numpy(bn.copy()).requires_grad_() if affine else None
        rm, rv = ember.from_numpy(rm0.copy()), ember.from_numpy(rv0.copy())
        y = F.batch_norm(xe, rm, rv, w, b, training=training, momentum=0.2)
        y.backward(ember.from_numpy(g.copy()))
        out = [y.detach().numpy(), xe.grad.numpy(), rm.numpy(), rv.numpy()]
        return out + ([w.grad.numpy(), b.grad.numpy()] if affine else [])
    on, off = both_paths(run)
    xt = torch.from_numpy(x.copy()).requires_grad_()
    wt = torch.from_numpy(wn.copy()).requires_grad_() if affine else None
    bt = torch.from_numpy(bn.copy()).requires_grad_() if affine else None
    rmt, rvt = torch.from_numpy(rm0.copy()), torch.from_numpy(rv0.copy())
    yt = torch.nn.functional.batch_norm(xt, rmt, rvt, wt, bt, training=training, momentum=0.2)
    yt.backward(torch.from_numpy(g.copy()))
    ref = [yt.detach().numpy(), xt.grad.numpy(), rmt.numpy(), rvt.numpy()]
    ref += [wt.grad.numpy(), bt.grad.numpy()] if affine else []
    tol = 2e-4 if dt == np.float32 else 1e-9
    for mine in (on, off):
        for a, r in zip(mine, ref):
            assert a.dtype == dt
            scale = max(1.0, float(np.abs(r).max()))      # dw/db: the error grows with the size of the sums
            np.testing.assert_allclose(a, r, rtol=tol, atol=tol * scale)


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("train", [True, False])
def test_batch_norm_backward_masks_match_numpy_path(dt, train):
    x = ember.from_numpy(RNG.standard_normal((3, 4, 20)).astype(dt))
    g = ember.from_numpy(RNG.standard_normal((3, 4, 20)).astype(dt))
    w = ember.from_numpy(RNG.standard_normal(4).astype(dt))
    rm, rv = ember.from_numpy(RNG.standard_normal(4).astype(dt)), ember.from_numpy(RNG.uniform(1, 2, 4).astype(dt))
    aten = ember.ops.aten

    def run():
        _, sm, si = aten.native_batch_norm.default(x, w, None, rm.clone(), rv.clone(), train, 0.1, 1e-5)
        out = [sm.numpy(), si.numpy()]
        for wt in (w, None):
            for mask in [(True, True, True), (False, True, False), (True, False, False), (False, False, True)]:
                gr = aten.native_batch_norm_backward.default(g, x, wt, rm, rv, sm, si, train, 1e-5, list(mask))
                out.append([None if t is None else t.numpy() for t in gr])
        return out
    on, off = both_paths(run)
    for a, b_ in zip(on[:2], off[:2]):
        assert_same(a, b_, dt)
    for ga, gb in zip(on[2:], off[2:]):
        for a, b_ in zip(ga, gb):
            assert (a is None) == (b_ is None)
            if a is not None:
                assert_same(a, b_, dt)


@needs_cc
def test_batch_norm_uses_c_for_images_and_numpy_for_features(monkeypatch):
    spy = Spy(monkeypatch)
    F.batch_norm(ember.randn(4, 6), None, None, training=True)
    assert "batch_norm_stats_f32" not in spy.got
    x = ember.randn(2, 3, 4, 4, requires_grad=True)
    F.batch_norm(x, None, None, training=True).sum().backward()
    assert spy.got.get("batch_norm_stats_f32") and spy.got.get("channel_affine_f32")
    assert spy.got.get("batch_norm_bwd_stats_f32") and spy.got.get("channel_bwd_f32")


@pytest.mark.parity
@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("shape", [(2, 5, 3, 4), (1, 1, 2, 2), (3, 4, 7), (2, 3, 2, 3, 4), (4, 21, 30, 30)])
def test_spatial_cross_entropy_c_and_numpy_match_torch(torch, dt, reduction, weighted, shape):
    """nll_loss2d (and the >2-D inputs reshaped onto it): classes along dim 1, C kernel with inner = H*W."""
    x = (RNG.standard_normal(shape) * 3).astype(dt)
    c = shape[1]
    t = RNG.integers(0, c, (shape[0],) + shape[2:])
    t.reshape(-1)[::5] = 255
    wt = RNG.uniform(0.1, 2, c).astype(dt) if weighted else None
    go = RNG.uniform(0.5, 2, t.shape).astype(dt)

    def run():
        xe = ember.from_numpy(x.copy()).requires_grad_()
        w = None if wt is None else ember.from_numpy(wt.copy())
        loss = F.cross_entropy(xe, ember.from_numpy(t.copy()), weight=w, reduction=reduction, ignore_index=255)
        loss.backward(ember.from_numpy(go.copy()) if reduction == "none" else None)
        return loss.detach().numpy(), xe.grad.numpy()
    on, off = both_paths(run)
    xt = torch.from_numpy(x.copy()).requires_grad_()
    lt = torch.nn.functional.cross_entropy(xt, torch.from_numpy(t.copy()), weight=None if wt is None else
                                           torch.from_numpy(wt.copy()), reduction=reduction, ignore_index=255)
    lt.backward(torch.from_numpy(go.copy()) if reduction == "none" else None)
    tol = 1e-4 if dt == np.float32 else 1e-10
    for loss, grad in (on, off):
        np.testing.assert_allclose(loss, lt.detach().numpy(), rtol=tol, atol=tol)
        assert loss.dtype == dt and loss.shape == tuple(lt.shape)
        np.testing.assert_allclose(grad, xt.grad.numpy(), rtol=tol, atol=tol)


@pytest.mark.parametrize("on", [True, False])
def test_nll2d_bad_target_raises(on):
    x = ember.from_numpy(RNG.standard_normal((2, 3, 2, 2)).astype(np.float32))
    t = np.zeros((2, 2, 2), np.int64)
    t[1, 0, 1] = 3
    with clib.use_c(on):
        with pytest.raises(IndexError, match="Target 3 is out of bounds"):
            F.nll_loss(x, ember.from_numpy(t))


@needs_cc
def test_spatial_nll_uses_c(monkeypatch):
    spy = Spy(monkeypatch)
    x = ember.randn(2, 3, 4, 4, requires_grad=True)
    F.cross_entropy(x, ember.from_numpy(np.ones((2, 4, 4), np.int64))).backward()
    assert spy.got.get("nll_fwd_f32") and spy.got.get("nll_bwd_f32") and spy.got.get("softmax_fwd_inner_f32")


@needs_cc
@pytest.mark.parametrize("log", [False, True])
def test_softmax_long_float32_row_keeps_float32_accuracy(log):
    """Row sums add float-lane block sums in double: a 2M-element float32 row stays accurate."""
    x = RNG.uniform(-1, 1, (1, 1 << 21)).astype(np.float32)
    with clib.use_c(True):
        y = (F.log_softmax if log else F.softmax)(ember.from_numpy(x.copy()), -1).numpy()
    xd = x.astype(np.float64)
    e = np.exp(xd - xd.max())
    ref = np.log(e / e.sum()) if log else e / e.sum()
    np.testing.assert_allclose(y, ref, rtol=2e-6, atol=0)


@pytest.mark.parity
@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("log", [False, True])
@pytest.mark.parametrize("dim", [0, 1])
def test_softmax_strided_2d_forward_and_backward_match_torch(torch, dt, log, dim):
    """A transposed (non-contiguous) matrix takes the numpy paths with C on and off, whose 2-D blocks are
    reduced along either dim; the backward also with a grad that is contiguous while the output is not,
    and with a stride-0 (broadcast) grad."""
    a = RNG.standard_normal((7, 5)).astype(dt)
    w = RNG.standard_normal((5, 7)).astype(dt)
    fn = "log_softmax" if log else "softmax"

    def run(lib, grad_kind):
        x = lib.tensor(a).t().requires_grad_()
        y = getattr(lib, fn)(x, dim)
        if grad_kind == "dense":
            (y * lib.tensor(w)).sum().backward()
        else:                                   # d(sum over the other dim) * w: an expanded grad
            (y.sum(1 - dim) * lib.tensor(w[:, 0] if dim == 0 else w[0])).sum().backward()
        return y.detach().numpy(), x.grad.numpy()

    for kind in ("dense", "broadcast"):
        want = run(torch, kind)
        on, off = both_paths(lambda: run(ember, kind))
        for got in (on, off):
            for g, t in zip(got, want):
                assert_same(g, t, dt)


@pytest.mark.parity
@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("log", [False, True])
def test_softmax_backward_data_with_mixed_layouts_matches_torch(torch, dt, log):
    """_softmax_backward_data / _log_softmax_backward_data called with one of grad_output and output
    transposed (non-contiguous) and the other contiguous, over the last dim and dim 0, C on and off."""
    name = "_log_softmax_backward_data" if log else "_softmax_backward_data"
    g, y = RNG.standard_normal((6, 4)).astype(dt), RNG.random((6, 4)).astype(dt)
    tdt = getattr(torch, np.dtype(dt).name)
    for dim in (-1, 0):
        for g_t, y_t in ((True, False), (False, True)):
            def args(lib, tensor):
                gg = tensor(g.T.copy()).t() if g_t else tensor(g)
                yy = tensor(y.T.copy()).t() if y_t else tensor(y)
                return gg, yy
            want = getattr(torch.ops.aten, name)(*args(torch, torch.tensor), dim, tdt).numpy()
            edt = getattr(ember, np.dtype(dt).name)
            on, off = both_paths(lambda: getattr(ember.ops.aten, name)(*args(ember, ember.tensor), dim, edt).numpy())
            assert_same(on, want, dt)
            assert_same(off, want, dt)


@pytest.mark.parity
@pytest.mark.parametrize("log", [False, True])
def test_softmax_large_strided_input_split_over_threads_matches_torch(torch, log):
    """A non-contiguous input above split_run's size threshold: the numpy paths split the work over threads
    along a dim other than the softmax dim (forward and backward), C on and off."""
    a = RNG.standard_normal((40, 90, 80))
    w = RNG.standard_normal((80, 90, 40))
    fn = "log_softmax" if log else "softmax"

    def run(lib):
        x = lib.tensor(a).permute(2, 1, 0).requires_grad_()     # (80, 90, 40), not contiguous
        y = getattr(lib, fn)(x, 0)
        (y * lib.tensor(w)).sum().backward()
        return y.detach().numpy(), x.grad.numpy()

    want = run(torch)
    for got in both_paths(lambda: run(ember)):
        for g, t in zip(got, want):
            assert_same(g, t, np.float64)


def _record(monkeypatch, module, name):
    """The results of module.name (a pool entry of the row kernels) from here on, appended as they return."""
    seen = []
    real = getattr(module, name)

    def spy(*args):
        r = real(*args)
        seen.append(r)
        return r
    monkeypatch.setattr(module, name, spy)
    return seen


@needs_cc
@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("shape", [(16, 4, 64, 64), (1024, 65), (3, 20000), (700, 129)])
def test_softmax_rows_on_the_c_pool_give_one_calls_bits(monkeypatch, dt, shape):
    """(log_)softmax over the last dim and its backward from softmax._POOL_MIN elements run csrc/softmax.c's
    row parts on ember's C pool when there are 2+ threads: the bits of the one-thread call, forward and
    backward."""
    from ember.kernels.cpu import softmax as S
    seen = _record(monkeypatch, S, "_pool_rows")
    x = RNG.standard_normal(shape).astype(dt) * 4
    g = RNG.standard_normal(shape).astype(dt)
    old = ember.get_num_threads()
    res = []
    try:
        for nt in (1, 2, 3):
            ember.set_num_threads(nt)
            out = []
            for fn in (F.softmax, F.log_softmax):
                t = ember.tensor(x, requires_grad=True)
                y = fn(t, -1)
                y.backward(ember.tensor(g))
                out += [y.detach().numpy(), t.grad.numpy()]
            res.append(out)
    finally:
        ember.set_num_threads(old)
    for got in res[1:]:
        for a, b in zip(res[0], got):
            np.testing.assert_array_equal(a.view(np.uint8), b.view(np.uint8))
    assert seen.count(True) == 8           # 2 and 3 threads: softmax and log_softmax, forward and backward


@needs_cc
@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("affine", ["", "w", "b", "wb"])
@pytest.mark.parametrize("shape", [(16, 64, 128), (1024, 130), (40000, 1), (33, 1000)])
def test_layer_norm_on_the_c_pool_gives_one_calls_bits(monkeypatch, dt, affine, shape):
    """layer_norm over the last dim from norm_rows._LN_POOL_MIN elements runs csrc/norm.c's forward part on
    ember's C pool when there are 2+ threads: the output and the gradients have the one-thread call's bits."""
    from ember.kernels.cpu import norm_rows as N
    seen = _record(monkeypatch, N, "_ln_pool")
    x = RNG.standard_normal(shape).astype(dt) * 3 + 1
    g = RNG.standard_normal(shape).astype(dt)
    w0, b0 = RNG.standard_normal(shape[-1:]).astype(dt), RNG.standard_normal(shape[-1:]).astype(dt)
    old = ember.get_num_threads()
    res = []
    try:
        for nt in (1, 2, 3):
            ember.set_num_threads(nt)
            t = ember.tensor(x, requires_grad=True)
            w = ember.tensor(w0, requires_grad=True) if "w" in affine else None
            b = ember.tensor(b0, requires_grad=True) if "b" in affine else None
            y = F.layer_norm(t, shape[-1:], w, b)
            y.backward(ember.tensor(g))
            res.append([y.detach().numpy(), t.grad.numpy()] + [p.grad.numpy() for p in (w, b) if p is not None])
    finally:
        ember.set_num_threads(old)
    for got in res[1:]:
        for a, b in zip(res[0], got):
            np.testing.assert_array_equal(a.view(np.uint8), b.view(np.uint8))
    # 2 and 3 threads: the forward; a float32 backward too (csrc/norm.c's row-block parts)
    assert seen.count(True) == (4 if dt == np.float32 else 2)


def _ln_bwd_f32_reference(g, x, mean, rstd, w):
    """csrc/norm.c's documented float32 layer_norm backward order, in numpy: row sums in 32 float lanes (lane l
    adds the elements j = l mod 32 in order), the lanes added pairwise (+16, +8, +4, +2, +1); dw/db summed in
    float over blocks of 16 rows in row order, the block sums added in double in block order."""
    f = np.float32
    rows, k = x.shape
    gw = g * w if w is not None else g
    xh = (x - mean[:, None]) * rstd[:, None]
    la, lc = np.zeros((rows, 32), f), np.zeros((rows, 32), f)
    for j0 in range(0, k, 32):
        n = min(32, k - j0)
        la[:, :n] += gw[:, j0:j0 + n]
        lc[:, :n] += gw[:, j0:j0 + n] * xh[:, j0:j0 + n]
    for s in (16, 8, 4, 2, 1):
        la[:, :s] += la[:, s:2 * s]
        lc[:, :s] += lc[:, s:2 * s]
    am, cm = la[:, :1] / f(k), lc[:, :1] / f(k)
    dx = rstd[:, None] * ((gw - am) - xh * cm)
    dw, db = np.zeros(k), np.zeros(k)
    for r0 in range(0, rows, 16):
        pw, pb = np.zeros(k, f), np.zeros(k, f)
        for r in range(r0, min(rows, r0 + 16)):
            pw += g[r] * xh[r]
            pb += g[r]
        dw += pw
        db += pb
    return dx, dw.astype(f), db.astype(f)


@needs_cc
@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("affine", [False, True])
@pytest.mark.parametrize("shape", [(70, 1), (5, 31), (33, 33), (1024, 128), (40, 1000), (300, 130)])
def test_layer_norm_float32_backward_has_the_documented_order(threads, affine, shape):
    """The float32 layer_norm backward sums in float lanes and row blocks in one fixed order (csrc/norm.c's
    layer_norm_bwd_f32, torch's float accumulation), at 1 and 2 threads alike: bit for bit that order."""
    aten = ember.ops.aten
    x = (RNG.standard_normal(shape) * 3 + 1).astype(np.float32)
    g = RNG.standard_normal(shape).astype(np.float32)
    w = RNG.standard_normal(shape[-1]).astype(np.float32) if affine else None
    old = ember.get_num_threads()
    ember.set_num_threads(threads)
    try:
        xe = ember.tensor(x)
        we = None if w is None else ember.tensor(w)
        _, mean, rstd = aten.native_layer_norm.default(xe, [shape[-1]], we, we, 1e-5)
        dx, dw, db = aten.native_layer_norm_backward.default(ember.tensor(g), xe, [shape[-1]], mean, rstd, we, we,
                                                             [True, True, True])
    finally:
        ember.set_num_threads(old)
    rdx, rdw, rdb = _ln_bwd_f32_reference(g, x, mean.numpy().reshape(-1), rstd.numpy().reshape(-1), w)
    np.testing.assert_array_equal(dx.numpy().view(np.uint32), rdx.view(np.uint32))
    if affine:
        np.testing.assert_array_equal(dw.numpy().view(np.uint32), rdw.view(np.uint32))
        np.testing.assert_array_equal(db.numpy().view(np.uint32), rdb.view(np.uint32))


@pytest.mark.parity
@pytest.mark.parametrize("threads", [1, 2])
def test_gpt_sized_layer_norm_and_softmax_match_torch(torch, threads):
    """A GPT block's (16, 64, 128) layer norm and (16, 4, 64, 64) attention softmax, forward and gradients,
    against torch at 1 and 2 threads (the C pool's parts at 2)."""
    old = ember.get_num_threads()
    ember.set_num_threads(threads)
    try:
        x = RNG.standard_normal((16, 64, 128)).astype(np.float32)
        gx = RNG.standard_normal((16, 64, 128)).astype(np.float32)
        s = RNG.standard_normal((16, 4, 64, 64)).astype(np.float32)
        gs = RNG.standard_normal((16, 4, 64, 64)).astype(np.float32)
        w0, b0 = RNG.standard_normal(128).astype(np.float32), RNG.standard_normal(128).astype(np.float32)
        outs = []
        for lib in (ember, torch):
            t = lib.tensor(x, requires_grad=True)
            w, b = lib.tensor(w0, requires_grad=True), lib.tensor(b0, requires_grad=True)
            y = lib.nn.functional.layer_norm(t, (128,), w, b)
            y.backward(lib.tensor(gx))
            a = lib.tensor(s, requires_grad=True)
            p = lib.softmax(a, -1)
            p.backward(lib.tensor(gs))
            outs.append([y.detach().numpy(), t.grad.numpy(), w.grad.numpy(), b.grad.numpy(), p.detach().numpy(),
                         a.grad.numpy()])
        for i, (got, want) in enumerate(zip(*outs)):
            if i in (2, 3):
                # dw, db: sums over 1024 rows, which torch adds in float in row order (its error against the
                # float64 sum reaches 1.2e-4 on such data; ember's float blocks 1.1e-5): ember against that
                # float64 sum at the tolerance, against torch within torch's own error
                xd = x.astype(np.float64)
                xh = (xd - xd.mean(-1, keepdims=True)) / np.sqrt(xd.var(-1, keepdims=True) + 1e-5)
                exact = (gx * xh if i == 2 else gx.astype(np.float64)).sum((0, 1))
                np.testing.assert_allclose(got, exact, rtol=2e-5, atol=2e-5)
                np.testing.assert_allclose(got, want, rtol=2e-5, atol=2e-4)
            else:
                np.testing.assert_allclose(got, want, rtol=2e-5, atol=2e-5)
    finally:
        ember.set_num_threads(old)


@needs_cc
@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("log", [False, True])
@pytest.mark.parametrize("shape", [(3, 7), (16, 4, 64, 64), (600, 65)])
def test_softmax_backward_direct_path_equals_general_path(monkeypatch, threads, dt, log, shape):
    """softmax.py's _backward_last_dim_direct (contiguous arrays of one dtype, last dim) runs the kernel the
    general path runs on the same rows: the same bits, and it is really taken."""
    from ember.kernels.cpu import softmax as S
    g = RNG.standard_normal(shape).astype(dt)
    y = (RNG.standard_normal(shape) if log else RNG.random(shape)).astype(dt)
    fn = S._log_softmax_backward_data if log else S._softmax_backward_data
    old = ember.get_num_threads()
    ember.set_num_threads(threads)
    try:
        assert S._backward_last_dim_direct(ember.tensor(g), ember.tensor(y), -1, int(log)) is not None
        fast = fn(ember.tensor(g), ember.tensor(y), -1, None).numpy()
        monkeypatch.setattr(S, "_backward_last_dim_direct", lambda *a: None)
        general = fn(ember.tensor(g), ember.tensor(y), -1, None).numpy()
    finally:
        ember.set_num_threads(old)
    np.testing.assert_array_equal(fast.view(np.uint8), general.view(np.uint8))
    assert S._backward_last_dim_direct(ember.tensor(g), ember.tensor(y.astype(np.float16)), -1, 0) is None
    assert S._backward_last_dim_direct(ember.tensor(g[..., :1]), ember.tensor(y), -1, 0) is None
