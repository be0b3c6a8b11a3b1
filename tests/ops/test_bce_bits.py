"""binary_cross_entropy's loss bits against torch's cpu kernel: (t - 1) * max(log1p(-x), -100) - t * max(log(x), -100)
in the input's dtype, each step rounded to it (float16/bfloat16 too), the logs by libm's scalar functions."""
import numpy as np
import pytest

import ember


def _data(n=2000, seed=0):
    rng = np.random.default_rng(seed)
    p = rng.uniform(0, 1, n).astype(np.float32)
    y = rng.uniform(0, 1, n).astype(np.float32)
    p[:8] = [0, 1, 1e-30, 1 - 1e-7, 0.5, 1e-45, 3e-39, 0.999]
    y[:8] = [0, 1, 1, 0, 1, 1, 0, 0.5]
    w = rng.uniform(0, 2, n).astype(np.float32)
    return p, y, w


def _loss(L, dtype, reduction, weighted):
    p, y, w = _data()
    d = getattr(L, dtype)
    x, t = L.tensor(p).to(d), L.tensor(y).to(d)
    r = L.nn.functional.binary_cross_entropy(x, t, weight=L.tensor(w).to(d) if weighted else None,
                                             reduction=reduction)
    return r.float().numpy().view(np.int32)


@pytest.mark.parity
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
def test_bce_bits_like_torch(dtype, reduction, weighted):
    torch = pytest.importorskip("torch")
    e, t = _loss(ember, dtype, reduction, weighted), _loss(torch, dtype, reduction, weighted)
    if reduction != "none" and dtype in ("float32", "float64"):
        # (the elements are torch's; a full-precision sum's order is ember's reduction's, not torch's vectorised one)
        np.testing.assert_allclose(e.view(np.float32), t.view(np.float32), rtol=1e-6)
    else:
        np.testing.assert_array_equal(e, t)
