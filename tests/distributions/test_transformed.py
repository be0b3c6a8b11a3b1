"""LogNormal, TransformedDistribution and the common transforms against torch.distributions: log_prob by
change of variables, cdf/icdf through monotone transforms, moments, shapes, support and rsample gradients."""
import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.parity

RNG = np.random.default_rng(2)
LOC = RNG.standard_normal((3, 2))
SCALE = RNG.uniform(0.5, 2.0, (3, 2))


def _close(a, b, rtol=1e-6):
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=rtol, atol=1e-9, equal_nan=True)


def _chains(T):
    tr = T.distributions.transforms
    return {
        "exp": [tr.ExpTransform()],
        "affine": [tr.AffineTransform(T.tensor(LOC), T.tensor(SCALE))],
        "affine-sigmoid": [tr.AffineTransform(1.0, -2.0), tr.SigmoidTransform()],
        "tanh": [tr.TanhTransform()],
        "exp-power": [tr.ExpTransform(), tr.PowerTransform(2.0)],
        "compose": [tr.ComposeTransform([tr.AffineTransform(0.5, 3.0), tr.ExpTransform()])],
        "inverse-exp": [tr.ExpTransform(), tr.ExpTransform().inv, tr.AffineTransform(0.0, 2.0)],
    }


@pytest.mark.parametrize("chain", list(_chains(ember)))
def test_transformed_normal_matches_torch(chain):
    e = ember.distributions.TransformedDistribution(
        ember.distributions.Normal(ember.tensor(LOC), ember.tensor(SCALE)), _chains(ember)[chain])
    t = torch.distributions.TransformedDistribution(
        torch.distributions.Normal(torch.tensor(LOC), torch.tensor(SCALE)), _chains(torch)[chain])
    assert tuple(e.batch_shape) == tuple(t.batch_shape) and tuple(e.event_shape) == tuple(t.event_shape)
    assert repr(e.support) == repr(t.support) and e.has_rsample == t.has_rsample
    v = t.sample((4,))
    _close(e.log_prob(ember.tensor(v.numpy())), t.log_prob(v))
    _close(e.cdf(ember.tensor(v.numpy())), t.cdf(v))
    p = torch.tensor(RNG.uniform(0.1, 0.9, (3, 2)))
    _close(e.icdf(ember.tensor(p.numpy())), t.icdf(p), 1e-5)
    assert tuple(e.rsample((5,)).shape) == tuple(t.rsample((5,)).shape)


def test_log_normal_matches_torch():
    e = ember.distributions.LogNormal(ember.tensor(LOC), ember.tensor(SCALE))
    t = torch.distributions.LogNormal(torch.tensor(LOC), torch.tensor(SCALE))
    assert repr(e) == repr(t) and tuple(e.batch_shape) == tuple(t.batch_shape)
    v = RNG.uniform(0.1, 4.0, (5, 3, 2))
    _close(e.log_prob(ember.tensor(v)), t.log_prob(torch.tensor(v)))
    for attr in ("mean", "variance", "stddev", "mode"):
        _close(getattr(e, attr), getattr(t, attr))
    _close(e.entropy(), t.entropy())
    _close(e.expand((4, 3, 2)).log_prob(ember.tensor(v[:4])), t.expand((4, 3, 2)).log_prob(torch.tensor(v[:4])))
    with pytest.raises(ValueError) as te:
        torch.distributions.LogNormal(torch.tensor(LOC), -torch.tensor(SCALE))
    with pytest.raises(ValueError) as ee:
        ember.distributions.LogNormal(ember.tensor(LOC), -ember.tensor(SCALE))
    assert str(ee.value).replace("ember.", "torch.") == str(te.value)


def test_rsample_through_transforms_carries_gradients():
    loc = ember.zeros(3, requires_grad=True)
    d = ember.distributions.LogNormal(loc, ember.ones(3))
    d.rsample((4,)).sum().backward()
    assert loc.grad is not None and bool((loc.grad > 0).all())
    tr = ember.distributions.transforms
    with pytest.raises(ValueError, match="cache_size must be 0 or 1"):
        tr.ExpTransform(cache_size=2)
    x = ember.tensor([0.3])
    cached = tr.ExpTransform(cache_size=1)
    y = cached(x)
    assert cached.inv(y) is x
