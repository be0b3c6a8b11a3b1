"""nn.functional's softmax family (torch/nn/functional.py softmax, softmin, log_softmax)."""
import warnings


import ember

__all__ = ["softmax", "softmin", "log_softmax"]


def _softmax_dim(name, ndim):
    warnings.warn(f"Implicit dimension choice for {name} has been deprecated. Change the call to include dim=X "
                  f"as an argument.")
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    dim = _softmax_dim("softmax", input.dim()) if dim is None else dim
    return ember.softmax(input, dim, dtype=dtype)


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    dim = _softmax_dim("softmin", input.dim()) if dim is None else dim
    return ember.softmax(-input, dim, dtype=dtype)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    dim = _softmax_dim("log_softmax", input.dim()) if dim is None else dim
    return ember.log_softmax(input, dim, dtype=dtype)
