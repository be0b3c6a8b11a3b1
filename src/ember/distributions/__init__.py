"""ember.distributions: torch.distributions, probability distributions with sampling, reparameterised
sampling (rsample, differentiable), log_prob, entropy, moments, argument and sample validation with torch's
ValueError messages, and kl_divergence. One module per distribution, as torch.

Present: Distribution, Normal, Uniform, Bernoulli, Categorical, OneHotCategorical, Exponential, Laplace,
Cauchy, Poisson, Gamma, Chi2, Beta, Dirichlet (reparameterised through _standard_gamma's implicit gradient),
StudentT, Geometric, Binomial, Multinomial, LogNormal, TransformedDistribution with the common transforms (Exp, Affine,
Sigmoid, Tanh, Power, Compose), MultivariateNormal, Independent, constraints, kl_divergence / register_kl. Samples come from ember's
generator (ember.manual_seed), so their values differ from torch's; their distribution does not.
Not here yet (torch has them; touching one raises AttributeError saying so): the other
transforms, MixtureSameFamily, the relaxed distributions, ..."""
from .._core.unimplemented import missing_attribute as _missing_attribute
from . import constraints  # noqa: F401
from .bernoulli import Bernoulli
from .beta import Beta
from .binomial import Binomial
from .categorical import Categorical
from .cauchy import Cauchy
from .chi2 import Chi2
from .dirichlet import Dirichlet
from .distribution import Distribution
from .exponential import Exponential
from .gamma import Gamma
from .generalized_pareto import GeneralizedPareto
from .geometric import Geometric
from .gumbel import Gumbel
from .half_cauchy import HalfCauchy
from .half_normal import HalfNormal
from .independent import Independent
from .inverse_gamma import InverseGamma
from .kl import kl_divergence, register_kl
from .kumaraswamy import Kumaraswamy
from .laplace import Laplace
from .log_normal import LogNormal
from .multinomial import Multinomial
from .multivariate_normal import MultivariateNormal
from .normal import Normal
from .one_hot_categorical import OneHotCategorical
from .pareto import Pareto
from .poisson import Poisson
from .studentT import StudentT
from . import transforms  # noqa: F401
from . import constraint_registry  # noqa: F401
from .transformed_distribution import TransformedDistribution
from .transforms import (AbsTransform, AffineTransform, CatTransform, ComposeTransform, CorrCholeskyTransform,
                         CumulativeDistributionTransform, ExpTransform, IndependentTransform, LowerCholeskyTransform,
                         PositiveDefiniteTransform, PowerTransform, ReshapeTransform, SigmoidTransform,
                         SoftmaxTransform, SoftplusTransform, StackTransform, StickBreakingTransform, TanhTransform,
                         Transform, identity_transform)
from .uniform import Uniform
from .weibull import Weibull
from .constraint_registry import biject_to, transform_to

__all__ = ["Bernoulli", "Beta", "Binomial", "Categorical", "Cauchy", "Chi2", "Dirichlet", "Distribution", "Exponential",
           "Gamma", "Geometric", "Independent", "Laplace", "LogNormal", "Multinomial", "MultivariateNormal", "Normal",
           "OneHotCategorical", "Poisson", "StudentT", "TransformedDistribution", "Uniform", "constraints",
           "kl_divergence", "register_kl", "Transform", "ComposeTransform", "ExpTransform", "AffineTransform",
           "SigmoidTransform", "TanhTransform", "PowerTransform", "transforms", "GeneralizedPareto", "Gumbel",
           "HalfCauchy", "HalfNormal", "InverseGamma", "Kumaraswamy", "Pareto", "Weibull", "AbsTransform",
           "CatTransform", "CorrCholeskyTransform", "CumulativeDistributionTransform", "IndependentTransform",
           "LowerCholeskyTransform", "PositiveDefiniteTransform", "ReshapeTransform", "SoftmaxTransform",
           "SoftplusTransform", "StackTransform", "StickBreakingTransform", "identity_transform", "biject_to",
           "transform_to", "constraint_registry"]


def __getattr__(name):   # torch names ember lacks say so (see ember/_core/unimplemented.py)
    return _missing_attribute(__name__, name)
