"""kl_divergence against torch.distributions.kl for every pair torch registers: the closed forms, infinite KL
where supports do not nest, the Bregman-divergence KL of exponential families, and the dispatch errors."""
import numpy as np
import pytest

import ember

from ._parity_checks import close

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.parity

RNG = np.random.default_rng(17)
S = (3, 2)


def _pos(lo=0.5, hi=2.0):
    return RNG.uniform(lo, hi, S)


# two parameter sets per family (p and q draw different ones)
PARAMS = {name: [fn() for _ in range(2)] for name, fn in {
    "Normal": lambda: (RNG.standard_normal(S), _pos()),
    "Laplace": lambda: (RNG.standard_normal(S), _pos()),
    "Cauchy": lambda: (RNG.standard_normal(S), _pos()),
    "Gumbel": lambda: (RNG.standard_normal(S), _pos()),
    "HalfNormal": lambda: (_pos(),),
    "Exponential": lambda: (_pos(),),
    "Gamma": lambda: (_pos(0.5, 3.0), _pos()),
    "Beta": lambda: (_pos(0.5, 3.0), _pos(0.5, 3.0)),
    "Pareto": lambda: (_pos(0.5, 1.5), _pos(2.5, 4.0)),
    "Uniform": lambda: (RNG.uniform(0.05, 0.3, S), RNG.uniform(0.6, 0.95, S)),
    "ContinuousBernoulli": lambda: (RNG.uniform(0.1, 0.9, S),),
    "Bernoulli": lambda: (RNG.uniform(0.1, 0.9, S),),
    "Geometric": lambda: (RNG.uniform(0.1, 0.9, S),),
    "Poisson": lambda: (_pos(0.5, 5.0),),
    "Binomial": lambda: (np.full(S, 5.0), RNG.uniform(0.1, 0.9, S)),
    "Categorical": lambda: (RNG.dirichlet(np.ones(4), S),),
    "OneHotCategorical": lambda: (RNG.dirichlet(np.ones(4), S),),
    "Dirichlet": lambda: (_pos(0.5, 3.0),),
}.items()}


def _build(mod, name, i):
    return getattr(mod.distributions, name)(*[mod.tensor(a) for a in PARAMS[name][i]])


PAIRS = sorted((p.__name__, q.__name__) for p, q in torch.distributions.kl._KL_REGISTRY
               if p.__name__ in PARAMS and q.__name__ in PARAMS)


@pytest.mark.parametrize("p,q", PAIRS, ids=[f"{p}-{q}" for p, q in PAIRS])
def test_kl_matches_torch(p, q):
    tp, tq = _build(torch, p, 0), _build(torch, q, 1)
    ep, eq = _build(ember, p, 0), _build(ember, q, 1)
    try:
        want = torch.distributions.kl_divergence(tp, tq)
    except NotImplementedError as exc:
        with pytest.raises(NotImplementedError) as ee:
            ember.distributions.kl_divergence(ep, eq)
        assert str(ee.value) == str(exc)
        return
    close(ember.distributions.kl_divergence(ep, eq), want, 1e-6, 1e-8)


def test_kl_with_itself_is_zero_and_parameters_get_gradients():
    for name in ("Gumbel", "Gamma", "Beta", "Pareto", "ContinuousBernoulli", "Dirichlet", "Poisson", "HalfNormal"):
        p = _build(ember, name, 0)
        close(ember.distributions.kl_divergence(p, p), ember.zeros(p.batch_shape, dtype=ember.float64), 1e-6, 1e-7)
    rate = ember.tensor(PARAMS["Gamma"][0][1], requires_grad=True)
    conc = ember.tensor(PARAMS["Gamma"][0][0])
    kl = ember.distributions.kl_divergence(ember.distributions.Gamma(conc, rate), _build(ember, "Gamma", 1))
    kl.sum().backward()
    trate = torch.tensor(PARAMS["Gamma"][0][1], requires_grad=True)
    torch.distributions.kl_divergence(torch.distributions.Gamma(torch.tensor(PARAMS["Gamma"][0][0]), trate),
                                      _build(torch, "Gamma", 1)).sum().backward()
    close(rate.grad, trate.grad)


def _mvns(T):
    loc = T.tensor(RNG_MVN_LOC)
    lr = T.distributions.LowRankMultivariateNormal(loc, T.tensor(RNG_W), T.tensor(RNG_D))
    lr2 = T.distributions.LowRankMultivariateNormal(loc[0] * 0.5, T.tensor(RNG_W2), T.tensor(RNG_D2))
    mvn = T.distributions.MultivariateNormal(loc.flip(0), covariance_matrix=T.tensor(RNG_COV))
    return {"lr": lr, "lr2": lr2, "mvn": mvn}


RNG_MVN_LOC = RNG.standard_normal((2, 4))
RNG_W, RNG_W2 = RNG.standard_normal((2, 4, 2)), RNG.standard_normal((4, 3))
RNG_D, RNG_D2 = RNG.uniform(0.5, 1.5, (2, 4)), RNG.uniform(0.5, 1.5, 4)
_B = RNG.standard_normal((2, 4, 4))
RNG_COV = _B @ _B.transpose(0, 2, 1) + np.eye(4)


