"""torch.distributions' location-scale families (Normal, Laplace, Cauchy): the `loc`/`scale` constructor and
`expand` they share; each family adds its own moments, sampling and densities."""
import numbers

import ember

from .distribution import Distribution
from .utils import broadcast_all


class LocationScale(Distribution):
    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = broadcast_all(loc, scale)
        if isinstance(loc, numbers.Number) and isinstance(scale, numbers.Number):
            batch_shape = ember.Size()
        else:
            batch_shape = self.loc.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def _expand_as(self, cls, batch_shape, _instance):
        """`expand` of family `cls` (passed by each family, as torch's checked-instance rule names it)."""
        new = self._get_checked_instance(cls, _instance)
        batch_shape = ember.Size(batch_shape)
        new.loc, new.scale = self.loc.expand(batch_shape), self.scale.expand(batch_shape)
        Distribution.__init__(new, batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new
