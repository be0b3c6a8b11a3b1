"""nn.functional's padding (torch/nn/functional.py pad)."""


import ember
from ..._core import torch_function as _tf  # noqa: E402

_TF = False      # the __torch_function__ check: kept current by _tf.register (see _core/torch_function.py)
_tf.register(globals())

__all__ = ["pad"]


def pad(input, pad, mode="constant", value=None):
    if _TF:      # torch's has_torch_function check: a mode or subclass sees F.pad
        _r = _tf.handle_locals(_pad_api, locals())   # (the parameter `pad` hides it)
        if _r is not _tf.NOT_HANDLED:
            return _r
    return ember._nn.pad(input, list(pad), mode, value)


_pad_api = pad
