"""torch.distributions.studentT.StudentT: Student's t with `df` degrees of freedom, location `loc` and scale
`scale`; reparameterised through a normal draw over the square root of a Chi2 draw."""
import math

import ember

from . import constraints
from .chi2 import Chi2
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["StudentT"]


class StudentT(Distribution):
    arg_constraints = {"df": constraints.positive, "loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    @property
    def mean(self):
        return ember.where(self.df > 1, self.loc, ember.full_like(self.loc, float("nan")))

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        finite = self.scale.pow(2) * self.df / (self.df - 2)
        m = ember.where(self.df > 2, finite, ember.full_like(self.df, float("inf")))
        return ember.where(self.df <= 1, ember.full_like(self.df, float("nan")), m)

    def __init__(self, df, loc=0.0, scale=1.0, validate_args=None):
        self.df, self.loc, self.scale = broadcast_all(df, loc, scale)
        self._chi2 = Chi2(self.df)
        super().__init__(self.df.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(StudentT, _instance)
        batch_shape = ember.Size(batch_shape)
        new.df = self.df.expand(batch_shape)
        new.loc = self.loc.expand(batch_shape)
        new.scale = self.scale.expand(batch_shape)
        new._chi2 = self._chi2.expand(batch_shape)
        Distribution.__init__(new, batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def rsample(self, sample_shape=ember.Size()):
        shape = self._extended_shape(sample_shape)
        x = ember.randn(tuple(shape), dtype=self.df.dtype)
        z = self._chi2.rsample(sample_shape)
        return self.loc + self.scale * x * ember.rsqrt(z / self.df)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        y = (value - self.loc) / self.scale
        z = (self.scale.log() + 0.5 * self.df.log() + 0.5 * math.log(math.pi) + ember.lgamma(0.5 * self.df)
             - ember.lgamma(0.5 * (self.df + 1.0)))
        return -0.5 * (self.df + 1.0) * ember.log1p(y ** 2.0 / self.df) - z

    def entropy(self):
        lbeta = ember.lgamma(0.5 * self.df) + math.lgamma(0.5) - ember.lgamma(0.5 * (self.df + 1))
        return (self.scale.log() + 0.5 * (self.df + 1) * (ember.digamma(0.5 * (self.df + 1))
                                                          - ember.digamma(0.5 * self.df))
                + 0.5 * self.df.log() + lbeta)
