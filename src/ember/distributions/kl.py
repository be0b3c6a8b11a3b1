"""torch.distributions.kl: kl_divergence(p, q) dispatched on the pair of types, and register_kl to add pairs.
The closed forms of the common pairs (torch's formulas)."""
import math

import ember

from .bernoulli import Bernoulli
from .categorical import Categorical
from .exponential import Exponential
from .independent import Independent, _sum_rightmost
from .laplace import Laplace
from .multivariate_normal import MultivariateNormal
from .normal import Normal
from .one_hot_categorical import OneHotCategorical
from .uniform import Uniform

__all__ = ["register_kl", "kl_divergence"]

_KL_REGISTRY = {}
_KL_MEMOIZE = {}


def register_kl(type_p, type_q):
    """Decorator registering fn(p, q) as KL(p || q) for instances of these classes."""
    def decorator(fn):
        _KL_REGISTRY[type_p, type_q] = fn
        _KL_MEMOIZE.clear()
        return fn
    return decorator


def _dispatch_kl(type_p, type_q):
    """The registered pair most specific for (type_p, type_q) along both MROs."""
    matches = [(sp, sq) for sp in type_p.__mro__ for sq in type_q.__mro__ if (sp, sq) in _KL_REGISTRY]
    if not matches:
        return NotImplemented
    rank = {(sp, sq): (type_p.__mro__.index(sp), type_q.__mro__.index(sq)) for sp, sq in matches}
    return _KL_REGISTRY[min(matches, key=lambda m: rank[m])]


def kl_divergence(p, q):
    try:
        fun = _KL_MEMOIZE[type(p), type(q)]
    except KeyError:
        fun = _dispatch_kl(type(p), type(q))
        _KL_MEMOIZE[type(p), type(q)] = fun
    if fun is NotImplemented:
        raise NotImplementedError(f"No KL(p || q) is implemented for p type {p.__class__.__name__} and "
                                  f"q type {q.__class__.__name__}")
    return fun(p, q)


def _infinite_like(t):
    return ember.full_like(t, math.inf)


@register_kl(Normal, Normal)
def _kl_normal_normal(p, q):
    var_ratio = (p.scale / q.scale).pow(2)
    t1 = ((p.loc - q.loc) / q.scale).pow(2)
    return 0.5 * (var_ratio + t1 - 1 - var_ratio.log())


@register_kl(Bernoulli, Bernoulli)
def _kl_bernoulli_bernoulli(p, q):
    t1 = p.probs * (ember.nn.functional.softplus(-q.logits) - ember.nn.functional.softplus(-p.logits))
    t1 = ember.where(q.probs == 0, _infinite_like(t1), t1)
    t1 = ember.where(p.probs == 0, ember.zeros_like(t1), t1)
    t2 = (1 - p.probs) * (ember.nn.functional.softplus(q.logits) - ember.nn.functional.softplus(p.logits))
    t2 = ember.where(q.probs == 1, _infinite_like(t2), t2)
    t2 = ember.where(p.probs == 1, ember.zeros_like(t2), t2)
    return t1 + t2


@register_kl(Categorical, Categorical)
def _kl_categorical_categorical(p, q):
    t = p.probs * (p.logits - q.logits)
    t = ember.where(q.probs == 0, _infinite_like(t), t)
    t = ember.where(p.probs == 0, ember.zeros_like(t), t)
    return t.sum(-1)


@register_kl(OneHotCategorical, OneHotCategorical)
def _kl_onehotcategorical_onehotcategorical(p, q):
    return _kl_categorical_categorical(p._categorical, q._categorical)


@register_kl(Uniform, Uniform)
def _kl_uniform_uniform(p, q):
    result = ((q.high - q.low) / (p.high - p.low)).log()
    return ember.where((q.low > p.low) | (q.high < p.high), _infinite_like(result), result)


@register_kl(Exponential, Exponential)
def _kl_exponential_exponential(p, q):
    rate_ratio = q.rate / p.rate
    return rate_ratio - 1 - rate_ratio.log()


@register_kl(Laplace, Laplace)
def _kl_laplace_laplace(p, q):
    scale_ratio = p.scale / q.scale
    loc_abs_diff = (p.loc - q.loc).abs()
    t1 = -scale_ratio.log()
    t2 = loc_abs_diff / q.scale
    t3 = scale_ratio * ember.exp(-loc_abs_diff / p.scale)
    return t1 + t2 + t3 - 1


@register_kl(MultivariateNormal, MultivariateNormal)
def _kl_multivariatenormal_multivariatenormal(p, q):
    if p.event_shape != q.event_shape:
        raise ValueError("KL-divergence between two Multivariate Normals with different event shapes cannot be "
                         "computed")
    half_term1 = (q._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)
                  - p._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1))
    n = p.event_shape[0]
    # tr(Sq^-1 Sp) = |Lq^-1 Lp|_F^2 and the Mahalanobis term |Lq^-1 (mq - mp)|^2
    batch = ember.broadcast_shapes(tuple(p._unbroadcasted_scale_tril.shape[:-2]),
                                   tuple(q._unbroadcasted_scale_tril.shape[:-2]), tuple(p.loc.shape[:-1]),
                                   tuple(q.loc.shape[:-1]))
    Lq = q._unbroadcasted_scale_tril.expand(tuple(batch) + (n, n))
    Lp = p._unbroadcasted_scale_tril.expand(tuple(batch) + (n, n))
    term2 = ember.linalg.solve_triangular(Lq, Lp, upper=False).pow(2).reshape(tuple(batch) + (-1,)).sum(-1)
    diff = (q.loc - p.loc).expand(tuple(batch) + (n,))
    term3 = ember.linalg.solve_triangular(Lq, diff.unsqueeze(-1), upper=False).squeeze(-1).pow(2).sum(-1)
    return half_term1 + 0.5 * (term2 + term3 - n)


@register_kl(Independent, Independent)
def _kl_independent_independent(p, q):
    if p.reinterpreted_batch_ndims != q.reinterpreted_batch_ndims:
        raise NotImplementedError
    result = kl_divergence(p.base_dist, q.base_dist)
    return _sum_rightmost(result, p.reinterpreted_batch_ndims)
