"""The dropouts: reproducibility, scaling, feature and alpha dropout."""
import numpy as np
import pytest
import ember
from ._nn_util import meta_matches


def test_dropout_reproducible_and_scaled():
    x = ember.ones(1000, dtype=ember.float64)
    ember.manual_seed(3)
    a = ember.dropout(x, 0.3, True)
    ember.manual_seed(3)
    b = ember.dropout(x, 0.3, True)
    assert np.array_equal(a.numpy(), b.numpy())
    vals = set(np.unique(a.numpy()).round(6))
    assert vals <= {0.0, round(1 / 0.7, 6)}
    assert 0.2 < (a.numpy() == 0).mean() < 0.4
    assert ember.dropout(x, 0.3, False) is x
    out, mask = ember.native_dropout(x, 0.5, True)
    assert mask.dtype == ember.bool and np.allclose(out.numpy(), mask.numpy() * 2.0)
    assert (ember.dropout(x, 1.0, True).numpy() == 0).all()
    with pytest.raises(RuntimeError, match="dropout probability has to be between 0 and 1, but got 1.5"):
        ember.dropout(x, 1.5, True)
    meta_matches(lambda t: ember.native_dropout(t, 0.5, True), x)


def test_feature_and_alpha_dropout():
    x = ember.ones(4, 50, 3, 3)
    ember.manual_seed(0)
    y = ember.feature_dropout(x, 0.5, True).numpy()
    per_channel = y.reshape(4, 50, 9)
    assert (per_channel.min(-1) == per_channel.max(-1)).all()       # whole channels kept or zeroed
    assert set(np.unique(y)) <= {0.0, 2.0}
    z = ember.alpha_dropout(ember.randn(20000, dtype=ember.float64), 0.2, True).numpy()
    assert abs(z.mean()) < 0.05 and abs(z.std() - 1) < 0.05          # alpha dropout keeps mean 0 / std 1
