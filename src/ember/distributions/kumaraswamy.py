"""torch.distributions.kumaraswamy.Kumaraswamy: the Kumaraswamy distribution on [0, 1] (concentration1 = a,
concentration0 = b), as (1 - U^(1/b))^(1/a) for U ~ Uniform(0, 1)."""
import math

import ember

from . import constraints
from .gumbel import _EULER
from .transformed_distribution import TransformedDistribution
from .transforms import AffineTransform, PowerTransform
from .uniform import Uniform
from .utils import broadcast_all

__all__ = ["Kumaraswamy"]


def _moments(a, b, n):
    """E[X^n] = b * B(1 + n/a, b), in log space."""
    arg1 = 1 + n / a
    log_value = ember.lgamma(arg1) + ember.lgamma(b) - ember.lgamma(arg1 + b)
    return b * ember.exp(log_value)


class Kumaraswamy(TransformedDistribution):
    arg_constraints = {"concentration1": constraints.positive, "concentration0": constraints.positive}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, concentration1, concentration0, validate_args=None):
        self.concentration1, self.concentration0 = broadcast_all(concentration1, concentration0)
        base_dist = Uniform(ember.full_like(self.concentration0, 0), ember.full_like(self.concentration0, 1),
                            validate_args=validate_args)
        transforms = [PowerTransform(exponent=self.concentration0.reciprocal()), AffineTransform(loc=1.0, scale=-1.0),
                      PowerTransform(exponent=self.concentration1.reciprocal())]
        super().__init__(base_dist, transforms, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Kumaraswamy, _instance)
        new.concentration1 = self.concentration1.expand(batch_shape)
        new.concentration0 = self.concentration0.expand(batch_shape)
        return super().expand(batch_shape, _instance=new)

    @property
    def mean(self):
        return _moments(self.concentration1, self.concentration0, 1)

    @property
    def mode(self):
        log_mode = (self.concentration0.reciprocal() * (-self.concentration0).log1p()
                    - (-self.concentration0 * self.concentration1).log1p())
        undefined = (self.concentration0 < 1) | (self.concentration1 < 1)
        return ember.where(undefined, math.nan, log_mode).exp()

    @property
    def variance(self):
        return _moments(self.concentration1, self.concentration0, 2) - ember.pow(self.mean, 2)

    def entropy(self):
        t1 = 1 - self.concentration1.reciprocal()
        t0 = 1 - self.concentration0.reciprocal()
        h0 = ember.digamma(self.concentration0 + 1) + _EULER
        return t0 + t1 * h0 - ember.log(self.concentration1) - ember.log(self.concentration0)
