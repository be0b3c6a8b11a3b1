"""torch.distributions.negative_binomial.NegativeBinomial: the number of successes before `total_count`
failures, each trial succeeding with `probs` (or sigmoid(`logits`)); sampled as a Gamma-Poisson mixture."""
import ember

from . import constraints
from .distribution import Distribution
from .gamma import Gamma
from .utils import broadcast_all, lazy_property, logits_to_probs, probs_to_logits

__all__ = ["NegativeBinomial"]


class NegativeBinomial(Distribution):
    arg_constraints = {"total_count": constraints.greater_than_eq(0),
                       "probs": constraints.half_open_interval(0.0, 1.0), "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, total_count, probs=None, logits=None, validate_args=None):
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            self.total_count, self.probs = broadcast_all(total_count, probs)
            self.total_count = self.total_count.type_as(self.probs)
        else:
            self.total_count, self.logits = broadcast_all(total_count, logits)
            self.total_count = self.total_count.type_as(self.logits)
        self._param = self.probs if probs is not None else self.logits
        super().__init__(self._param.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(NegativeBinomial, _instance)
        batch_shape = ember.Size(batch_shape)
        new.total_count = self.total_count.expand(batch_shape)
        if "probs" in self.__dict__:
            new.probs = self.probs.expand(batch_shape)
            new._param = new.probs
        if "logits" in self.__dict__:
            new.logits = self.logits.expand(batch_shape)
            new._param = new.logits
        Distribution.__init__(new, batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        return self.total_count * ember.exp(self.logits)

    @property
    def mode(self):
        return ((self.total_count - 1) * self.logits.exp()).floor().clamp(min=0.0)

    @property
    def variance(self):
        return self.mean / ember.sigmoid(-self.logits)

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        return logits_to_probs(self.logits, is_binary=True)

    @property
    def param_shape(self):
        return self._param.size()

    @lazy_property
    def _gamma(self):
        # the Poisson rate's mixing distribution: Gamma(total_count, scale = p / (1 - p))
        return Gamma(concentration=self.total_count, rate=ember.exp(-self.logits), validate_args=False)

    def sample(self, sample_shape=ember.Size()):
        with ember.no_grad():
            return ember.poisson(self._gamma.sample(sample_shape=sample_shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logsigmoid = ember.nn.functional.logsigmoid
        log_unnormalized_prob = self.total_count * logsigmoid(-self.logits) + value * logsigmoid(self.logits)
        log_normalization = (-ember.lgamma(self.total_count + value) + ember.lgamma(1.0 + value)
                             + ember.lgamma(self.total_count))
        # total_count + value == 0 is the certain event (no trials), whose log normaliser is 0
        log_normalization = log_normalization.masked_fill(self.total_count + value == 0.0, 0.0)
        return log_unnormalized_prob - log_normalization
