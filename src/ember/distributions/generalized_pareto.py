"""torch.distributions.generalized_pareto.GeneralizedPareto: the generalized Pareto distribution (loc, scale,
concentration xi), reparameterised through its inverse cdf."""
import math
import numbers

import ember

from . import constraints
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["GeneralizedPareto"]


class GeneralizedPareto(Distribution):
    arg_constraints = {"loc": constraints.real, "scale": constraints.positive, "concentration": constraints.real}
    has_rsample = True

    def __init__(self, loc, scale, concentration, validate_args=None):
        self.loc, self.scale, self.concentration = broadcast_all(loc, scale, concentration)
        if all(isinstance(v, numbers.Number) for v in (loc, scale, concentration)):
            batch_shape = ember.Size()
        else:
            batch_shape = self.loc.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(GeneralizedPareto, _instance)
        batch_shape = ember.Size(batch_shape)
        new.loc = self.loc.expand(batch_shape)
        new.scale = self.scale.expand(batch_shape)
        new.concentration = self.concentration.expand(batch_shape)
        Distribution.__init__(new, batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def rsample(self, sample_shape=ember.Size()):
        u = ember.rand(tuple(self._extended_shape(sample_shape)), dtype=self.loc.dtype)
        return self.icdf(u)

    def _z(self, x):
        return (x - self.loc) / self.scale

    def _safe_concentration(self):
        eq_zero = ember.isclose(self.concentration, ember.zeros_like(self.concentration))
        return eq_zero, ember.where(eq_zero, ember.ones_like(self.concentration), self.concentration)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        z = self._z(value)
        eq_zero, safe_conc = self._safe_concentration()
        y = 1 / safe_conc + ember.ones_like(z)
        where_nonzero = ember.where(y == 0, y, y * ember.log1p(safe_conc * z))
        return -self.scale.log() - ember.where(eq_zero, z, where_nonzero)

    def log_survival_function(self, value):
        if self._validate_args:
            self._validate_sample(value)
        z = self._z(value)
        eq_zero, safe_conc = self._safe_concentration()
        return ember.where(eq_zero, -z, -ember.log1p(safe_conc * z) / safe_conc)

    def log_cdf(self, value):
        return ember.log1p(-ember.exp(self.log_survival_function(value)))

    def cdf(self, value):
        return ember.exp(self.log_cdf(value))

    def icdf(self, value):
        eq_zero, safe_conc = self._safe_concentration()
        logu = ember.log1p(-value)
        where_nonzero = self.loc + self.scale / safe_conc * ember.expm1(-safe_conc * logu)
        return ember.where(eq_zero, self.loc - self.scale * logu, where_nonzero)

    @property
    def mean(self):
        valid = self.concentration < 1
        safe_conc = ember.where(valid, self.concentration, 0.5)
        return ember.where(valid, self.loc + self.scale / (1 - safe_conc), math.nan)

    @property
    def variance(self):
        valid = self.concentration < 0.5
        safe_conc = ember.where(valid, self.concentration, 0.25)
        return ember.where(valid, self.scale ** 2 / ((1 - safe_conc) ** 2 * (1 - 2 * safe_conc)), math.nan)

    @property
    def mode(self):
        return self.loc

    def entropy(self):
        return ember.broadcast_to(ember.log(self.scale) + self.concentration + 1, tuple(self._batch_shape))

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self):
        upper = ember.where(self.concentration < 0, self.loc - self.scale / self.concentration, math.inf)
        return constraints.interval(self.loc, upper)
