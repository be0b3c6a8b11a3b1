"""Multinomial against torch.distributions: log_prob, entropy, moments, shapes, support and samples."""
import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.parity

P = np.random.default_rng(3).uniform(0.1, 1, (3, 4))
COUNTS = np.array([[1.0, 2.0, 2.0, 0.0], [5.0, 0.0, 0.0, 0.0], [0.0, 1.0, 1.0, 3.0]])


@pytest.mark.parametrize("kw", [{"probs": P}, {"logits": np.log(P)}], ids=["probs", "logits"])
def test_multinomial_matches_torch(kw):
    e = ember.distributions.Multinomial(5, **{k: ember.tensor(v) for k, v in kw.items()})
    t = torch.distributions.Multinomial(5, **{k: torch.tensor(v) for k, v in kw.items()})
    assert repr(e) == repr(t) and repr(e.support) == repr(t.support)
    assert (tuple(e.batch_shape), tuple(e.event_shape)) == (tuple(t.batch_shape), tuple(t.event_shape))
    for a, b in ((e.log_prob(ember.tensor(COUNTS)), t.log_prob(torch.tensor(COUNTS))), (e.entropy(), t.entropy()),
                 (e.mean, t.mean), (e.variance, t.variance)):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-6)
    s = e.sample((6,))
    assert tuple(s.shape) == (6, 3, 4) and np.all(s.sum(-1).numpy() == 5) and bool(e.support.check(s).all())
    assert tuple(e.expand((2, 3)).sample().shape) == (2, 3, 4)
    with pytest.raises(NotImplementedError, match="inhomogeneous total_count is not supported"):
        ember.distributions.Multinomial(ember.tensor(5), ember.tensor(P))
