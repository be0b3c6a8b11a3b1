"""float32 parameters give samples, densities, entropies and moments of torch's dtype and shape (float32),
for the distributions built on transforms, relaxations and special functions."""
import warnings

import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.parity

RNG = np.random.default_rng(23)
P = RNG.uniform(0.5, 2, (3,)).astype(np.float32)
L = RNG.standard_normal(3).astype(np.float32)
U = RNG.uniform(0.1, 0.9, 3).astype(np.float32)
SIMPLEX = RNG.dirichlet(np.ones(3), (3,)).astype(np.float32)
ONE = np.ones((), np.float32)

CASES = {
    "HalfNormal": (P,), "HalfCauchy": (P,), "Gumbel": (L, P), "Weibull": (P, P), "Pareto": (P, P),
    "InverseGamma": (P, P), "Kumaraswamy": (P, P), "GeneralizedPareto": (L, P, U * 0.2), "NegativeBinomial": (P, U),
    "RelaxedBernoulli": (ONE * 0.5, U), "RelaxedOneHotCategorical": (ONE, SIMPLEX), "VonMises": (L, P),
    "ContinuousBernoulli": (U,), "FisherSnedecor": (P, P), "LogisticNormal": (L, P),
    "LowRankMultivariateNormal": (L, RNG.standard_normal((3, 2)).astype(np.float32), P),
    "OneHotCategoricalStraightThrough": (SIMPLEX,),
}


def _same_meta(e, t):
    assert str(e.dtype).split(".")[-1] == str(t.dtype).split(".")[-1] and tuple(e.shape) == tuple(t.shape)


@pytest.mark.parametrize("name", list(CASES))
def test_float32_in_float32_out(name):
    args = CASES[name]
    e = getattr(ember.distributions, name)(*[ember.tensor(a) for a in args])
    t = getattr(torch.distributions, name)(*[torch.tensor(a) for a in args])
    ts = t.sample((2,))
    _same_meta(e.sample((2,)), ts)
    _same_meta(e.log_prob(ember.tensor(ts.numpy())), t.log_prob(ts))
    if e.has_rsample:
        _same_meta(e.rsample((2,)), t.rsample((2,)))
    for attr in ("entropy", "mean", "variance"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                want = getattr(t, attr)
                want = want() if callable(want) else want
            except NotImplementedError:
                continue
        got = getattr(e, attr)
        _same_meta(got() if callable(got) else got, want)
