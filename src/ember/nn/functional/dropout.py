"""nn.functional's dropouts (torch/nn/functional.py dropout, dropout1d/2d/3d, alpha_dropout,
feature_alpha_dropout)."""
import warnings


import ember
from ..._core import torch_function as _tf  # noqa: E402

_TF = False      # the __torch_function__ check: kept current by _tf.register (see _core/torch_function.py)
_tf.register(globals())

__all__ = ["dropout", "dropout1d", "dropout2d", "dropout3d", "feature_alpha_dropout", "alpha_dropout"]


def _check_p(p):
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def _inplace(input, out, inplace):
    if inplace:
        input.copy_(out)
        return input
    return out


def dropout(input, p=0.5, training=True, inplace=False):
    if _TF:      # torch's has_torch_function check: a mode or subclass sees F.dropout
        _r = _tf.handle_locals(dropout, locals())
        if _r is not _tf.NOT_HANDLED:
            return _r
    _check_p(p)
    return _inplace(input, ember.dropout(input, p, training), inplace and training)


def _feature(name, ranks):
    def f(input, p=0.5, training=False if name == "feature_alpha_dropout" else True, inplace=False):
        if _TF:      # torch's has_torch_function check: a mode or subclass sees F.<name>
            _r = _tf.handle_locals(f, locals())
            if _r is not _tf.NOT_HANDLED:
                return _r
        _check_p(p)
        if ranks and input.dim() not in ranks:
            if name == "dropout1d":
                raise RuntimeError(f"dropout1d: Expected 2D or 3D input, but received a {input.dim()}D input. "
                                   "Note that dropout1d exists to provide channel-wise dropout on inputs with 1 "
                                   "spatial dimension, a channel dimension, and an optional batch dimension "
                                   "(i.e. 2D or 3D inputs).")
            k = ranks[0] - 1
            warnings.warn(f"{name}: Received a {input.dim()}-D input to {name}, which is deprecated and will result "
                          f"in an error in a future release. To retain the behavior and silence this warning, please "
                          f"use dropout instead. Note that {name} exists to provide channel-wise dropout on inputs "
                          f"with {k} spatial dimensions, a channel dimension, and an optional batch dimension (i.e. "
                          f"{ranks[0]}D or {ranks[1]}D inputs).", stacklevel=2)
        batched = not ranks or input.dim() == ranks[1] or name == "dropout2d"   # torch: 3D -> (N, C, L)
        x = input if batched else input.unsqueeze(0)
        op = ember.feature_alpha_dropout if name == "feature_alpha_dropout" else ember.feature_dropout
        out = op(x, p, training)
        out = out if x is input else out.squeeze(0)
        return _inplace(input, out, inplace and training)
    f.__name__ = f.__qualname__ = name
    return f


dropout1d = _feature("dropout1d", (2, 3))


dropout2d = _feature("dropout2d", (3, 4))


dropout3d = _feature("dropout3d", (4, 5))


feature_alpha_dropout = _feature("feature_alpha_dropout", ())


def alpha_dropout(input, p=0.5, training=False, inplace=False):
    if _TF:      # torch's has_torch_function check: a mode or subclass sees F.alpha_dropout
        _r = _tf.handle_locals(alpha_dropout, locals())
        if _r is not _tf.NOT_HANDLED:
            return _r
    _check_p(p)
    return _inplace(input, ember.alpha_dropout(input, p, training), inplace and training)
