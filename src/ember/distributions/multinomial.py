"""torch.distributions.multinomial.Multinomial: counts of `total_count` draws from a Categorical over the
last dimension of `probs` (or `logits`)."""
import ember

from . import constraints
from .binomial import Binomial
from .categorical import Categorical
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["Multinomial"]


class Multinomial(Distribution):
    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}

    @property
    def mean(self):
        return self.probs * self.total_count

    @property
    def variance(self):
        return self.total_count * self.probs * (1 - self.probs)

    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None):
        if not isinstance(total_count, int):
            raise NotImplementedError("inhomogeneous total_count is not supported")
        self.total_count = total_count
        self._categorical = Categorical(probs=probs, logits=logits)
        self._binomial = Binomial(total_count=total_count, probs=self.probs)
        batch_shape = self._categorical.batch_shape
        event_shape = self._categorical.param_shape[-1:]
        super().__init__(batch_shape, event_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Multinomial, _instance)
        batch_shape = ember.Size(batch_shape)
        new.total_count = self.total_count
        new._categorical = self._categorical.expand(batch_shape)
        new._binomial = Binomial(total_count=self.total_count, probs=new._categorical.probs)
        Distribution.__init__(new, batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @constraints.dependent_property(is_discrete=True, event_dim=1)
    def support(self):
        return constraints.multinomial(self.total_count)

    @property
    def logits(self):
        return self._categorical.logits

    @property
    def probs(self):
        return self._categorical.probs

    @property
    def param_shape(self):
        return self._categorical.param_shape

    def sample(self, sample_shape=ember.Size()):
        sample_shape = ember.Size(sample_shape)
        with ember.no_grad():
            samples = self._categorical.sample(ember.Size((self.total_count,)) + sample_shape)
            order = list(range(1, samples.dim())) + [0]
            samples = samples.permute(*order)           # the draws last
            counts = ember.zeros(tuple(self._extended_shape(sample_shape)), dtype=samples.dtype)
            counts.scatter_add_(-1, samples, ember.ones_like(samples))
            return counts.type_as(self.probs)

    def entropy(self):
        n = ember.tensor(float(self.total_count), dtype=self.probs.dtype)
        term1 = n * self._categorical.entropy() - ember.lgamma(n + 1)
        support = self._binomial.enumerate_support(expand=False)[1:]
        binomial_probs = ember.exp(self._binomial.log_prob(support))
        weights = ember.lgamma(support + 1)
        return term1 + (binomial_probs * weights).sum([0, -1])

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        log_factorial_n = ember.lgamma(value.sum(-1) + 1)
        log_factorial_xs = ember.lgamma(value + 1).sum(-1)
        logits = ember.where((value == 0) & (logits == float("-inf")), ember.zeros_like(logits), logits)
        log_powers = (logits * value).sum(-1)
        return log_factorial_n - log_factorial_xs + log_powers
