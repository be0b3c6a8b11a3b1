"""csrc/gelu.c (GELU forward/backward, both approximations) against its numpy fallback, a float64
reference and torch, on odd sizes and special values; the C path must actually be used."""
import numpy as np
import pytest

import ember
from ember import _cc
from ember.kernels.cpu import activation
from ember.kernels.cpu.runtime import clib

F = ember.nn.functional
APPROX = ["none", "tanh"]
SPECIAL = [0.0, -0.0, 1e-45, -1e-45, 3e-39, 1e13, -1e13, 2e19, -2e19, np.inf, -np.inf, np.nan,
           -50.0, 50.0, -9.0, -13.0, -20.0, 5.0, -5.0, 0.7, -0.75]


def _ref(x, approximate, grad=None):
    """float64 values through the numpy formulas (C off), the reference for the float32 paths."""
    with clib.use_c(False):
        x64 = np.asarray(x, np.float64)
        if grad is None:
            return activation._gelu(x64, approximate)
        return activation._gelu_backward_np(np.asarray(grad, np.float64), x64, approximate)


def _both(fn):
    with clib.use_c(True):
        c = fn()
    with clib.use_c(False):
        n = fn()
    return c, n


@pytest.mark.skipif(not _cc.available(), reason="no C compiler")
def test_kernel_is_used():
    for name in ("gelu_f32", "gelu_backward_f32", "gelu_f64", "gelu_backward_f64"):
        assert clib.kernel("gelu", name, "pppli" if "backward" in name else "ppli") is not None
    calls = []
    real = clib.kernel

    def spy(*a, **k):
        calls.append(a[:2])
        return real(*a, **k)
    clib.kernel = spy
    try:
        F.gelu(ember.randn(5))
    finally:
        clib.kernel = real
    assert ("gelu", "gelu_f32") in calls


@pytest.mark.parametrize("approximate", APPROX)
@pytest.mark.parametrize("n", [0, 1, 7, 8, 9, 33, 1000, 70001])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_c_matches_numpy_and_reference(approximate, n, dtype):
    rng = np.random.default_rng(n)
    x = (rng.standard_normal(n) * 4).astype(dtype)
    g = rng.standard_normal(n).astype(dtype)
    (fc, bc), (fn, bn) = _both(lambda: (activation._gelu(x, approximate),
                                        activation._gelu_backward_np(g, x, approximate)))
    for r in (fc, bc) if _cc.available() else ():
        assert r.dtype == dtype and r.shape == (n,)     # (numpy's tanh path computes float32 in float64)
    tol = dict(rtol=2e-6, atol=2e-6) if dtype == np.float32 else dict(rtol=1e-13, atol=1e-13)   # (tanh form: 1 + tanh cancels, as in torch)
    np.testing.assert_allclose(fc, _ref(x, approximate), **tol)
    np.testing.assert_allclose(bc, _ref(x, approximate, g), **tol)
    # the numpy fallback computes float32 in torch's form, whose 1 + tanh / 1 - tanh^2 cancel near the tails
    loose = dict(rtol=2e-6, atol=1e-5) if dtype == np.float32 else tol
    np.testing.assert_allclose(fn, _ref(x, approximate), **loose)
    np.testing.assert_allclose(bn, _ref(x, approximate, g), **loose)


@pytest.mark.skipif(not _cc.available(), reason="no C compiler")
@pytest.mark.parametrize("approximate", APPROX)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_split_over_threads_is_identical(monkeypatch, approximate, dtype):
    rng = np.random.default_rng(5)
    x = (rng.standard_normal(10007) * 3).astype(dtype)
    g = rng.standard_normal(10007).astype(dtype)
    whole = activation._gelu(x, approximate), activation._gelu_backward_np(g, x, approximate)
    monkeypatch.setattr(activation, "_C_MIN_SPLIT", 100)
    split = activation._gelu(x, approximate), activation._gelu_backward_np(g, x, approximate)
    for a, b in zip(whole, split):
        np.testing.assert_array_equal(a, b)


@pytest.mark.skipif(not _cc.available(), reason="no C compiler")
@pytest.mark.parametrize("approximate", APPROX)
def test_float32_accuracy_dense(approximate):
    x = np.linspace(-12, 12, 240001).astype(np.float32)
    with clib.use_c(True):
        f = activation._gelu(x, approximate)
        b = activation._gelu_backward_np(np.ones_like(x), x, approximate)
    # absolute error within a couple of float32 ulps of the value's scale (|gelu| <= |x|, |gelu'| < 1.13)
    scale = np.maximum(np.abs(x), 1).astype(np.float64)
    assert (np.abs(f - _ref(x, approximate)) / scale).max() < 2.5e-7
    assert np.abs(b - _ref(x, approximate, np.ones_like(x))).max() < 4e-7


def test_float32_lower_tail_keeps_relative_accuracy():
    x = np.linspace(-12, -3, 9001).astype(np.float32)
    with clib.use_c(True):
        f = activation._gelu(x, "none")
    from ember.kernels.cpu.elementwise_special import erfc
    ref = x.astype(np.float64) * 0.5 * erfc(-x.astype(np.float64) / np.sqrt(2.0))
    assert (np.abs(f - ref) / np.abs(ref)).max() < 5e-5


