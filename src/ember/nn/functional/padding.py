"""nn.functional's padding (torch/nn/functional.py pad)."""


import ember

__all__ = ["pad"]


def pad(input, pad, mode="constant", value=None):
    return ember._nn.pad(input, list(pad), mode, value)
