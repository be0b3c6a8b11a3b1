"""torch.distributions.weibull.Weibull: the two-parameter Weibull (scale lambda, concentration k), as
scale * E^(1/k) for E ~ Exponential(1)."""
import ember

from . import constraints
from .exponential import Exponential
from .gumbel import _EULER
from .transformed_distribution import TransformedDistribution
from .transforms import AffineTransform, PowerTransform
from .utils import broadcast_all

__all__ = ["Weibull"]


class Weibull(TransformedDistribution):
    arg_constraints = {"scale": constraints.positive, "concentration": constraints.positive}
    support = constraints.positive

    def __init__(self, scale, concentration, validate_args=None):
        self.scale, self.concentration = broadcast_all(scale, concentration)
        self.concentration_reciprocal = self.concentration.reciprocal()
        base_dist = Exponential(ember.ones_like(self.scale), validate_args=validate_args)
        transforms = [PowerTransform(exponent=self.concentration_reciprocal), AffineTransform(loc=0, scale=self.scale)]
        super().__init__(base_dist, transforms, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Weibull, _instance)
        new.scale = self.scale.expand(batch_shape)
        new.concentration = self.concentration.expand(batch_shape)
        new.concentration_reciprocal = new.concentration.reciprocal()
        transforms = [PowerTransform(exponent=new.concentration_reciprocal), AffineTransform(loc=0, scale=new.scale)]
        TransformedDistribution.__init__(new, self.base_dist.expand(batch_shape), transforms, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        return self.scale * ember.exp(ember.lgamma(1 + self.concentration_reciprocal))

    @property
    def mode(self):
        return self.scale * ((self.concentration - 1) / self.concentration) ** self.concentration.reciprocal()

    @property
    def variance(self):
        return self.scale.pow(2) * (ember.exp(ember.lgamma(1 + 2 * self.concentration_reciprocal))
                                    - ember.exp(2 * ember.lgamma(1 + self.concentration_reciprocal)))

    def entropy(self):
        return (_EULER * (1 - self.concentration_reciprocal) + ember.log(self.scale * self.concentration_reciprocal)
                + 1)
