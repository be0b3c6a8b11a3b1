"""Sequence padding (torch/nn/utils/rnn.py)."""
import numpy as np

from ..._tensor import Tensor
from .. import _tensor_util as U

__all__ = ["pad_sequence"]


def pad_sequence(sequences, batch_first=False, padding_value=0.0, padding_side="right"):
    if isinstance(sequences, Tensor):
        sequences = list(sequences.unbind(0))
    else:
        sequences = list(sequences)
    if padding_side not in ("left", "right"):
        raise ValueError(f"Expected padding_side to be one of left or right, but got {padding_side}.")
    if len(sequences) == 0:
        raise RuntimeError("received an empty list of sequences")
    trailing = tuple(sequences[0]._size[1:])
    for s in sequences:
        if tuple(s._size[1:]) != trailing:
            raise RuntimeError(f"The size of tensor a ({trailing[0] if trailing else 1}) must match the size of "
                               f"tensor b ({s._size[1] if s.dim() > 1 else 1}) at non-singleton dimension 1")
    max_len = max(s._size[0] for s in sequences)
    dtype = sequences[0].dtype
    out = np.full((len(sequences), max_len) + trailing, padding_value, dtype=dtype._np)
    for i, s in enumerate(sequences):
        n = s._size[0]
        if padding_side == "right":
            out[i, :n] = s._np
        else:
            out[i, max_len - n:] = s._np
    if not batch_first:
        out = np.ascontiguousarray(np.swapaxes(out, 0, 1))
    return U.wrap(out, dtype)
