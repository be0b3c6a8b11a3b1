"""ember.distributions against torch.distributions: shapes, log_prob, cdf/icdf, entropy, moments, validation
errors, kl_divergence, sample statistics and reparameterised gradients."""
import math

import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.parity

RNG = np.random.default_rng(0)
LOC = RNG.standard_normal((3, 2))
SCALE = RNG.uniform(0.5, 2.0, (3, 2))
PROBS = RNG.uniform(0.05, 0.95, (3, 2))
CAT = RNG.uniform(0.1, 1.0, (3, 4))
COV = np.array([[2.0, 0.3], [0.3, 0.5]])

# name, constructor args (numpy arrays become tensors in each library), a value in the support
CASES = [
    ("Normal", (LOC, SCALE), {}, RNG.standard_normal((5, 3, 2))),
    ("Normal", (0.5, 2.0), {}, RNG.standard_normal((4,))),
    ("Uniform", (LOC - 1, LOC + SCALE), {}, LOC - 0.5),
    ("Exponential", (SCALE,), {}, RNG.uniform(0, 3, (3, 2))),
    ("Laplace", (LOC, SCALE), {}, RNG.standard_normal((3, 2))),
    ("Cauchy", (LOC, SCALE), {}, RNG.standard_normal((3, 2))),
    ("Poisson", (SCALE * 3,), {}, RNG.integers(0, 8, (4, 3, 2)).astype(np.float64)),
    ("Bernoulli", (PROBS,), {}, (RNG.random((3, 2)) < 0.5).astype(np.float64)),
    ("Bernoulli", (), {"logits": LOC}, (RNG.random((3, 2)) < 0.5).astype(np.float64)),
    ("Categorical", (CAT,), {}, RNG.integers(0, 4, (3,))),
    ("Categorical", (), {"logits": CAT}, RNG.integers(0, 4, (2, 3))),
    ("OneHotCategorical", (CAT,), {}, np.eye(4)[RNG.integers(0, 4, (3,))]),
    ("MultivariateNormal", (LOC,), {"covariance_matrix": COV}, RNG.standard_normal((3, 2))),
    ("MultivariateNormal", (LOC[0],), {"scale_tril": np.linalg.cholesky(COV)}, RNG.standard_normal((4, 2))),
    ("MultivariateNormal", (LOC[0],), {"precision_matrix": np.linalg.inv(COV)}, RNG.standard_normal((2,))),
]
IDS = [f"{c[0]}-{i}" for i, c in enumerate(CASES)]


def _conv(mod, x):
    if isinstance(x, np.ndarray):
        return mod.tensor(x)
    return x


def _make(mod, name, args, kw):
    return getattr(mod.distributions, name)(*[_conv(mod, a) for a in args], **{k: _conv(mod, v) for k, v in kw.items()})


def _np(t):
    return t.detach().numpy() if hasattr(t, "detach") else np.asarray(t)


def _close(a, b, rtol=1e-6):
    np.testing.assert_allclose(_np(a), _np(b), rtol=rtol, atol=1e-9, equal_nan=True)


@pytest.mark.parametrize("name,args,kw,value", CASES, ids=IDS)
def test_against_torch(name, args, kw, value):
    e, t = _make(ember, name, args, kw), _make(torch, name, args, kw)
    assert tuple(e.batch_shape) == tuple(t.batch_shape) and tuple(e.event_shape) == tuple(t.event_shape)
    assert repr(e).replace("ember.", "torch.") == repr(t)
    _close(e.log_prob(ember.tensor(value)), t.log_prob(torch.tensor(value)))
    try:
        te = t.entropy()
    except NotImplementedError:
        with pytest.raises(NotImplementedError):
            e.entropy()
    else:
        _close(e.entropy(), te)
    for attr in ("mean", "variance", "stddev", "mode"):
        _close(getattr(e, attr), getattr(t, attr))
    if name == "Poisson":
        _close(e.log_prob(ember.tensor(value)), t.log_prob(torch.tensor(value)), 1e-10)
    if name in ("Normal", "Uniform", "Exponential", "Laplace", "Cauchy"):
        _close(e.cdf(ember.tensor(value)), t.cdf(torch.tensor(value)))
        p = RNG.uniform(0.05, 0.95, np.shape(value))
        _close(e.icdf(ember.tensor(p)), t.icdf(torch.tensor(p)))
    s = e.sample((7,))
    assert tuple(s.shape) == tuple(t.sample((7,)).shape)
    assert bool(ember.isfinite(e.log_prob(s)).all())
    assert e.has_rsample == t.has_rsample and e.has_enumerate_support == t.has_enumerate_support
    if e.has_enumerate_support:
        _close(e.enumerate_support(), t.enumerate_support())


