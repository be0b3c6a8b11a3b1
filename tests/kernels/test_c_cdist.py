"""csrc/cdist.c (cdist p=1 and its gradient) against the numpy / ember-op paths and torch: batches,
broadcast batches (which keep the old paths), NaN, empty sizes, both dtypes; double backward keeps
the ember-op formula."""
import numpy as np
import pytest

import ember
from ember import _cc
from ember.kernels.cpu import distance
from ember.kernels.cpu.runtime import clib

needs_c = pytest.mark.skipif(not _cc.available(), reason="no C compiler")
SHAPES = [((5, 3), (4, 3)), ((2, 6, 4), (2, 3, 4)), ((3, 2), (3, 2)), ((0, 3), (2, 3)), ((2, 5, 3), (5, 3)),
          ((4, 0), (3, 0)), ((1, 2, 7, 5), (3, 1, 2, 5))]


def _run(lib, a, b, g):
    x, y = lib.tensor(a, requires_grad=True), lib.tensor(b, requires_grad=True)
    d = lib.cdist(x, y, p=1)
    d.backward(lib.tensor(g))
    return [d.detach().numpy(), x.grad.numpy(), y.grad.numpy()]


@needs_c
@pytest.mark.parity
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_cdist_p1_c_and_fallback_match_torch(dtype):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    tol = dict(rtol=1e-5, atol=1e-5) if dtype == np.float32 else dict(rtol=1e-12, atol=1e-12)
    for xs, ys in SHAPES:
        a, b = rng.standard_normal(xs).astype(dtype), rng.standard_normal(ys).astype(dtype)
        if xs == (3, 2):
            a[1, 0], b[0] = np.nan, a[2]                   # a NaN coordinate and a zero distance
        g = rng.standard_normal(torch.cdist(torch.tensor(a), torch.tensor(b), p=1).shape).astype(dtype)
        ref = _run(torch, a, b, g)
        for on in (True, False):
            with clib.use_c(on):
                got = _run(ember, a, b, g)
            for x, r in zip(got, ref):
                assert x.dtype == r.dtype and x.shape == r.shape
                np.testing.assert_array_equal(np.isnan(x), np.isnan(r))
                np.testing.assert_allclose(x[~np.isnan(r)], r[~np.isnan(r)], **tol, err_msg=f"{xs} {ys} C={on}")


@needs_c
def test_c_kernels_are_used_and_double_backward_works(monkeypatch):
    calls = []
    for name in ("p1", "p1_grad"):
        real = getattr(distance, name)
        monkeypatch.setattr(distance, name, lambda *a, _r=real, _n=name: calls.append(_n) or _r(*a))
    x = ember.randn(6, 3, dtype=ember.float64, requires_grad=True)
    y = ember.randn(4, 3, dtype=ember.float64, requires_grad=True)
    ember.cdist(x, y, p=1).sum().backward()
    assert calls == ["p1", "p1_grad", "p1_grad"]
    assert ember.autograd.gradcheck(lambda a, b: ember.cdist(a, b, p=1), (x, y))
    assert ember.autograd.gradgradcheck(lambda a, b: ember.cdist(a, b, p=1), (x, y))
    assert distance.p1(np.ones((2, 3, 2)), np.ones((1, 3, 2))) is None        # broadcast batch: not here
    assert distance.p1(np.ones((3, 2), np.float16), np.ones((3, 2), np.float16)) is None