@pytest.mark.parity
@pytest.mark.parametrize("approximate", APPROX)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_special_values_match_torch(approximate, dtype):
    """Finite special values only: torch's vectorised float32 gelu(+inf) depends on the CPU (NaN with
    AVX-512, +inf with AVX2), so non-finite inputs are checked against ember's own definition in
    test_non_finite_values_follow_the_formula instead."""
    torch = pytest.importorskip("torch")
    x = np.array([v for v in SPECIAL if np.isfinite(v)], dtype=dtype)
    tx = torch.tensor(x, requires_grad=True)
    ty = torch.nn.functional.gelu(tx, approximate=approximate)
    ty.backward(torch.ones_like(tx))
    for on in (True, False):
        keep = np.ones(x.shape, bool)
        if approximate == "tanh" and not (on and _cc.available()):
            keep = ~(np.abs(x) > 1e19)      # the numpy fallback computes in float64: x^2 does not overflow there
        tx_grad, ty_val = tx.grad.numpy()[keep], ty.detach().numpy()[keep]
        with clib.use_c(on):
            ex = ember.tensor(x[keep], requires_grad=True)
            ey = F.gelu(ex, approximate=approximate)
            ey.backward(ember.ones_like(ex))
        # torch's float32 erf form cancels in the lower tail (1 + erf -> 0: about 6e-8 |x| absolute error),
        # ours keeps the tail's relative accuracy, so float32 compares with an absolute floor
        atol = 1e-6 if dtype == "float32" else 1e-15
        np.testing.assert_allclose(ey.detach().numpy(), ty_val, rtol=1e-6, atol=atol)
        np.testing.assert_allclose(ex.grad.numpy(), tx_grad, rtol=1e-6, atol=atol)
        assert (np.isnan(ey.detach().numpy()) == np.isnan(ty_val)).all()
        assert (np.isnan(ex.grad.numpy()) == np.isnan(tx_grad)).all()


def _formula(x, approximate):
    """gelu and its derivative at one Python float, evaluated term by term in IEEE arithmetic
    (torch's scalar formulas): +inf -> (inf, nan), -inf -> (nan, nan), nan -> (nan, nan)."""
    import math
    if approximate == "none":
        cdf = 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))
        pdf = math.exp(-0.5 * x * x) / math.sqrt(2.0 * math.pi) if not math.isinf(x) else 0.0
        return x * cdf, cdf + x * pdf
    k = math.sqrt(2.0 / math.pi)
    inner = k * (x + 0.044715 * x ** 3) if not math.isinf(x) else x
    t = math.tanh(inner)
    return 0.5 * x * (1.0 + t), 0.5 * (1.0 + t) + 0.5 * x * (1.0 - t * t) * k * (1.0 + 3 * 0.044715 * x * x)


@pytest.mark.parametrize("approximate", APPROX)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_non_finite_values_follow_the_formula(approximate, dtype):
    """ember's documented gelu at +-inf and NaN, on the C and numpy paths: the formula evaluated in IEEE
    arithmetic, so gelu(+inf) = +inf, gelu(-inf) = -inf * 0 = NaN, and both derivatives are NaN (inf * 0)."""
    x = np.array([np.inf, -np.inf, np.nan], dtype=dtype)
    expected = [_formula(float(v), approximate) for v in x]
    for on in (True, False):
        with clib.use_c(on):
            ex = ember.tensor(x, requires_grad=True)
            ey = F.gelu(ex, approximate=approximate)
            ey.backward(ember.ones_like(ex))
        np.testing.assert_array_equal(ey.detach().numpy(), np.array([e[0] for e in expected], dtype))
        np.testing.assert_array_equal(ex.grad.numpy(), np.array([e[1] for e in expected], dtype))


@pytest.mark.parity
@pytest.mark.parametrize("approximate", APPROX)
def test_layout_and_halves_match_torch(approximate):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(3)
    x = (rng.standard_normal((6, 9)) * 3).astype(np.float32)
    g = rng.standard_normal((6, 9)).astype(np.float32)
    for on in (True, False):
        with clib.use_c(on):
            ex = ember.tensor(x).t()                            # non-contiguous input
            assert F.gelu(ex, approximate=approximate).stride() == torch.nn.functional.gelu(
                torch.tensor(x).t(), approximate=approximate).stride()
            np.testing.assert_allclose(F.gelu(ex, approximate=approximate).numpy(),
                                       torch.nn.functional.gelu(torch.tensor(x).t(), approximate=approximate).numpy(),
                                       rtol=1e-6, atol=1e-6)
            eb = ember.ops.aten.gelu_backward.default(ember.tensor(g), ember.tensor(x).t().contiguous().t(),
                                                      approximate=approximate)
            tb = torch.ops.aten.gelu_backward.default(torch.tensor(g), torch.tensor(x).t().contiguous().t(),
                                                      approximate=approximate)
            np.testing.assert_allclose(eb.numpy(), tb.numpy(), rtol=1e-6, atol=1e-6)
            for et, tt in ((ember.float16, torch.float16), (ember.bfloat16, torch.bfloat16)):
                eh = F.gelu(ember.tensor(x).to(et), approximate=approximate)
                th = torch.nn.functional.gelu(torch.tensor(x).to(tt), approximate=approximate)
                assert eh.dtype == et
                np.testing.assert_allclose(eh.float().numpy(), th.float().numpy(), rtol=1e-2, atol=1e-2)


