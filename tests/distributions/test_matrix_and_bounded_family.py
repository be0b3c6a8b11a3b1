"""ContinuousBernoulli, FisherSnedecor, LogisticNormal, LKJCholesky and Wishart against torch.distributions, and
ExponentialFamily's autograd entropy: densities, moments, cdf/icdf, expand, validation, sample moments and
rsample gradients."""
import warnings

import numpy as np
import pytest

import ember

from ._parity_checks import check_against_torch, check_log_prob_gradients, check_rsample_gradient, check_sample_moments, close, make

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.parity

RNG = np.random.default_rng(13)
LOC = RNG.standard_normal((3, 2))
SCALE = RNG.uniform(0.5, 2.0, (3, 2))
U = RNG.uniform(0.05, 0.95, (3, 2))
PROBS = np.array([[0.1, 0.4999], [0.5, 0.7], [0.95, 0.3]])        # both sides of the Taylor region
_A = RNG.standard_normal((2, 3, 3))
COV = _A @ _A.transpose(0, 2, 1) + np.eye(3)
WISHART_VALUE = np.linalg.cholesky(COV) @ np.linalg.cholesky(COV).transpose(0, 2, 1) * 2.0


def _corr_cholesky(n, d):
    x = RNG.standard_normal((n, d, 3 * d))
    return np.linalg.cholesky(np.stack([np.corrcoef(r) for r in x]))


CASES = [
    ("ContinuousBernoulli", (PROBS,), {}, U),
    ("ContinuousBernoulli", (), {"logits": LOC}, U),
    ("FisherSnedecor", (SCALE * 3, SCALE[::-1].copy() * 4 + 4.5), {}, RNG.uniform(0.1, 3.0, (3, 2))),
    ("FisherSnedecor", (SCALE, SCALE), {}, RNG.uniform(0.1, 3.0, (3, 2))),
    ("LogisticNormal", (LOC, SCALE), {}, RNG.dirichlet(np.ones(3), (4, 3))),
    ("LogisticNormal", (0.3, 1.2), {}, RNG.dirichlet(np.ones(2), (4,))),
    ("LKJCholesky", (3, np.array([0.5, 1.0, 2.5])), {}, _corr_cholesky(3, 3)),
    ("LKJCholesky", (4,), {}, _corr_cholesky(2, 4)),
    ("Wishart", (np.array([4.0, 6.5]),), {"covariance_matrix": COV}, WISHART_VALUE),
    ("Wishart", (5.0,), {"scale_tril": np.linalg.cholesky(COV)}, WISHART_VALUE),
    ("Wishart", (np.array([3.5, 7.0]),), {"precision_matrix": COV}, WISHART_VALUE),
]
IDS = [f"{c[0]}-{i}" for i, c in enumerate(CASES)]


def _moments(name):
    if name in ("LogisticNormal", "LKJCholesky"):
        return ()                                           # torch defines none
    if name == "ContinuousBernoulli":
        return ("mean", "variance", "stddev")
    return ("mean", "variance", "mode")


@pytest.mark.parametrize("name,args,kw,value", CASES, ids=IDS)
def test_against_torch(name, args, kw, value):
    moments = _moments(name)
    if name == "Wishart" and not isinstance(args[0], np.ndarray):
        moments = ()                              # torch's moments fail for a number df with batched matrices
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")           # torch's Wishart warns on every rsample (see wishart.py)
        check_against_torch(torch, name, args, kw, value, probs=U if name == "ContinuousBernoulli" else None,
                            moments=moments, rtol=1e-5)


def test_wishart_number_df_moments_broadcast():
    e = ember.distributions.Wishart(5.0, covariance_matrix=ember.tensor(COV))
    t = torch.distributions.Wishart(torch.tensor([5.0, 5.0], dtype=torch.float64),
                                    covariance_matrix=torch.tensor(COV))
    assert tuple(e.df.shape) == ()
    for attr in ("mean", "variance", "mode"):
        close(getattr(e, attr), getattr(t, attr))


@pytest.mark.parametrize("name,args,kw", [("ContinuousBernoulli", (PROBS,), {}),
                                          ("FisherSnedecor", (SCALE * 3, SCALE * 4 + 8.5), {}),
                                          ("LogisticNormal", (LOC, SCALE * 0.3), {})])
def test_sample_moments(name, args, kw):
    if name == "LogisticNormal":          # no closed-form moments: compare with torch's samples
        ember.manual_seed(0)
        s = make(ember, name, args, kw).sample((20000,)).numpy()
        torch.manual_seed(0)
        ts = make(torch, name, args, kw).sample((20000,)).numpy()
        np.testing.assert_allclose(s.mean(0), ts.mean(0), atol=0.01)
        np.testing.assert_allclose(s.std(0), ts.std(0), atol=0.01)
    else:
        check_sample_moments(name, args, kw)


def test_rsample_gradients():
    check_rsample_gradient(torch, "ContinuousBernoulli", {"probs": PROBS})
    # FisherSnedecor has no cdf in torch; its sample is a ratio of Gamma samples, whose gradients are checked
    # in test_gamma_family; here d x / d df1 by finite differences of the same Gamma noise
    df1 = ember.tensor(SCALE * 3, requires_grad=True)
    ember.manual_seed(5)
    x = ember.distributions.FisherSnedecor(df1, ember.tensor(SCALE * 4)).rsample()
    x.sum().backward()
    assert bool(ember.isfinite(df1.grad).all()) and bool((df1.grad != 0).all())


