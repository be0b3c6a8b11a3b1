"""NegativeBinomial, MixtureSameFamily, LowRankMultivariateNormal, RelaxedBernoulli, RelaxedOneHotCategorical,
OneHotCategoricalStraightThrough and VonMises against torch.distributions: densities, moments, expand,
validation, sample moments and reparameterised gradients."""
import numpy as np
import pytest

import ember

from ._parity_checks import check_against_torch, check_log_prob_gradients, check_sample_moments, close, make

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.parity

RNG = np.random.default_rng(11)
LOC = RNG.standard_normal((3, 2))
SCALE = RNG.uniform(0.5, 2.0, (3, 2))
PROBS = RNG.uniform(0.05, 0.9, (3, 2))
COUNTS = RNG.integers(0, 9, (3, 2)).astype(np.float64)
SIMPLEX = RNG.dirichlet(np.ones(4), (3,))
W = RNG.standard_normal((3, 4, 2))
D = RNG.uniform(0.5, 1.5, (3, 4))

CASES = [
    ("NegativeBinomial", (SCALE * 3, PROBS), {}, COUNTS),
    ("NegativeBinomial", (4.0,), {"logits": LOC}, COUNTS),
    ("NegativeBinomial", (np.array([0.0, 2.0]),), {"probs": np.array([0.3, 0.6])}, np.array([0.0, 3.0])),
    ("LowRankMultivariateNormal", (RNG.standard_normal((3, 4)), W, D), {}, RNG.standard_normal((5, 3, 4))),
    ("LowRankMultivariateNormal", (RNG.standard_normal(4), W[0], D[0]), {}, RNG.standard_normal((2, 4))),
    ("RelaxedBernoulli", (np.array(0.7), PROBS), {}, PROBS[::-1].copy()),
    ("RelaxedBernoulli", (np.array([1.3, 0.4]),), {"logits": LOC}, RNG.uniform(0.05, 0.95, (3, 2))),
    ("RelaxedOneHotCategorical", (np.array(0.8), SIMPLEX), {}, RNG.dirichlet(np.ones(4), (2, 3))),
    ("RelaxedOneHotCategorical", (np.array(2.0),), {"logits": RNG.standard_normal((3, 4))},
     RNG.dirichlet(np.ones(4), (3,))),
    ("OneHotCategoricalStraightThrough", (SIMPLEX,), {}, np.eye(4)[RNG.integers(0, 4, (2, 3))]),
    ("VonMises", (LOC, SCALE), {}, RNG.uniform(-np.pi, np.pi, (4, 3, 2))),
    ("VonMises", (LOC, SCALE * 4), {}, RNG.uniform(-np.pi, np.pi, (3, 2))),
]
IDS = [f"{c[0]}-{i}" for i, c in enumerate(CASES)]


def _moments(name):
    if name in ("RelaxedBernoulli", "RelaxedOneHotCategorical"):
        return ()                                    # torch defines none
    return ("mean", "variance", "mode")


@pytest.mark.parametrize("name,args,kw,value", CASES, ids=IDS)
def test_against_torch(name, args, kw, value):
    e, t = check_against_torch(torch, name, args, kw, value, moments=_moments(name),
                               rtol=1e-5 if name == "VonMises" else 1e-6)
    if name == "LowRankMultivariateNormal":
        for attr in ("covariance_matrix", "precision_matrix", "scale_tril"):
            close(getattr(e, attr), getattr(t, attr), 1e-6)


def _mixture(T, component):
    mix = T.distributions.Categorical(probs=T.tensor(SIMPLEX[:, :3] / SIMPLEX[:, :3].sum(-1, keepdims=True)))
    if component == "normal":
        comp = T.distributions.Normal(T.tensor(RNG_MIX_LOC), T.tensor(RNG_MIX_SCALE))
    elif component == "mvn":
        comp = T.distributions.Independent(T.distributions.Normal(T.tensor(RNG_MIX_LOC2), T.tensor(RNG_MIX_SCALE2)), 1)
    else:
        comp = T.distributions.Gamma(T.tensor(RNG_MIX_SCALE + 1), T.tensor(RNG_MIX_SCALE))
    return T.distributions.MixtureSameFamily(mix, comp)


