"""torch.distributions.lkj_cholesky.LKJCholesky: the LKJ distribution over Cholesky factors of `dim` x `dim`
correlation matrices (density proportional to det(L L^T)^(concentration - 1)), sampled by the onion method
(Lewandowski, Kurowicka and Joe, 2009)."""
import math

import ember

from . import constraints
from .beta import Beta
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["LKJCholesky"]


class LKJCholesky(Distribution):
    arg_constraints = {"concentration": constraints.positive}
    support = constraints.corr_cholesky

    def __init__(self, dim, concentration=1.0, validate_args=None):
        if dim < 2:
            raise ValueError(f"Expected dim to be an integer greater than or equal to 2. Found dim={dim}.")
        self.dim = dim
        (self.concentration,) = broadcast_all(concentration)
        batch_shape = self.concentration.size()
        event_shape = ember.Size((dim, dim))
        # row i's squared norm of off-diagonal part is Beta(i / 2, concentration + (dim - 2 - i) / 2)
        marginal_conc = self.concentration + 0.5 * (self.dim - 2)
        offset = ember.arange(self.dim - 1, dtype=self.concentration.dtype)
        offset = ember.cat([offset.new_zeros((1,)), offset])
        self._beta = Beta(offset + 0.5, marginal_conc.unsqueeze(-1) - 0.5 * offset)
        super().__init__(batch_shape, event_shape, validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(LKJCholesky, _instance)
        batch_shape = ember.Size(batch_shape)
        new.dim = self.dim
        new.concentration = self.concentration.expand(batch_shape)
        new._beta = self._beta.expand(tuple(batch_shape) + (self.dim,))
        Distribution.__init__(new, batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def sample(self, sample_shape=ember.Size()):
        with ember.no_grad():
            y = self._beta.sample(sample_shape).unsqueeze(-1)
            u_normal = ember.randn(tuple(self._extended_shape(sample_shape)), dtype=y.dtype).tril(-1)
            norm = u_normal.norm(dim=-1, keepdim=True)
            # row 0 has no off-diagonal part; its norm is 0 (the 0/0 is replaced below)
            u_hypersphere = u_normal / ember.where(norm == 0, ember.ones_like(norm), norm)
            w = ember.sqrt(y) * u_hypersphere
            diag_elems = ember.clamp(1 - ember.sum(w ** 2, dim=-1), min=ember.finfo(w.dtype).tiny).sqrt()
            return w + ember.diag_embed(diag_elems)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        diag_elems = value.diagonal(dim1=-1, dim2=-2)[..., 1:]
        order = ember.arange(2, self.dim + 1)
        order = 2 * (self.concentration - 1).unsqueeze(-1) + self.dim - order
        unnormalized_log_pdf = ember.sum(order * diag_elems.log(), dim=-1)
        dm1 = self.dim - 1
        alpha = self.concentration + 0.5 * dm1
        denominator = ember.lgamma(alpha) * dm1
        numerator = ember.mvlgamma(alpha - 0.5, dm1)
        pi_constant = 0.5 * dm1 * math.log(math.pi)
        return unnormalized_log_pdf - (pi_constant + numerator - denominator)