def test_logistic_normal_rsample_gradient():
    loc = ember.tensor(LOC, requires_grad=True)
    ember.manual_seed(2)
    x = ember.distributions.LogisticNormal(loc, ember.tensor(SCALE)).rsample()
    w = RNG.standard_normal(tuple(x.shape))
    (x * ember.tensor(w)).sum().backward()
    # x = StickBreaking(loc + scale * eps): recover eps and differentiate the same map in torch
    tr = torch.distributions.transforms.StickBreakingTransform()
    z = tr.inv(torch.tensor(x.detach().numpy()))
    eps = ((z - torch.tensor(LOC)) / torch.tensor(SCALE)).detach()
    tloc = torch.tensor(LOC, requires_grad=True)
    (tr(tloc + torch.tensor(SCALE) * eps) * torch.tensor(w)).sum().backward()
    close(loc.grad, tloc.grad, 1e-6)


def test_lkj_sample_moments():
    # the correlations' sample moments agree with torch's sampler (the same onion construction; note its
    # off-diagonal variances are not all 1 / (2 eta + d - 1))
    ember.manual_seed(0)
    L = ember.distributions.LKJCholesky(3, ember.tensor(2.0)).sample((20000,)).numpy()
    torch.manual_seed(0)
    tL = torch.distributions.LKJCholesky(3, torch.tensor(2.0)).sample((20000,)).numpy()
    corr, tcorr = L @ L.transpose(0, 2, 1), tL @ tL.transpose(0, 2, 1)
    off, toff = corr[:, [1, 2, 2], [0, 0, 1]], tcorr[:, [1, 2, 2], [0, 0, 1]]
    np.testing.assert_allclose(off.mean(0), 0.0, atol=0.02)
    np.testing.assert_allclose(off.var(0), toff.var(0), rtol=0.06)
    np.testing.assert_allclose(np.diagonal(corr, axis1=1, axis2=2), 1.0, atol=1e-5)


def test_wishart_sample_moments_and_gradient():
    ember.manual_seed(0)
    cov = ember.tensor(COV[0], requires_grad=True)
    d = ember.distributions.Wishart(ember.tensor(6.0), covariance_matrix=cov)
    s = d.rsample((20000,))
    np.testing.assert_allclose(s.detach().numpy().mean(0), d.mean.detach().numpy(), rtol=0.05, atol=0.1)
    np.testing.assert_allclose(s.detach().numpy().var(0), d.variance.detach().numpy(), rtol=0.15)
    s.mean(0).trace().backward()
    # E[trace(S)] = df * trace(cov), so the gradient of the sample mean's trace is about df * I
    np.testing.assert_allclose(cov.grad.numpy(), 6.0 * np.eye(3), atol=0.35)


@pytest.mark.parametrize("name,args,kw", [("FisherSnedecor", (-SCALE, SCALE), {}),
                                          ("LogisticNormal", (LOC, -SCALE), {}),
                                          ("LKJCholesky", (3, -1.0), {}),
                                          ("LKJCholesky", (1,), {}),
                                          ("Wishart", (np.array([1.0, 6.5]),), {"covariance_matrix": COV})])
def test_invalid_arguments_raise_torchs_error(name, args, kw):
    with pytest.raises(ValueError) as te:
        make(torch, name, args, kw)
    with pytest.raises(ValueError) as ee:
        make(ember, name, args, kw)
    assert str(ee.value).replace("ember.", "torch.") == str(te.value)


def test_exponential_family_entropy_by_autograd():
    # ContinuousBernoulli's closed-form entropy equals ExponentialFamily's Bregman-divergence entropy
    d = ember.distributions.ContinuousBernoulli(ember.tensor(PROBS))
    close(ember.distributions.ExponentialFamily.entropy(d), d.entropy(), 1e-5)
    t = torch.distributions.ContinuousBernoulli(torch.tensor(PROBS))
    close(ember.distributions.ExponentialFamily.entropy(d), torch.distributions.ExponentialFamily.entropy(t), 1e-6)


@pytest.mark.parametrize("name,args", [("Normal", (LOC, SCALE)), ("Gamma", (SCALE, SCALE[::-1].copy())),
                                       ("Exponential", (SCALE,)), ("Bernoulli", (U,)), ("Beta", (SCALE, SCALE)),
                                       ("Dirichlet", (SCALE,)), ("Poisson", (SCALE,)),
                                       ("Wishart", (np.array([4.0, 6.5]),))])
def test_exponential_family_members_match_torch(name, args):
    kw = {"covariance_matrix": COV} if name == "Wishart" else {}
    e, t = make(ember, name, args, kw), make(torch, name, args, kw)
    assert isinstance(e, ember.distributions.ExponentialFamily)
    try:
        want = torch.distributions.ExponentialFamily.entropy(t)
    except NotImplementedError:                       # no carrier measure given (Beta, Dirichlet, Poisson)
        with pytest.raises(NotImplementedError):
            ember.distributions.ExponentialFamily.entropy(e)
        return
    close(ember.distributions.ExponentialFamily.entropy(e), want, 1e-6)
    close(ember.distributions.ExponentialFamily.entropy(e), e.entropy(), 1e-5)


@pytest.mark.parametrize("name,args,kw,value", CASES, ids=IDS)
def test_log_prob_gradients_match_torch(name, args, kw, value):
    check_log_prob_gradients(torch, name, args, kw, value, rtol=1e-5)


def test_continuous_bernoulli_checks_probs_before_clamping():
    for mod in (torch, ember):
        with pytest.raises(ValueError, match="The parameter probs has invalid values"):
            mod.distributions.ContinuousBernoulli(mod.tensor([0.3, 1.2]), validate_args=True)
        d = mod.distributions.ContinuousBernoulli(mod.tensor([0.0, 1.0]), validate_args=False)
        eps = np.finfo(np.float32).eps
        np.testing.assert_allclose(d.probs.numpy(), [eps, 1 - eps])
