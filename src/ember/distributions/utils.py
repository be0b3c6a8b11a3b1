"""torch.distributions.utils: broadcasting parameters, probs <-> logits, lazy properties."""
import numbers

import ember

__all__ = ["broadcast_all", "logits_to_probs", "probs_to_logits", "lazy_property", "clamp_probs", "tril_matrix_to_vec",
           "vec_to_tril_matrix"]


def broadcast_all(*values):
    """Numbers become tensors of the default dtype (or of the tensors' dtype); all are broadcast together."""
    if not all(isinstance(v, (ember.Tensor, numbers.Number)) for v in values):
        raise ValueError("Input arguments must all be instances of numbers.Number, torch.Tensor or objects "
                         "implementing __torch_function__.")
    if not all(isinstance(v, ember.Tensor) for v in values):
        like = next((v for v in values if isinstance(v, ember.Tensor)), None)
        dtype = like.dtype if like is not None else ember.get_default_dtype()
        values = [v if isinstance(v, ember.Tensor) else ember.tensor(v, dtype=dtype) for v in values]
    return ember.broadcast_tensors(*values)


def clamp_probs(probs):
    eps = ember.finfo(probs.dtype).eps
    return probs.clamp(min=eps, max=1 - eps)


def logits_to_probs(logits, is_binary=False):
    if is_binary:
        return ember.sigmoid(logits)
    return ember.softmax(logits, -1)


def probs_to_logits(probs, is_binary=False):
    ps_clamped = clamp_probs(probs)
    if is_binary:
        return ember.log(ps_clamped) - ember.log1p(-ps_clamped)
    return ember.log(ps_clamped)


class lazy_property:
    """Computed on first access and stored on the instance (torch's lazy_property)."""

    def __init__(self, wrapped):
        self.wrapped = wrapped
        self.__doc__ = wrapped.__doc__

    def __get__(self, instance, obj_type=None):
        if instance is None:
            return self
        with ember.enable_grad():
            value = self.wrapped(instance)
        setattr(instance, self.wrapped.__name__, value)
        return value


def _tril_mask(n, diag):
    arange = ember.arange(n)
    return arange < arange.view(-1, 1) + (diag + 1)


def vec_to_tril_matrix(vec, diag=0):
    """The (n, n) matrix whose lower triangle (below offset `diag`) is `vec`'s last dim, row by row."""
    size = vec.shape[-1]
    n = (-(1 + 2 * diag) + ((1 + 2 * diag) ** 2 + 8 * size + 4 * abs(diag) * (diag + 1)) ** 0.5) / 2
    eps = ember.finfo(vec.dtype).eps
    if round(n) - n > eps:
        raise ValueError(f"The size of last dimension is {size} which cannot be expressed as "
                         "the lower triangular part of a square D x D matrix.")
    n = round(n)
    mat = vec.new_zeros(tuple(vec.shape[:-1]) + (n, n))
    mat[..., _tril_mask(n, diag)] = vec
    return mat


def tril_matrix_to_vec(mat, diag=0):
    """The lower triangle (below offset `diag`) of `mat`'s last two dims, row by row, as a vector."""
    n = mat.shape[-1]
    if diag < -n or diag >= n:
        raise ValueError(f"diag ({diag}) provided is outside [{-n}, {n - 1}].")
    return mat[..., _tril_mask(n, diag)]