RNG_MIX_LOC = RNG.standard_normal((3, 3)) * 3
RNG_MIX_SCALE = RNG.uniform(0.5, 1.5, (3, 3))
RNG_MIX_LOC2 = RNG.standard_normal((3, 3, 2)) * 3
RNG_MIX_SCALE2 = RNG.uniform(0.5, 1.5, (3, 3, 2))


@pytest.mark.parametrize("component", ["normal", "mvn", "gamma"])
def test_mixture_same_family_matches_torch(component):
    e, t = _mixture(ember, component), _mixture(torch, component)
    assert tuple(e.batch_shape) == tuple(t.batch_shape) and tuple(e.event_shape) == tuple(t.event_shape)
    assert repr(e).replace("ember.", "torch.") == repr(t)
    assert repr(e.support) == repr(t.support)
    v = t.sample((5,))
    close(e.log_prob(ember.tensor(v.numpy())), t.log_prob(v))
    close(e.mean, t.mean)
    close(e.variance, t.variance)
    if component != "mvn":
        close(e.cdf(ember.tensor(v.numpy())), t.cdf(v))
    ex, tx = e.expand((2, 3)), t.expand((2, 3))
    assert tuple(ex.batch_shape) == tuple(tx.batch_shape)
    close(ex.log_prob(ember.tensor(v[0].numpy())), tx.log_prob(v[0]))
    s = e.sample((7,))
    assert tuple(s.shape) == tuple(t.sample((7,)).shape)
    assert bool(e.support.check(s).all()) == bool(t.support.check(torch.tensor(s.numpy())).all())
    ember.manual_seed(0)
    s = e.sample((20000,)).numpy()
    se = np.sqrt(e.variance.numpy() / 20000)
    assert np.all(np.abs(s.mean(0) - e.mean.numpy()) < 5 * se)
    np.testing.assert_allclose(s.var(0), e.variance.numpy(), rtol=0.1)


def test_mixture_same_family_errors():
    for mod in (torch, ember):
        D_ = mod.distributions
        comp = D_.Normal(mod.zeros(2, 3), mod.ones(2, 3))
        with pytest.raises(ValueError, match="instance of torch.distributions.Categorical"):
            D_.MixtureSameFamily(comp, comp)
        with pytest.raises(ValueError, match=r"does not equal `component_distribution.batch_shape\[-1\]`"):
            D_.MixtureSameFamily(D_.Categorical(logits=mod.zeros(4)), comp)


def test_negative_binomial_sample_moments():
    check_sample_moments("NegativeBinomial", (SCALE * 3, PROBS), {})


@pytest.mark.parametrize("kappa", [SCALE * 0.2, SCALE, SCALE * 4])
def test_von_mises_circular_sample_moments(kappa):
    # angles in [-pi, pi): E[sin(x - loc)] = 0 and E[cos(x - loc)] = I1(kappa) / I0(kappa) = 1 - variance
    ember.manual_seed(3)
    d = ember.distributions.VonMises(ember.tensor(LOC), ember.tensor(kappa))
    s = d.sample((20000,)).numpy()
    assert np.all(np.abs(s) <= np.pi)
    np.testing.assert_allclose(np.sin(s - LOC).mean(0), 0.0, atol=0.025)
    np.testing.assert_allclose(np.cos(s - LOC).mean(0), 1 - d.variance.numpy(), atol=0.02)


def test_lowrank_rsample_gradient_and_moments():
    ember.manual_seed(0)
    loc = ember.tensor(RNG.standard_normal(4), requires_grad=True)
    d = ember.distributions.LowRankMultivariateNormal(loc, ember.tensor(W[0]), ember.tensor(D[0]))
    x = d.rsample((50000,))
    x.sum().backward()
    np.testing.assert_allclose(loc.grad.numpy(), np.full(4, 50000.0))
    cov = np.cov(x.detach().numpy().T)
    tcov = torch.distributions.LowRankMultivariateNormal(torch.tensor(loc.detach().numpy()), torch.tensor(W[0]),
                                                         torch.tensor(D[0])).covariance_matrix.numpy()
    np.testing.assert_allclose(cov, tcov, atol=0.08)