@pytest.mark.parametrize("name,args,kw", [
    ("Normal", (LOC, -SCALE), {}), ("Exponential", (-SCALE,), {}), ("Bernoulli", (PROBS + 1,), {}),
    ("Categorical", (np.array([[0.5, -0.2, 0.7]]),), {}), ("Uniform", (LOC, LOC - 1), {}), ("Laplace", (LOC, 0 * SCALE), {}),
    ("MultivariateNormal", (LOC[0],), {"covariance_matrix": -COV}),
    ("Bernoulli", (PROBS,), {"logits": LOC}), ("MultivariateNormal", (LOC[0],), {}),
], ids=["normal", "exponential", "bernoulli", "categorical", "uniform", "laplace", "mvn", "both", "mvn-none"])
def test_argument_validation(name, args, kw):
    with pytest.raises(ValueError) as te:
        _make(torch, name, args, kw)
    with pytest.raises(ValueError) as ee:
        _make(ember, name, args, kw)
    assert str(ee.value).replace("ember.", "torch.") == str(te.value)


@pytest.mark.parametrize("name,args,kw,value", [
    ("Normal", (LOC, SCALE), {}, np.zeros(3)), ("Bernoulli", (PROBS,), {}, np.full((3, 2), 0.5)),
    ("Exponential", (SCALE,), {}, -np.ones((3, 2))), ("Categorical", (CAT,), {}, np.array([5, 0, 1])),
    ("Normal", (LOC, SCALE), {}, [1.0]), ("MultivariateNormal", (LOC,), {"covariance_matrix": COV}, np.zeros(3)),
], ids=["broadcast", "support", "exp-support", "cat-support", "not-tensor", "event-shape"])
def test_sample_validation(name, args, kw, value):
    e, t = _make(ember, name, args, kw), _make(torch, name, args, kw)
    with pytest.raises(ValueError) as te:
        t.log_prob(_conv(torch, value))
    with pytest.raises(ValueError) as ee:
        e.log_prob(_conv(ember, value))
    assert str(ee.value).replace("ember.", "torch.") == str(te.value)


def test_validate_args_false_skips_checks():
    d = ember.distributions.Normal(ember.zeros(2), -ember.ones(2), validate_args=False)
    assert bool(ember.isnan(d.log_prob(ember.zeros(2))).all())


KL_PAIRS = [("Normal", (LOC, SCALE), {}, (LOC[::-1].copy(), SCALE * 2), {}),
            ("Bernoulli", (PROBS,), {}, (1 - PROBS,), {}),
            ("Categorical", (CAT,), {}, (CAT[::-1].copy(),), {}),
            ("OneHotCategorical", (CAT,), {}, (CAT[::-1].copy(),), {}),
            ("Uniform", (LOC - 1, LOC + 1), {}, (LOC - 2, LOC + 2), {}),
            ("Uniform", (LOC - 1, LOC + 1), {}, (LOC, LOC + 2), {}),
            ("Exponential", (SCALE,), {}, (SCALE[::-1].copy(),), {}),
            ("Laplace", (LOC, SCALE), {}, (LOC * 2, SCALE + 1), {}),
            ("MultivariateNormal", (LOC,), {"covariance_matrix": COV}, (LOC[::-1].copy(),),
             {"scale_tril": np.linalg.cholesky(COV * 3)})]


@pytest.mark.parametrize("name,pa,pk,qa,qk", KL_PAIRS, ids=[f"{p[0]}-{i}" for i, p in enumerate(KL_PAIRS)])
def test_kl_divergence(name, pa, pk, qa, qk):
    e = ember.distributions.kl_divergence(_make(ember, name, pa, pk), _make(ember, name, qa, qk))
    t = torch.distributions.kl_divergence(_make(torch, name, pa, pk), _make(torch, name, qa, qk))
    _close(e, t)


def test_kl_independent_and_missing_pair():
    p = ember.distributions.Independent(_make(ember, "Normal", (LOC, SCALE), {}), 1)
    q = ember.distributions.Independent(_make(ember, "Normal", (LOC * 0, SCALE * 0 + 1), {}), 1)
    tp = torch.distributions.Independent(_make(torch, "Normal", (LOC, SCALE), {}), 1)
    tq = torch.distributions.Independent(_make(torch, "Normal", (LOC * 0, SCALE * 0 + 1), {}), 1)
    _close(ember.distributions.kl_divergence(p, q), torch.distributions.kl_divergence(tp, tq))
    _close(p.log_prob(ember.zeros(3, 2)), tp.log_prob(torch.zeros(3, 2)))
    assert repr(p).replace("ember.", "torch.") == repr(tp)
    with pytest.raises(NotImplementedError, match="No KL"):
        ember.distributions.kl_divergence(_make(ember, "Cauchy", (0.0, 1.0), {}), _make(ember, "Normal", (0.0, 1.0), {}))