@pytest.mark.parametrize("p,q", [("lr", "lr2"), ("lr2", "lr"), ("mvn", "lr"), ("lr", "mvn"), ("mvn", "lr2"),
                                 ("lr2", "mvn")])
def test_kl_low_rank_and_full_multivariate_normals(p, q):
    e, t = _mvns(ember), _mvns(torch)
    close(ember.distributions.kl_divergence(e[p], e[q]), torch.distributions.kl_divergence(t[p], t[q]), 1e-6)


def test_kl_between_wisharts_uses_the_bregman_divergence():
    def make(T, df, cov):
        return T.distributions.Wishart(T.tensor(df), covariance_matrix=T.tensor(cov))
    cov2 = RNG_COV[::-1].copy()
    want = torch.distributions.kl_divergence(make(torch, [5.0, 7.0], RNG_COV), make(torch, [6.0, 4.5], cov2))
    got = ember.distributions.kl_divergence(make(ember, [5.0, 7.0], RNG_COV), make(ember, [6.0, 4.5], cov2))
    close(got, want, 1e-6)


def test_kl_transformed_and_independent():
    for T in (torch, ember):
        D = T.distributions
        base = [D.Normal(T.tensor(a), T.tensor(b)) for a, b in PARAMS["Normal"]]
        tr = D.transforms.ExpTransform()
        kl = D.kl_divergence(D.TransformedDistribution(base[0], [tr]), D.TransformedDistribution(base[1], [tr]))
        ind = D.kl_divergence(D.Independent(base[0], 1), D.Independent(base[1], 1))
        if T is torch:
            want_kl, want_ind = kl, ind
    close(kl, want_kl)
    close(ind, want_ind)


def test_kl_errors_match_torch():
    for T in (torch, ember):
        D = T.distributions
        with pytest.raises(NotImplementedError, match="cannot"):
            D.kl_divergence(_build(T, "Poisson", 0), _build(T, "Dirichlet", 0))
        with pytest.raises(NotImplementedError):
            D.kl_divergence(D.VonMises(T.tensor(0.0), T.tensor(1.0)), D.VonMises(T.tensor(0.0), T.tensor(1.0)))


@pytest.mark.parametrize("name,same", [("Weibull", True), ("Weibull", False), ("LogisticNormal", True),
                                       ("Kumaraswamy", True), ("RelaxedBernoulli", True), ("LogNormal", True)])
def test_kl_through_equal_transforms(name, same):
    # TransformedDistribution pairs reduce to their bases when the transforms compare equal (parameters included)
    a, b = _pos(), _pos()
    args = {"Weibull": [(a, b), (a, b if same else b + 1)], "LogisticNormal": [(a, b), (b, a)],
            "Kumaraswamy": [(a, b), (a, b)], "RelaxedBernoulli": [(np.array(0.5), U), (np.array(0.5), U[::-1].copy())],
            "LogNormal": [(a, b), (b, a)]}[name]

    def kl(T):
        D = T.distributions
        return D.kl_divergence(*[getattr(D, name)(*[T.tensor(x) for x in xs]) for xs in args])
    try:
        want = kl(torch)
    except NotImplementedError:
        with pytest.raises(NotImplementedError):
            kl(ember)
        return
    close(kl(ember), want, 1e-6)


U = RNG.uniform(0.1, 0.9, S)


def _ambiguous_kl(lib):
    """kl_divergence(A, B) where (A, Normal) and (Normal, B) are both registered and neither is more specific:
    the (value, warnings) it gives; the registrations are removed again."""
    import warnings
    D = lib.distributions
    A = type("A", (D.Normal,), {})
    B = type("B", (D.Normal,), {})
    D.kl.register_kl(A, D.Normal)(lambda p, q: lib.tensor(1.0))
    D.kl.register_kl(D.Normal, B)(lambda p, q: lib.tensor(2.0))
    try:
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            first = D.kl_divergence(A(0.0, 1.0), B(0.0, 1.0)).item()
            D.kl_divergence(A(0.0, 1.0), B(0.0, 1.0))     # memoized: no second warning
            exact = D.kl_divergence(A(0.0, 1.0), D.Normal(0.0, 1.0)).item()
        return first, exact, [(x.category, str(x.message)) for x in w]
    finally:
        del D.kl._KL_REGISTRY[A, D.Normal], D.kl._KL_REGISTRY[D.Normal, B]
        D.kl._KL_MEMOIZE.clear()


def test_ambiguous_kl_warns_as_torch():
    import torch.distributions  # noqa: F401
    import ember.distributions  # noqa: F401
    assert _ambiguous_kl(ember) == _ambiguous_kl(torch)
    assert _ambiguous_kl(ember)[2] == [(RuntimeWarning, "Ambiguous kl_divergence(A, B). Please register_kl(A, B)")]
