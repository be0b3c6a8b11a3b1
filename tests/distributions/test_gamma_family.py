"""Gamma, Chi2, Beta, Dirichlet, StudentT, Geometric and Binomial against torch.distributions: shapes,
repr, log_prob, entropy, moments, enumerate_support, sample shapes and support, and the reparameterised
gradient of gamma samples against torch's _standard_gamma_grad at the same sample."""
import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.parity

RNG = np.random.default_rng(1)
LOC = RNG.standard_normal((3, 2))
SCALE = RNG.uniform(0.5, 2.0, (3, 2))
PROBS = RNG.uniform(0.05, 0.95, (3, 2))
CONC = RNG.uniform(0.3, 3.0, (3, 4))

CASES = [
    ("Gamma", (SCALE * 2, SCALE), {}, RNG.uniform(0.1, 3, (5, 3, 2))),
    ("Gamma", (2.0, 0.5), {}, RNG.uniform(0.1, 3, (4,))),
    ("Gamma", (SCALE / 3, 1.0), {}, RNG.uniform(0.1, 3, (3, 2))),
    ("Chi2", (SCALE * 3,), {}, RNG.uniform(0.1, 5, (3, 2))),
    ("Beta", (SCALE, SCALE[::-1].copy() * 1.5), {}, RNG.uniform(0.05, 0.95, (3, 2))),
    ("Beta", (0.5, 2.0), {}, RNG.uniform(0.05, 0.95, (6,))),
    ("Dirichlet", (CONC,), {}, RNG.dirichlet(np.ones(4), (2, 3))),
    ("Dirichlet", (np.array([0.5, 0.7, 0.9]),), {}, RNG.dirichlet(np.ones(3), (5,))),
    ("StudentT", (SCALE * 3, LOC, SCALE), {}, RNG.standard_normal((3, 2))),
    ("StudentT", (np.array([0.5, 1.5, 3.0]),), {}, RNG.standard_normal((3,))),
    ("Geometric", (PROBS,), {}, RNG.integers(0, 6, (4, 3, 2)).astype(np.float64)),
    ("Geometric", (), {"logits": LOC}, RNG.integers(0, 6, (3, 2)).astype(np.float64)),
    ("Binomial", (10, PROBS), {}, RNG.integers(0, 11, (3, 2)).astype(np.float64)),
    ("Binomial", (), {"total_count": np.full((3, 2), 6.0), "logits": LOC}, RNG.integers(0, 7, (3, 2)).astype(np.float64)),
]
IDS = [f"{c[0]}-{i}" for i, c in enumerate(CASES)]


def _conv(mod, x):
    return mod.tensor(x) if isinstance(x, np.ndarray) else x


def _make(mod, name, args, kw):
    return getattr(mod.distributions, name)(*[_conv(mod, a) for a in args], **{k: _conv(mod, v) for k, v in kw.items()})


def _close(a, b, rtol=1e-6):
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=rtol, atol=1e-9, equal_nan=True)


@pytest.mark.parametrize("name,args,kw,value", CASES, ids=IDS)
def test_against_torch(name, args, kw, value):
    e, t = _make(ember, name, args, kw), _make(torch, name, args, kw)
    assert tuple(e.batch_shape) == tuple(t.batch_shape) and tuple(e.event_shape) == tuple(t.event_shape)
    assert repr(e).replace("ember.", "torch.") == repr(t)
    _close(e.log_prob(ember.tensor(value)), t.log_prob(torch.tensor(value)))
    _close(e.entropy(), t.entropy())
    for attr in ("mean", "variance", "stddev", "mode"):
        _close(getattr(e, attr), getattr(t, attr))
    assert e.has_rsample == t.has_rsample and e.has_enumerate_support == t.has_enumerate_support
    if e.has_enumerate_support:
        _close(e.enumerate_support(), t.enumerate_support())
    s = e.sample((7,))
    assert tuple(s.shape) == tuple(t.sample((7,)).shape)
    assert bool(e.support.check(s).all()) and bool(ember.isfinite(e.log_prob(s)).all())
    ex = e.expand((4,) + tuple(e.batch_shape))
    tx = t.expand((4,) + tuple(t.batch_shape))
    v = t.sample().numpy()
    assert tuple(ex.batch_shape) == tuple(tx.batch_shape)
    _close(ex.log_prob(ember.tensor(v)), tx.log_prob(torch.tensor(v)))


def test_gamma_rsample_gradient_is_torchs_implicit_gradient():
    conc = ember.tensor(CONC.ravel(), requires_grad=True)
    rate = ember.tensor(np.full(CONC.size, 2.0))
    x = ember.distributions.Gamma(conc, rate).rsample()
    x.sum().backward()
    tconc = torch.tensor(CONC.ravel())
    want = torch._standard_gamma_grad(tconc, torch.tensor(x.detach().numpy() * 2.0)) / 2.0
    np.testing.assert_allclose(conc.grad.numpy(), want.numpy(), rtol=1e-3)


def test_reparameterised_samples_have_the_right_moments_and_gradients():
    ember.manual_seed(0)
    g = ember.distributions.Gamma(ember.tensor(3.0), ember.tensor(2.0)).rsample((20000,))
    assert abs(float(g.mean()) - 1.5) < 0.05 and abs(float(g.var()) - 0.75) < 0.05
    a = ember.tensor([2.0, 5.0], requires_grad=True)
    b = ember.distributions.Beta(a[0], a[1]).rsample((20000,))
    assert abs(float(b.mean()) - 2 / 7) < 0.01
    b.mean().backward()                  # d E[x] / d alpha = beta / (alpha + beta)^2 = 5 / 49
    np.testing.assert_allclose(a.grad.numpy(), [5 / 49, -2 / 49], atol=0.01)
    d = ember.distributions.Dirichlet(ember.tensor([1.0, 2.0, 3.0])).rsample((5,))
    assert tuple(d.shape) == (5, 3) and np.allclose(d.sum(-1).numpy(), 1.0)
    t = ember.distributions.StudentT(ember.tensor(5.0)).rsample((20000,))
    assert abs(float(t.var()) - 5 / 3) < 0.15


@pytest.mark.parametrize("name,args,kw", [
    ("Gamma", (-SCALE, SCALE), {}), ("Beta", (SCALE, -SCALE), {}), ("Dirichlet", (-CONC,), {}),
    ("StudentT", (-SCALE,), {}), ("Geometric", (PROBS + 1,), {}), ("Binomial", (10, PROBS + 1), {}),
    ("Geometric", (PROBS,), {"logits": LOC}),
], ids=["gamma", "beta", "dirichlet", "studentt", "geometric", "binomial", "both"])
def test_argument_validation_matches_torch(name, args, kw):
    with pytest.raises(ValueError) as te:
        _make(torch, name, args, kw)
    with pytest.raises(ValueError) as ee:
        _make(ember, name, args, kw)
    assert str(ee.value).replace("ember.", "torch.") == str(te.value)


def test_dirichlet_needs_a_vector_and_binomial_entropy_needs_one_count():
    with pytest.raises(ValueError, match="must be at least one-dimensional"):
        ember.distributions.Dirichlet(ember.tensor(1.0))
    d = ember.distributions.Binomial(ember.tensor([2.0, 3.0]), ember.tensor([0.5, 0.5]))
    with pytest.raises(NotImplementedError, match="Inhomogeneous total count"):
        d.entropy()
