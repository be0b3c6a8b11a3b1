"""csrc/taps.c (grid_sample's channel loops: gather, scatter, per-tap dot) against the numpy path and
torch: every interpolation and padding mode, align_corners, points outside the input, inf/NaN in the
input (an outside tap must not read it), empty sizes; the C path is used for first-order backward and
the ember-op formula still gives double backward."""
import itertools

import numpy as np
import pytest

import ember
from ember import _cc
from ember.kernels.cpu.runtime import clib
from ember.kernels.cpu import interpolate_taps

F = ember.nn.functional
needs_c = pytest.mark.skipif(not _cc.available(), reason="no C compiler")
MODES = list(itertools.product(("bilinear", "nearest", "bicubic"), ("zeros", "border", "reflection"), (False, True)))


def _run(lib, x, g, go, mode, pad, align):
    tx, tg = lib.tensor(x, requires_grad=True), lib.tensor(g, requires_grad=True)
    y = lib.nn.functional.grid_sample(tx, tg, mode, pad, align)
    y.backward(lib.tensor(go))
    return [y.detach().numpy(), tx.grad.numpy(), tg.grad.numpy()]


@needs_c
@pytest.mark.parity
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_grid_sample_c_and_numpy_paths_match_torch(dtype):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    tol = dict(rtol=1e-4, atol=1e-4) if dtype == np.float32 else dict(rtol=1e-10, atol=1e-10)
    x = rng.standard_normal((3, 4, 6, 7)).astype(dtype)
    g = rng.uniform(-1.4, 1.4, (3, 5, 9, 2)).astype(dtype)      # many points outside the input
    go = rng.standard_normal((3, 4, 5, 9)).astype(dtype)
    for mode, pad, align in MODES:
        ref = _run(torch, x, g, go, mode, pad, align)
        for on in (True, False):
            with clib.use_c(on):
                got = _run(ember, x, g, go, mode, pad, align)
            for a, r in zip(got, ref):
                assert a.dtype == r.dtype and a.shape == r.shape
                np.testing.assert_allclose(a, r, **tol, err_msg=f"{mode} {pad} align={align} C={on}")


@needs_c
@pytest.mark.parity
def test_non_finite_input_outside_the_taps_does_not_leak():
    """inf/NaN in the input reach only the outputs whose in-bounds taps read them, on both paths."""
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(1)
    x = rng.standard_normal((2, 2, 5, 6))
    x[0, 0, 0, 0], x[1, 1, 4, 5], x[0, 1, 2, 3] = np.inf, np.nan, -np.inf
    g = rng.uniform(-1.5, 1.5, (2, 6, 6, 2))
    go = rng.standard_normal((2, 2, 6, 6))
    for mode, pad, align in MODES:
        ref = _run(torch, x, g, go, mode, pad, align)
        for on in (True, False):
            with clib.use_c(on):
                got = _run(ember, x, g, go, mode, pad, align)
            for a, r in zip(got, ref):
                np.testing.assert_array_equal(np.isnan(a), np.isnan(r), err_msg=f"{mode} {pad} {align} C={on}")
                fin = ~np.isnan(r)
                np.testing.assert_allclose(a[fin], r[fin], rtol=1e-10, atol=1e-10)
        assert np.isfinite(ref[0]).any()


@needs_c
def test_empty_sizes():
    for xs, gs in (((0, 3, 4, 4), (0, 2, 2, 2)), ((2, 0, 4, 4), (2, 3, 3, 2)), ((2, 3, 4, 4), (2, 0, 3, 2))):
        x, g = ember.randn(*xs, requires_grad=True), ember.rand(*gs, requires_grad=True)
        y = F.grid_sample(x, g, align_corners=False)
        assert tuple(y.shape) == (xs[0], xs[1]) + gs[1:3]
        y.sum().backward()
        assert tuple(x.grad.shape) == xs and tuple(g.grad.shape) == gs


@needs_c
def test_c_path_is_used_for_first_order_and_double_backward_still_works(monkeypatch):
    calls = []
    for name in ("gather", "scatter", "dot"):
        real = getattr(interpolate_taps, name)
        monkeypatch.setattr(interpolate_taps, name, lambda *a, _r=real, _n=name: calls.append(_n) or _r(*a))
    x = ember.randn(2, 3, 5, 5, dtype=ember.float64, requires_grad=True)
    g = (ember.rand(2, 4, 4, 2, dtype=ember.float64) * 2 - 1).requires_grad_()
    F.grid_sample(x, g, align_corners=False).sum().backward()
    assert calls == ["gather", "scatter", "dot"]
    calls.clear()
    assert ember.autograd.gradgradcheck(lambda a, b: F.grid_sample(a, b, "bilinear", "border", True), (x, g))
    assert "scatter" not in calls                  # a recorded backward runs the ember-op formula


@needs_c
def test_taps_kernels_direct():
    rng = np.random.default_rng(2)
    x = rng.standard_normal((2, 3, 10))
    idx = rng.integers(-1, 10, (2, 4, 6))
    wt = rng.standard_normal((2, 4, 6))
    out = interpolate_taps.gather(x, idx, wt)
    ref = np.zeros((2, 3, 6))
    for i, c, t, l in itertools.product(range(2), range(3), range(4), range(6)):
        if idx[i, t, l] >= 0:
            ref[i, c, l] += wt[i, t, l] * x[i, c, idx[i, t, l]]
    np.testing.assert_allclose(out, ref, rtol=1e-12)
    go = rng.standard_normal((2, 3, 6))
    gi = interpolate_taps.scatter(go, idx, wt, 10)
    # <gather(x), go> == <x, scatter(go)>: scatter is gather's adjoint
    np.testing.assert_allclose((out * go).sum(), (x * gi).sum(), rtol=1e-12)
    prod = interpolate_taps.dot(go, x, idx)
    np.testing.assert_allclose((prod * wt).sum(), (out * go).sum(), rtol=1e-12)
    assert interpolate_taps.gather(x.astype(np.float16), idx, wt) is None
