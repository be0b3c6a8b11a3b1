"""torch.distributions.exp_family.ExponentialFamily: the base class of distributions of the form
p(x; theta) = exp(<t(x), theta> - F(theta) + k(x)); entropy from the log normaliser F by autograd."""
import ember

from .distribution import Distribution

__all__ = ["ExponentialFamily"]


class ExponentialFamily(Distribution):
    """Subclasses give `_natural_params` (theta), `_log_normalizer(*theta)` (F) and `_mean_carrier_measure`
    (E[k(x)]); the entropy is then F(theta) - <theta, grad F(theta)> - E[k(x)] and KL between two members of
    the same family is a Bregman divergence of F."""

    @property
    def _natural_params(self):
        raise NotImplementedError

    def _log_normalizer(self, *natural_params):
        raise NotImplementedError

    @property
    def _mean_carrier_measure(self):
        raise NotImplementedError

    def entropy(self):
        result = -self._mean_carrier_measure
        nparams = [p.detach().requires_grad_() for p in self._natural_params]
        lg_normal = self._log_normalizer(*nparams)
        gradients = ember.autograd.grad(lg_normal.sum(), nparams, create_graph=True)
        result = result + lg_normal
        for theta, g in zip(nparams, gradients):
            result = result - (theta * g).reshape(tuple(self._batch_shape) + (-1,)).sum(-1)
        return result
