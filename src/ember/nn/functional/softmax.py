"""nn.functional's softmax family (torch/nn/functional.py softmax, softmin, log_softmax, gumbel_softmax)."""
import warnings


import ember
from ..._core import torch_function as _tf  # noqa: E402

_TF = False      # the __torch_function__ check: kept current by _tf.register (see _core/torch_function.py)
_tf.register(globals())

__all__ = ["softmax", "softmin", "log_softmax", "gumbel_softmax"]


def _softmax_dim(name, ndim, stacklevel=3):
    warnings.warn(f"Implicit dimension choice for {name} has been deprecated. Change the call to include dim=X "
                  f"as an argument.", stacklevel=stacklevel)     # at the caller's line, as torch's
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    if _TF:      # torch's has_torch_function check: a mode or subclass sees F.softmax
        _r = _tf.handle_locals(softmax, locals())
        if _r is not _tf.NOT_HANDLED:
            return _r
    dim = _softmax_dim("softmax", input.dim(), _stacklevel) if dim is None else dim
    return ember.softmax(input, dim, dtype=dtype)


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    if _TF:      # torch's has_torch_function check: a mode or subclass sees F.softmin
        _r = _tf.handle_locals(softmin, locals())
        if _r is not _tf.NOT_HANDLED:
            return _r
    dim = _softmax_dim("softmin", input.dim(), _stacklevel) if dim is None else dim
    return ember.softmax(-input, dim, dtype=dtype)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    if _TF:      # torch's has_torch_function check: a mode or subclass sees F.log_softmax
        _r = _tf.handle_locals(log_softmax, locals())
        if _r is not _tf.NOT_HANDLED:
            return _r
    dim = _softmax_dim("log_softmax", input.dim(), _stacklevel) if dim is None else dim
    return ember.log_softmax(input, dim, dtype=dtype)


def gumbel_softmax(logits, tau=1, hard=False, eps=1e-10, dim=-1):
    """Softmax of (logits + Gumbel(0, 1) noise) / tau; `hard` gives the one-hot of its argmax in the forward with
    the soft sample's gradient (straight-through)."""
    if _TF:      # torch's has_torch_function check: a mode or subclass sees F.gumbel_softmax
        _r = _tf.handle_locals(gumbel_softmax, locals())
        if _r is not _tf.NOT_HANDLED:
            return _r
    if eps != 1e-10:
        warnings.warn("`eps` parameter is deprecated and has no effect.", stacklevel=2)
    gumbels = -ember.empty_like(logits, memory_format=ember.contiguous_format).exponential_().log()
    y_soft = ((logits + gumbels) / tau).softmax(dim)
    if not hard:
        return y_soft
    index = y_soft.max(dim, keepdim=True)[1]
    y_hard = ember.zeros_like(logits, memory_format=ember.contiguous_format).scatter_(dim, index, 1.0)
    return y_hard - y_soft.detach() + y_soft