@pytest.mark.skipif(not _cc.available(), reason="no C compiler")
@pytest.mark.parametrize("dt", [np.float32, np.float64])
@pytest.mark.parametrize("approximate", APPROX)
@pytest.mark.parametrize("shape", [(0,), (1, 4, 512), (7, 3), ()])
def test_direct_gelu_equals_general_path(dt, approximate, shape):
    # activation.gelu (the registered functional) calls the C kernel directly for a small contiguous input:
    # bitwise the general path's (make_unary_p over _gelu, the same kernel on the same array)
    x = ember.from_numpy(np.asarray(np.random.default_rng(1).standard_normal(shape) * 4, dt))
    fast = activation.gelu(x, approximate)
    ref = activation._gelu_general(x, approximate=approximate)
    assert fast.shape == ref.shape and fast.dtype is ref.dtype and fast.is_contiguous()
    np.testing.assert_array_equal(fast.numpy(), ref.numpy())


def test_direct_gelu_leaves_other_cases_to_the_general_path():
    x = ember.randn(6, 5)
    with pytest.raises(RuntimeError, match="approximate argument must be either none or tanh"):
        activation.gelu(x, "fast")
    strided = x.t()
    np.testing.assert_array_equal(activation.gelu(strided).numpy(), F.gelu(strided.contiguous()).numpy())
    h = activation.gelu(x.half())
    assert h.dtype is ember.float16
    with pytest.raises(RuntimeError, match="not implemented for 'Long'"):
        F.gelu(ember.arange(3))


@pytest.mark.skipif(not _cc.available(), reason="no C compiler")
def test_erf_form_bits_do_not_depend_on_neighbours():
    """csrc/gelu.c runs blocks of 16 whose elements are all inside |x| < 3 through the polynomial only:
    an element's bits must still be the per-element choice's, whatever its block holds."""
    rng = np.random.default_rng(11)
    x = (rng.standard_normal(4096) * 1.2).astype(np.float32)
    g = rng.standard_normal(4096).astype(np.float32)
    far = x.copy()
    far[5::16] = 7.5                        # one element of every block outside the central range
    far[9::32] = np.nan
    with clib.use_c(True):
        outs = [(activation._gelu(a, "none"), activation._gelu_backward_np(g, a, "none")) for a in (x, far)]
        single = [(activation._gelu(x[i:i + 1], "none"), activation._gelu_backward_np(g[i:i + 1], x[i:i + 1], "none"))
                  for i in range(0, 4096, 97)]
    keep = (np.arange(4096) % 16 != 5) & (np.arange(4096) % 32 != 9)
    for k in (0, 1):
        np.testing.assert_array_equal(outs[0][k][keep], outs[1][k][keep])
        np.testing.assert_array_equal(outs[0][k][::97], np.concatenate([s[k] for s in single]))


@pytest.mark.parity
@pytest.mark.skipif(not _cc.available(), reason="no C compiler")
def test_erf_form_ulps_against_float64_and_torch():
    """Every float32 in [-3, 3] at step 2^-14 and a sweep of [-12, 12]: ember's erf-form GELU within the ulps
    gelu_math.h documents of the float64 value, and within torch's own error in each range (torch's float32
    1 + erf cancels below -3: ember keeps relative accuracy there)."""
    torch = pytest.importorskip("torch")
    x = np.concatenate([np.arange(-3 * 2 ** 14, 3 * 2 ** 14 + 1) / 2 ** 14, np.linspace(-12, 12, 200001)])
    x = x.astype(np.float32)
    xd = x.astype(np.float64)
    from ember.kernels.cpu.elementwise_special import erfc
    ref = xd * 0.5 * erfc(-xd / np.sqrt(2.0))      # no 1 + erf cancellation in the float64 reference
    with clib.use_c(True):
        got = activation._gelu(x, "none").astype(np.float64)
    want = torch.nn.functional.gelu(torch.from_numpy(x)).numpy().astype(np.float64)
    ulp = np.spacing(np.abs(ref).astype(np.float32)).astype(np.float64)
    mine, theirs = np.abs(got - ref) / ulp, np.abs(want - ref) / ulp
    # (the tail bound allows a cpu without FMA: gm_gauss then rounds x^2 uncorrected, 72 ulp at most)
    for lo, hi, bound in ((-12.5, -3, 80), (-3, -1, 400), (-1, 3, 4), (3, 12.5, 4)):
        m = (xd >= lo) & (xd < hi)
        assert mine[m].max() <= bound
        assert mine[m].max() <= max(theirs[m].max(), 4)
