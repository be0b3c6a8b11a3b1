"""where / sigmoid / clamp on large contiguous float tensors, which run csrc/elementwise_flat.c (a branchless blend,
a one-pass sigmoid, a one-pass clamp): against torch and against ember's own numpy path, with NaN and inf."""
import numpy as np
import pytest

import ember
from ember.kernels.cpu.elementwise import C_MIN_ELEMS
from ember.kernels.cpu.runtime import clib

N = 3 * C_MIN_ELEMS + 7          # above the C threshold, not a multiple of any vector width


def _data(dtype, seed=0):
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal(N) * 50).astype(dtype)
    x[[3, 100, 1000]] = [np.nan, np.inf, -np.inf]
    return x, rng.standard_normal(N).astype(dtype), rng.random(N) > 0.5


CASES = {
    "where": lambda lib, x, y, m: lib.where(m, x, y),
    "sigmoid": lambda lib, x, y, m: x.sigmoid(),
    "sigmoid_": lambda lib, x, y, m: x.clone().sigmoid_(),
    "clamp": lambda lib, x, y, m: x.clamp(-1, 2.5),
    "clamp_min": lambda lib, x, y, m: x.clamp(min=0),
    "clamp_max": lambda lib, x, y, m: x.clamp(max=3),
    "clamp_crossed": lambda lib, x, y, m: x.clamp(2, -2),
}


@pytest.mark.parity
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("case", list(CASES))
def test_large_elementwise_matches_torch_and_numpy_path(case, dtype):
    torch = pytest.importorskip("torch")
    x, y, m = _data(dtype)
    fn = CASES[case]
    got = fn(ember, ember.tensor(x), ember.tensor(y), ember.tensor(m))
    want = fn(torch, torch.tensor(x), torch.tensor(y), torch.tensor(m))
    assert got.dtype == getattr(ember, str(want.dtype).split(".")[1])
    rtol = 1e-6 if dtype == np.float32 else 1e-14      # sigmoid: vmath.h's exp is within ~1 ulp
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=rtol, atol=0, equal_nan=True)
    with clib.use_c(False):
        ref = fn(ember, ember.tensor(x), ember.tensor(y), ember.tensor(m))
    np.testing.assert_allclose(got.numpy(), ref.numpy(), rtol=rtol, atol=0, equal_nan=True)


def test_large_paths_not_taken_keep_numpy_semantics():
    torch = pytest.importorskip("torch")
    x, y, m = _data(np.float32, 1)
    # a non-contiguous input, a NaN bound, a uint8 mask, a broadcast operand, a mixed dtype
    e, t = ember.tensor(x)[::2], torch.tensor(x)[::2]
    np.testing.assert_allclose(e.sigmoid().numpy(), t.sigmoid().numpy(), rtol=1e-6, equal_nan=True)
    np.testing.assert_array_equal(ember.tensor(x).clamp(min=float("nan")).numpy(),
                                  torch.tensor(x).clamp(min=float("nan")).numpy())
    got = ember.where(ember.tensor(m.astype(np.uint8)), ember.tensor(x), ember.tensor(y))
    want = torch.where(torch.tensor(m.astype(np.uint8)).bool(), torch.tensor(x), torch.tensor(y))
    np.testing.assert_array_equal(got.numpy(), want.numpy())
    got = ember.where(ember.tensor(m), ember.tensor(x), ember.tensor(y[:1]))
    want = torch.where(torch.tensor(m), torch.tensor(x), torch.tensor(y[:1]))
    np.testing.assert_array_equal(got.numpy(), want.numpy())
    got = ember.where(ember.tensor(m), ember.tensor(x), ember.tensor(y.astype(np.float64)))
    assert got.dtype == ember.float64
    np.testing.assert_array_equal(got.numpy(), np.where(m, x.astype(np.float64), y.astype(np.float64)))
