"""ember.distributions: torch.distributions, probability distributions with sampling, reparameterised
sampling (rsample, differentiable), log_prob, entropy, moments, cdf/icdf, argument and sample validation with
torch's ValueError messages, and kl_divergence. One module per distribution, named as torch's.

Present: every distribution torch.distributions exports (Normal ... Wishart, the relaxed distributions,
MixtureSameFamily, LowRankMultivariateNormal, LKJCholesky, ExponentialFamily with entropy and KL by Bregman
divergence), every transform, constraints, biject_to / transform_to (constraint_registry), and kl_divergence with
all the pairs torch registers. Samples come from ember's generator (ember.manual_seed), so their values
differ from those of torch; their distribution does not. A torch name not here raises AttributeError saying so."""
from .._core.unimplemented import missing_attribute as _missing_attribute
from . import constraints  # noqa: F401
from .bernoulli import Bernoulli
from .beta import Beta
from .binomial import Binomial
from .categorical import Categorical
from .continuous_bernoulli import ContinuousBernoulli
from .cauchy import Cauchy
from .chi2 import Chi2
from .dirichlet import Dirichlet
from .distribution import Distribution
from .exp_family import ExponentialFamily
from .exponential import Exponential
from .fishersnedecor import FisherSnedecor
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
from .lkj_cholesky import LKJCholesky
from .log_normal import LogNormal
from .logistic_normal import LogisticNormal
from .lowrank_multivariate_normal import LowRankMultivariateNormal
from .mixture_same_family import MixtureSameFamily
from .multinomial import Multinomial
from .multivariate_normal import MultivariateNormal
from .negative_binomial import NegativeBinomial
from .normal import Normal
from .one_hot_categorical import OneHotCategorical, OneHotCategoricalStraightThrough
from .pareto import Pareto
from .poisson import Poisson
from .relaxed_bernoulli import RelaxedBernoulli
from .relaxed_categorical import RelaxedOneHotCategorical
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
from .von_mises import VonMises
from .weibull import Weibull
from .wishart import Wishart
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
           "transform_to", "constraint_registry", "LowRankMultivariateNormal", "MixtureSameFamily",
           "NegativeBinomial", "OneHotCategoricalStraightThrough", "RelaxedBernoulli", "RelaxedOneHotCategorical",
           "VonMises", "ContinuousBernoulli", "ExponentialFamily", "FisherSnedecor", "LKJCholesky", "LogisticNormal",
           "Wishart"]


def __getattr__(name):   # torch names ember lacks say so (see ember/_core/unimplemented.py)
    return _missing_attribute(__name__, name)
