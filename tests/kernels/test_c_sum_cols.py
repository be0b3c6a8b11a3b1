"""Sums over leading dims (a Linear's bias gradient grad.sum(0)) of c-contiguous float32/float64 tensors run
csrc/sum_cols.c (kernels/cpu/reduction.py `_sum_cols`, split by column blocks over ember's C pool): numpy's
np.add.reduce bits (each column's rows added in order, the first row copied) at every thread count; torch's
values (parity)."""
import numpy as np
import pytest

import ember
from ember import _cc
from ember.kernels.cpu import reduction as R
from ember.kernels.cpu.runtime import clib

needs_cc = pytest.mark.skipif(not _cc.available(), reason="no C compiler (or EMBER_DISABLE_C set)")

# (shape, dim): bias-gradient shapes, a partial last block, two leading dims, a 3-d sum over dim 0 only,
# few rows, one column (numpy's pairwise sum: declined)
CASES = [((1024, 128), 0), ((1024, 384), 0), ((1024, 512), 0), ((70, 65), 0), ((16, 64, 128), (0, 1)),
         ((16, 64, 128), 0), ((33, 7, 40), [0]), ((2, 5000), 0), ((4096, 3), 0), ((9, 1000), -2)]


@pytest.fixture(params=[1, 2, 3])
def threads(request):
    old = ember.get_num_threads()
    ember.set_num_threads(request.param)
    yield request.param
    ember.set_num_threads(old)


def _data(shape, dt, seed=0):
    rng = np.random.default_rng(seed)
    a = (rng.standard_normal(shape) * np.exp(rng.standard_normal(shape) * 3)).astype(dt)
    a.reshape(-1)[[5, 17]] = [np.nan, -np.inf] if dt == np.float64 else [np.inf, -0.0]
    return a


@needs_cc
@pytest.mark.parametrize("dt", [np.float32, np.float64])
@pytest.mark.parametrize("shape,dim", CASES)
def test_sum_over_leading_dims_has_numpys_bits(threads, monkeypatch, dt, shape, dim):
    seen = []
    real = R._sum_cols
    monkeypatch.setattr(R, "_sum_cols", lambda a, axes: seen.append(real(a, axes)) or seen[-1])
    a = _data(shape, dt)
    axes = dim if isinstance(dim, int) else tuple(dim)
    for keepdim in (False, True):
        got = ember.from_numpy(a).sum(dim, keepdim=keepdim).numpy()
        want = np.add.reduce(a, axis=axes, keepdims=keepdim)
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_array_equal(got.reshape(-1).view(np.uint8), want.reshape(-1).view(np.uint8))
    assert len(seen) == 2 and all(r is not None for r in seen)


@needs_cc
def test_declined_cases_keep_numpy(monkeypatch):
    """One column, a small array, a non-contiguous one, a sum over a later dim, C off: numpy's results."""
    seen = []
    real = R._sum_cols
    monkeypatch.setattr(R, "_sum_cols", lambda a, axes: seen.append(real(a, axes)) or seen[-1])
    a = _data((5000, 1), np.float32)
    for x, dim in ((a, 0), (a[:40], 0), (_data((300, 40), np.float32).T, 0), (_data((30, 40, 50), np.float32), 1)):
        np.testing.assert_array_equal(ember.from_numpy(x).sum(dim).numpy(), np.add.reduce(x, axis=dim))
    with clib.use_c(False):
        b = _data((1024, 128), np.float32)
        np.testing.assert_array_equal(ember.from_numpy(b).sum(0).numpy(), np.add.reduce(b, axis=0))
    assert seen == [None, None, None, None]
    z = -np.zeros((100, 70), np.float32)                  # the first row copied: -0.0 sums stay -0.0
    assert np.signbit(ember.from_numpy(z).sum(0).numpy()).all()


@pytest.mark.parity
@pytest.mark.parametrize("threads_", [1, 2])
def test_linear_bias_gradient_matches_torch(threads_):
    """A Linear's bias gradient (the grad's sum over its rows) against torch's at 1 and 2 threads."""
    torch = pytest.importorskip("torch")
    old = ember.get_num_threads()
    ember.set_num_threads(threads_)
    try:
        rng = np.random.default_rng(3)
        x = rng.standard_normal((16, 64, 128)).astype(np.float32)
        w0, b0 = rng.standard_normal((384, 128)).astype(np.float32), rng.standard_normal(384).astype(np.float32)
        g = rng.standard_normal((16, 64, 384)).astype(np.float32)
        grads = []
        for lib in (ember, torch):
            w, b = lib.tensor(w0, requires_grad=True), lib.tensor(b0, requires_grad=True)
            lib.nn.functional.linear(lib.tensor(x), w, b).backward(lib.tensor(g))
            grads.append(b.grad.numpy())
        np.testing.assert_allclose(grads[0], grads[1], rtol=1e-5, atol=1e-4)
    finally:
        ember.set_num_threads(old)
