"""ember.distributions: torch.distributions, probability distributions with sampling, reparameterised
sampling (rsample, differentiable), log_prob, entropy, moments, argument and sample validation with torch's
ValueError messages, and kl_divergence. One module per distribution, as torch.

Present: Distribution, Normal, Uniform, Bernoulli, Categorical, OneHotCategorical, Exponential, Laplace,
Cauchy, Poisson, MultivariateNormal, Independent, constraints, kl_divergence / register_kl. Samples come from ember's
generator (ember.manual_seed), so their values differ from torch's; their distribution does not.
Not here yet (torch has them): Beta, Gamma, Dirichlet, Binomial, Multinomial, StudentT, LogNormal, TransformedDistribution and transforms, MixtureSameFamily, the relaxed distributions, ..."""
from .._core.unimplemented import missing_attribute as _missing_attribute
from . import constraints  # noqa: F401
from .bernoulli import Bernoulli
from .categorical import Categorical
from .cauchy import Cauchy
from .distribution import Distribution
from .exponential import Exponential
from .independent import Independent
from .kl import kl_divergence, register_kl
from .laplace import Laplace
from .multivariate_normal import MultivariateNormal
from .normal import Normal
from .one_hot_categorical import OneHotCategorical
from .poisson import Poisson
from .uniform import Uniform

__all__ = ["Bernoulli", "Categorical", "Cauchy", "Distribution", "Exponential", "Independent", "Laplace", "MultivariateNormal",
           "Normal", "OneHotCategorical", "Poisson", "Uniform", "constraints", "kl_divergence", "register_kl"]


def __getattr__(name):   # torch names ember lacks say so (see ember/_core/unimplemented.py)
    return _missing_attribute(__name__, name)
