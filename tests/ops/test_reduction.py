"""Reductions beyond the OpInfo test: bincount weights and histc against torch."""
import numpy as np
import pytest
import ember


@pytest.mark.parity
def test_bincount_weights_and_histc_parity():
    torch = pytest.importorskip("torch")
    i, w = np.array([0, 2, 2, 5]), np.array([0.5, 1.0, 2.0, 3.0], np.float32)
    r = ember.bincount(ember.from_numpy(i), ember.from_numpy(w), minlength=8)
    t = torch.bincount(torch.from_numpy(i), torch.from_numpy(w), minlength=8)
    assert r.dtype.name == str(t.dtype)[6:]
    np.testing.assert_array_equal(r.numpy(), t.numpy())
    x = np.array([0.0, 1.0, 1.0, 2.0, 3.0, 10.0], np.float32)
    np.testing.assert_array_equal(ember.histc(ember.from_numpy(x), 4, 0, 3).numpy(), torch.histc(torch.from_numpy(x), 4, 0, 3).numpy())