def test_relaxed_rsample_gradients_match_torch_at_the_same_noise():
    # with the uniforms fixed, both libraries compute the same differentiable function of (temperature, probs)
    for name in ("RelaxedBernoulli", "RelaxedOneHotCategorical"):
        ember.manual_seed(4)
        probs = PROBS if name == "RelaxedBernoulli" else SIMPLEX
        et, ep = ember.tensor(0.6, requires_grad=True), ember.tensor(probs, requires_grad=True)
        e = getattr(ember.distributions, name)(et, ep)
        x = e.rsample()
        tt, tp = torch.tensor(0.6, requires_grad=True), torch.tensor(probs, requires_grad=True)
        t = getattr(torch.distributions, name)(tt, tp)
        w = RNG.standard_normal(tuple(x.shape))
        # the noise that produced x, recovered through the inverse of torch's reparameterisation
        tx = torch.tensor(x.detach().numpy())
        if name == "RelaxedBernoulli":
            logit_x = torch.log(tx) - torch.log1p(-tx)
            u_logit = (logit_x * tt - (torch.log(tp) - torch.log1p(-tp))).detach()
            ty = torch.sigmoid((u_logit + torch.log(tp) - torch.log1p(-tp)) / tt)
        else:
            g = (torch.log(tx) * tt - torch.log(tp / tp.sum(-1, keepdim=True))).detach()
            scores = (torch.log(tp / tp.sum(-1, keepdim=True)) + g) / tt
            ty = torch.softmax(scores, -1)
        close(ember.tensor(ty.detach().numpy()), x, 1e-6)
        (x * ember.tensor(w)).sum().backward()
        (ty * torch.tensor(w)).sum().backward()
        close(et.grad, tt.grad, 1e-5)
        close(ep.grad, tp.grad, 1e-5)


def test_one_hot_straight_through_gradient():
    probs = ember.tensor(SIMPLEX, requires_grad=True)
    d = ember.distributions.OneHotCategoricalStraightThrough(probs)
    s = d.rsample((2,))
    assert bool(ember.distributions.constraints.one_hot.check(s).all())
    w = ember.tensor(RNG.standard_normal((2, 3, 4)))
    (s * w).sum().backward()
    tp = torch.tensor(SIMPLEX, requires_grad=True)
    (torch.distributions.OneHotCategoricalStraightThrough(tp)._categorical.probs * torch.tensor(w.numpy()).sum(0)
     ).sum().backward()
    close(probs.grad, tp.grad)


@pytest.mark.parametrize("name,args,kw", [("NegativeBinomial", (-1.0, PROBS), {}),
                                          ("NegativeBinomial", (2.0, np.ones((3, 2))), {}),
                                          ("VonMises", (LOC, -SCALE), {}),
                                          ("RelaxedBernoulli", (np.array(0.5), PROBS + 1), {})])
def test_invalid_arguments_raise_torchs_error(name, args, kw):
    with pytest.raises(ValueError) as te:
        make(torch, name, args, kw)
    with pytest.raises(ValueError) as ee:
        make(ember, name, args, kw)
    assert str(ee.value).replace("ember.", "torch.") == str(te.value)


@pytest.mark.parametrize("name,args,kw,value", CASES, ids=IDS)
def test_log_prob_gradients_match_torch(name, args, kw, value):
    check_log_prob_gradients(torch, name, args, kw, value, rtol=1e-5)


def test_mixture_log_prob_gradients_match_torch():
    logits, loc, scale = RNG.standard_normal((3, 3)), RNG_MIX_LOC, RNG_MIX_SCALE
    value = RNG.standard_normal((5, 3)) * 2
    grads = []
    for T in (ember, torch):
        leaves = [T.tensor(x, requires_grad=True) for x in (logits, loc, scale)]
        D = T.distributions
        d = D.MixtureSameFamily(D.Categorical(logits=leaves[0]), D.Normal(leaves[1], leaves[2]))
        (d.log_prob(T.tensor(value)).sum() + d.mean.sum() + d.variance.sum()).backward()
        grads.append([x.grad for x in leaves])
    for e, t in zip(*grads):
        close(e, t, 1e-6)