@pytest.mark.parametrize("name,args,kw", [
    ("Normal", (LOC, SCALE), {}), ("Uniform", (LOC - 1, LOC + SCALE), {}), ("Exponential", (SCALE,), {}),
    ("Laplace", (LOC, SCALE), {}), ("Bernoulli", (PROBS,), {}), ("Categorical", (CAT,), {}),
    ("Poisson", (SCALE * 3,), {}),
    ("MultivariateNormal", (LOC,), {"covariance_matrix": COV}),
], ids=lambda v: v if isinstance(v, str) else "")
def test_sample_moments(name, args, kw):
    ember.manual_seed(0)
    e, t = _make(ember, name, args, kw), _make(torch, name, args, kw)
    s = e.sample((20000,)).double()
    if name == "Categorical":
        freq = ember.nn.functional.one_hot(s.long(), 4).double().mean(0)
        np.testing.assert_allclose(freq.numpy(), t.probs.numpy(), atol=0.02)
        return
    np.testing.assert_allclose(s.mean(0).numpy(), t.mean.numpy(), atol=0.06 * float(t.stddev.max()) + 0.01)
    np.testing.assert_allclose(s.var(0).numpy(), t.variance.numpy(), rtol=0.08, atol=0.01)


@pytest.mark.parametrize("name", ["Normal", "Laplace", "Cauchy", "Exponential", "Uniform", "MultivariateNormal"])
def test_rsample_is_differentiable(name):
    """The reparameterised sample's gradient equals the gradient of its inverse-transform formula."""
    ember.manual_seed(1)
    if name == "MultivariateNormal":
        loc = ember.tensor(LOC[0], requires_grad=True)
        L = ember.tensor(np.linalg.cholesky(COV), requires_grad=True)
        x = ember.distributions.MultivariateNormal(loc, scale_tril=L).rsample((50,))
        x.sum().backward()
        np.testing.assert_allclose(loc.grad.numpy(), [50.0, 50.0])
        eps = ember.linalg.solve_triangular(L.detach(), (x.detach() - loc.detach()).T, upper=False)  # (2, 50)
        np.testing.assert_allclose(L.grad.numpy(), np.ones((2, 1)) @ eps.sum(1, keepdim=True).T.numpy(),
                                   rtol=1e-6, atol=1e-9)
        return
    a = ember.tensor(LOC if name != "Exponential" else SCALE, requires_grad=True)
    b = ember.tensor(SCALE if name != "Uniform" else LOC + SCALE + 1, requires_grad=True)
    d = getattr(ember.distributions, name)(*((a,) if name == "Exponential" else (a, b)))
    x = d.rsample((100,))
    x.sum().backward()
    xs = x.detach().numpy()
    if name in ("Normal", "Laplace", "Cauchy"):
        np.testing.assert_allclose(a.grad.numpy(), np.full(LOC.shape, 100.0))
        np.testing.assert_allclose(b.grad.numpy(), ((xs - LOC) / SCALE).sum(0), rtol=1e-6)
    elif name == "Exponential":
        np.testing.assert_allclose(a.grad.numpy(), (-xs / SCALE).sum(0), rtol=1e-6)
    else:
        u = (xs - LOC) / (SCALE + 1)
        np.testing.assert_allclose(a.grad.numpy(), (1 - u).sum(0), rtol=1e-6)
        np.testing.assert_allclose(b.grad.numpy(), u.sum(0), rtol=1e-6)


def test_constraints_reprs_and_checks():
    C, T = ember.distributions.constraints, torch.distributions.constraints
    for n in ("real", "positive", "nonnegative", "boolean", "unit_interval", "simplex", "real_vector",
              "positive_definite", "lower_cholesky", "nonnegative_integer", "dependent", "one_hot"):
        assert repr(getattr(C, n)) == repr(getattr(T, n)), n
    assert repr(C.interval(0, 2)) == repr(T.interval(0, 2))
    x = np.array([[0.2, 0.8], [0.5, 0.6]])
    assert C.simplex.check(ember.tensor(x)).tolist() == T.simplex.check(torch.tensor(x)).tolist()
    assert bool(C.positive_definite.check(ember.tensor(COV))) and not bool(C.positive_definite.check(ember.tensor(-COV)))
    assert not math.isnan(0.0)
