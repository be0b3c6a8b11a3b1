"""torch.distributions.wishart.Wishart: the Wishart distribution over positive definite p x p matrices with
`df` degrees of freedom and scale given by exactly one of covariance_matrix, precision_matrix or scale_tril;
reparameterised samples by the Bartlett decomposition."""
import math
import numbers
import warnings

import ember

from . import constraints
from .chi2 import Chi2
from .exp_family import ExponentialFamily
from .utils import lazy_property

__all__ = ["Wishart"]

_LOG_2 = math.log(2)


def _mvdigamma(x, p):
    """The multivariate digamma: sum_i digamma(x - i / 2) for i < p."""
    if not bool(x.gt((p - 1) / 2).all()):
        raise ValueError("Wrong domain for multivariate digamma function.")
    return ember.digamma(x.unsqueeze(-1) - ember.arange(p, dtype=x.dtype).div(2).expand(tuple(x.shape) + (-1,))).sum(-1)


def _clamp_above_eps(x):
    return x.clamp(min=ember.finfo(x.dtype).eps)


class Wishart(ExponentialFamily):
    support = constraints.positive_definite
    has_rsample = True
    _mean_carrier_measure = 0

    @property
    def arg_constraints(self):
        return {"covariance_matrix": constraints.positive_definite,
                "precision_matrix": constraints.positive_definite, "scale_tril": constraints.lower_cholesky,
                "df": constraints.greater_than(self.event_shape[-1] - 1)}

    def __init__(self, df, covariance_matrix=None, precision_matrix=None, scale_tril=None, validate_args=None):
        if (covariance_matrix is not None) + (scale_tril is not None) + (precision_matrix is not None) != 1:
            raise ValueError("Exactly one of covariance_matrix or precision_matrix or scale_tril may be specified.")
        param = next(p for p in (covariance_matrix, precision_matrix, scale_tril) if p is not None)
        if param.dim() < 2:
            raise ValueError("scale_tril must be at least two-dimensional, with optional leading batch dimensions")
        if isinstance(df, numbers.Number):
            batch_shape = ember.Size(param.shape[:-2])
            self.df = ember.tensor(df, dtype=param.dtype)
        else:
            batch_shape = ember.Size(ember.broadcast_shapes(tuple(param.shape[:-2]), tuple(df.shape)))
            self.df = df.expand(batch_shape)
        event_shape = param.shape[-2:]
        if bool(self.df.le(event_shape[-1] - 1).any()):
            raise ValueError(f"Value of df={df} expected to be greater than ndim - 1 = {event_shape[-1] - 1}.")
        full = tuple(batch_shape) + (-1, -1)
        if scale_tril is not None:
            self.scale_tril = param.expand(full)
        elif covariance_matrix is not None:
            self.covariance_matrix = param.expand(full)
        else:
            self.precision_matrix = param.expand(full)
        if bool(self.df.lt(event_shape[-1]).any()):
            warnings.warn("Low df values detected. Singular samples are highly likely to occur for ndim - 1 < df < ndim.",
                          stacklevel=2)
        super().__init__(batch_shape, event_shape, validate_args=validate_args)
        self._batch_dims = [-(x + 1) for x in range(len(self._batch_shape))]
        if scale_tril is not None:
            self._unbroadcasted_scale_tril = scale_tril
        elif covariance_matrix is not None:
            self._unbroadcasted_scale_tril = ember.linalg.cholesky(covariance_matrix)
        else:
            self._unbroadcasted_scale_tril = ember.linalg.cholesky(ember.linalg.inv(precision_matrix))
        self._dist_chi2 = self._bartlett_chi2(batch_shape)

    def _bartlett_chi2(self, batch_shape):
        """The squared diagonal of the Bartlett factor: chi2(df - i) for i < p."""
        p = self._event_shape[-1]
        offsets = ember.arange(p, dtype=self._unbroadcasted_scale_tril.dtype).expand(tuple(batch_shape) + (-1,))
        return Chi2(df=self.df.unsqueeze(-1) - offsets)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Wishart, _instance)
        batch_shape = ember.Size(batch_shape)
        cov_shape = tuple(batch_shape) + tuple(self.event_shape)
        new._unbroadcasted_scale_tril = self._unbroadcasted_scale_tril.expand(cov_shape)
        new.df = self.df.expand(batch_shape)
        new._batch_dims = [-(x + 1) for x in range(len(batch_shape))]
        for name in ("covariance_matrix", "scale_tril", "precision_matrix"):
            if name in self.__dict__:
                setattr(new, name, getattr(self, name).expand(cov_shape))
        ExponentialFamily.__init__(new, batch_shape, self.event_shape, validate_args=False)
        new._dist_chi2 = new._bartlett_chi2(batch_shape)
        new._validate_args = self._validate_args
        return new

    def _matrix_shape(self):
        return tuple(self._batch_shape) + tuple(self._event_shape)

    @lazy_property
    def scale_tril(self):
        return self._unbroadcasted_scale_tril.expand(self._matrix_shape())

    @lazy_property
    def covariance_matrix(self):
        L = self._unbroadcasted_scale_tril
        return (L @ L.transpose(-2, -1)).expand(self._matrix_shape())

    @lazy_property
    def precision_matrix(self):
        identity = ember.eye(self._event_shape[-1], dtype=self._unbroadcasted_scale_tril.dtype)
        return ember.cholesky_solve(identity, self._unbroadcasted_scale_tril).expand(self._matrix_shape())

    def _df_matrix(self, df):
        # a number df stays a 0-dim tensor (as torch keeps it); broadcast it over the batch here
        return df.expand(tuple(self._batch_shape)).reshape(tuple(self._batch_shape) + (1, 1))

    @property
    def mean(self):
        return self._df_matrix(self.df) * self.covariance_matrix

    @property
    def mode(self):
        factor = self.df - self.covariance_matrix.shape[-1] - 1
        factor = ember.where(factor <= 0, math.nan, factor)
        return self._df_matrix(factor) * self.covariance_matrix

    @property
    def variance(self):
        V = self.covariance_matrix
        diag_V = V.diagonal(dim1=-2, dim2=-1)
        return self._df_matrix(self.df) * (V.pow(2) + ember.einsum("...i,...j->...ij", diag_V, diag_V))

    def _bartlett_sampling(self, sample_shape=ember.Size()):
        p = self._event_shape[-1]
        noise = _clamp_above_eps(self._dist_chi2.rsample(sample_shape).sqrt()).diag_embed(dim1=-2, dim2=-1)
        i, j = ember.tril_indices(p, p, offset=-1)
        lower = ember.randn(tuple(sample_shape) + tuple(self._batch_shape) + (p * (p - 1) // 2,), dtype=noise.dtype)
        below = ember.zeros_like(noise)
        below[..., i, j] = lower
        chol = self._unbroadcasted_scale_tril @ (noise + below)
        return chol @ chol.transpose(-2, -1)

    def rsample(self, sample_shape=ember.Size(), max_try_correction=None):
        """Bartlett samples; numerically singular ones (possible for df close to p - 1) are redrawn up to
        `max_try_correction` (10) times."""
        if max_try_correction is None:
            max_try_correction = 10
        sample_shape = ember.Size(sample_shape)
        sample = self._bartlett_sampling(sample_shape)
        is_singular = ~self.support.check(sample)
        if bool(is_singular.any()):
            warnings.warn("Singular sample detected.", stacklevel=2)
            for _ in range(max_try_correction):
                sample_new = self._bartlett_sampling(sample_shape)
                mask = is_singular.reshape(tuple(is_singular.shape) + (1, 1))
                sample = ember.where(mask, sample_new, sample)
                is_singular = ~self.support.check(sample)
                if not bool(is_singular.any()):
                    break
        return sample

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        nu = self.df
        p = self._event_shape[-1]
        log_det_scale = self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)
        trace = ember.cholesky_solve(value, self._unbroadcasted_scale_tril).diagonal(dim1=-2, dim2=-1).sum(dim=-1)
        return (-nu * (p * _LOG_2 / 2 + log_det_scale) - ember.mvlgamma(nu / 2, p=p)
                + (nu - p - 1) / 2 * ember.linalg.slogdet(value).logabsdet - trace / 2)

    def entropy(self):
        nu = self.df
        p = self._event_shape[-1]
        log_det_scale = self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)
        return ((p + 1) * (p * _LOG_2 / 2 + log_det_scale) + ember.mvlgamma(nu / 2, p=p)
                - (nu - p - 1) / 2 * _mvdigamma(nu / 2, p=p) + nu * p / 2)

    @property
    def _natural_params(self):
        p = self._event_shape[-1]
        return -self.precision_matrix / 2, (self.df - p - 1) / 2

    def _log_normalizer(self, x, y):
        p = self._event_shape[-1]
        return ((y + (p + 1) / 2) * (-ember.linalg.slogdet(-2 * x).logabsdet + _LOG_2 * p)
                + ember.mvlgamma(y + (p + 1) / 2, p=p))
