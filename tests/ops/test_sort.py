"""Sorting ops beyond the OpInfo test: unique against torch."""
import numpy as np
import pytest
import ember
from ember.functional import unique, unique_consecutive


@pytest.mark.parity
def test_unique_parity():
    torch = pytest.importorskip("torch")
    a = np.array([[3, 1, 3], [2, 1, 1]])
    for kw in ({}, {"return_inverse": True}, {"return_counts": True}, {"return_inverse": True, "return_counts": True},
               {"dim": 0}, {"dim": 1, "return_counts": True}):
        e, t = unique(ember.from_numpy(a.copy()), **kw), torch.unique(torch.from_numpy(a.copy()), **kw)
        for x, y in zip(e if isinstance(e, tuple) else [e], t if isinstance(t, tuple) else [t]):
            np.testing.assert_array_equal(x.numpy(), y.numpy())
    b = np.array([1, 1, 2, 2, 3, 1, 1])
    for kw in ({}, {"return_inverse": True, "return_counts": True}):
        e, t = unique_consecutive(ember.from_numpy(b.copy()), **kw), torch.unique_consecutive(torch.from_numpy(b.copy()), **kw)
        for x, y in zip(e if isinstance(e, tuple) else [e], t if isinstance(t, tuple) else [t]):
            np.testing.assert_array_equal(x.numpy(), y.numpy())
