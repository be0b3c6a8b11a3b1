"""Gradient clipping (torch/nn/utils/clip_grad.py): norms and scaling run in place on each grad's storage."""
import math

import numpy as np

from ..._tensor import Tensor
from ..._grad_mode import no_grad
from .. import _tensor_util as U

__all__ = ["clip_grad_norm_", "clip_grad_norm", "clip_grad_value_", "get_total_norm", "clip_grads_with_norm_"]


def _tensor_list(tensors):
    if isinstance(tensors, Tensor):
        return [tensors]
    return list(tensors)


def _vector_norm(arr, norm_type):
    a = np.abs(arr.reshape(-1))
    if norm_type == math.inf:
        return a.max() if a.size else a.dtype.type(0)
    if norm_type == -math.inf:
        return a.min() if a.size else a.dtype.type(math.inf)
    if norm_type == 0:
        return a.dtype.type(np.count_nonzero(a))
    if norm_type == 1:
        return a.sum(dtype=a.dtype)
    if norm_type == 2:
        return np.sqrt(np.dot(a, a)) if a.dtype.kind == "f" and a.dtype.itemsize >= 4 else \
            np.sqrt(np.sum(a.astype(np.float32) ** 2)).astype(a.dtype)
    return (np.sum(a.astype(np.float64) ** norm_type) ** (1.0 / norm_type)).astype(a.dtype)


def get_total_norm(tensors, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    tensors = [t for t in _tensor_list(tensors)]
    norm_type = float(norm_type)
    if len(tensors) == 0:
        return U.wrap(np.array(0.0, dtype=np.float32))
    dtype = tensors[0].dtype
    norms = np.array([_vector_norm(t._np, norm_type) for t in tensors], dtype=dtype._np)
    total = np.asarray(_vector_norm(norms, norm_type), dtype=dtype._np)
    total_norm = U.wrap(total, dtype)
    if error_if_nonfinite and not np.isfinite(total):
        raise RuntimeError(f"The total norm of order {norm_type} for gradients from `parameters` is non-finite, so it "
                           "cannot be clipped. To disable this error and scale the gradients by the non-finite norm "
                           "anyway, set `error_if_nonfinite=False`")
    return total_norm


def clip_grads_with_norm_(parameters, max_norm, total_norm, foreach=None):
    parameters = _tensor_list(parameters)
    grads = [p.grad for p in parameters if p.grad is not None]
    max_norm = float(max_norm)
    if len(grads) == 0:
        return
    tn = total_norm._np if isinstance(total_norm, Tensor) else np.asarray(total_norm, dtype=np.float32)
    clip_coef = np.asarray(max_norm, dtype=tn.dtype) / (tn + tn.dtype.type(1e-6))
    clip_coef_clamped = np.minimum(clip_coef, tn.dtype.type(1.0))
    with no_grad():
        for g in grads:
            U.write_(g, g._np * clip_coef_clamped.astype(g._np.dtype))


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    parameters = _tensor_list(parameters)
    grads = [p.grad for p in parameters if p.grad is not None]
    total_norm = get_total_norm(grads, norm_type, error_if_nonfinite, foreach)
    clip_grads_with_norm_(parameters, max_norm, total_norm, foreach)
    return total_norm


def clip_grad_norm(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    import warnings
    warnings.warn("`torch.nn.utils.clip_grad_norm` is now deprecated in favor of `torch.nn.utils.clip_grad_norm_`.",
                  FutureWarning, stacklevel=2)
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


def clip_grad_value_(parameters, clip_value, foreach=None):
    parameters = _tensor_list(parameters)
    clip_value = float(clip_value)
    with no_grad():
        for p in parameters:
            if p.grad is not None:
                U.write_(p.grad, np.clip(p.grad._np, -clip_value, clip_value))
