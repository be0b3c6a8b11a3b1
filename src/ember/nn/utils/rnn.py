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


# ---------------------------------------------------------------- packed sequences
from collections import namedtuple  # noqa: E402

import ember  # noqa: E402

__all__ += ["PackedSequence", "pack_padded_sequence", "pad_packed_sequence", "pack_sequence", "unpack_sequence"]

_PackedBase = namedtuple("PackedSequence", ["data", "batch_sizes", "sorted_indices", "unsorted_indices"])


class PackedSequence(_PackedBase):
    """data: (sum(lengths), *) time-major rows of the sorted batch; batch_sizes[t] = #sequences longer than t."""

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        if unsorted_indices is None and sorted_indices is not None:
            unsorted_indices = _invert(sorted_indices)
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)

    def to(self, *args, **kwargs):
        return type(self)(self.data.to(*args, **kwargs), self.batch_sizes, self.sorted_indices,
                          self.unsorted_indices)

    @property
    def is_cuda(self):
        return False

    def is_pinned(self):
        return False


def _invert(perm):
    inv = np.empty(len(perm), dtype=np.int64)
    inv[np.asarray(perm.tolist())] = np.arange(len(perm))
    return ember.tensor(inv)


def _lengths_list(lengths):
    if isinstance(lengths, Tensor):
        return [int(v) for v in lengths.tolist()]
    return [int(v) for v in lengths]


def _pack(padded, lengths, sorted_indices):
    """padded (T, B, *) in original order; lengths list; sorted_indices tensor or None."""
    order = list(range(len(lengths))) if sorted_indices is None else sorted_indices.tolist()
    sorted_lengths = [lengths[i] for i in order]
    T = sorted_lengths[0]
    batch_sizes = [sum(1 for l in sorted_lengths if l > t) for t in range(T)]
    x = padded if sorted_indices is None else padded[:, sorted_indices]
    data = ember.cat([x[t, :batch_sizes[t]] for t in range(T)])
    return data, ember.tensor(batch_sizes, dtype=ember.int64)


def pack_padded_sequence(input, lengths, batch_first=False, enforce_sorted=True):
    lengths = _lengths_list(lengths)
    if enforce_sorted:
        if any(lengths[i] < lengths[i + 1] for i in range(len(lengths) - 1)):
            raise RuntimeError("`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. "
                               "You can pass `enforce_sorted=False` to pack_padded_sequence and/or pack_sequence "
                               "to sidestep this requirement if you do not need ONNX exportability.")
        sorted_indices = None
    else:
        sorted_indices = ember.tensor(np.argsort(-np.asarray(lengths), kind="stable").astype(np.int64))
    if any(l <= 0 for l in lengths):
        raise RuntimeError("Length of all samples has to be greater than 0, but found an element in 'lengths' "
                           "that is <= 0")
    if batch_first:
        input = input.transpose(0, 1)
    data, batch_sizes = _pack(input, lengths, sorted_indices)
    return PackedSequence(data, batch_sizes, sorted_indices, None)


def _pack_like(padded, lengths, like):
    data, batch_sizes = _pack(padded, lengths, like.sorted_indices)
    return PackedSequence(data, batch_sizes, like.sorted_indices, like.unsorted_indices)


def pad_packed_sequence(sequence, batch_first=False, padding_value=0.0, total_length=None):
    data, batch_sizes = sequence.data, [int(b) for b in sequence.batch_sizes.tolist()]
    T, B = len(batch_sizes), batch_sizes[0]
    if total_length is not None:
        if total_length < T:
            raise ValueError("Expected total_length to be at least the length of the longest sequence in input, "
                             f"but got total_length={total_length} and max sequence length being {T}")
    rows, off = [], 0
    trailing = tuple(data.shape[1:])
    for t in range(T + (0 if total_length is None else total_length - T)):
        bs = batch_sizes[t] if t < T else 0
        chunk = data[off:off + bs]
        off += bs
        if bs < B:
            fill = ember.full((B - bs,) + trailing, padding_value, dtype=data.dtype)
            chunk = ember.cat([chunk, fill]) if bs else fill
        rows.append(chunk)
    padded = ember.stack(rows)                                    # (T, B, *) sorted order
    sorted_lengths = [sum(1 for b in batch_sizes if b > i) for i in range(B)]
    if sequence.unsorted_indices is not None:
        padded = padded[:, sequence.unsorted_indices]
        lengths = [sorted_lengths[i] for i in sequence.unsorted_indices.tolist()]
    else:
        lengths = sorted_lengths
    if batch_first:
        padded = padded.transpose(0, 1)
    return padded, ember.tensor(lengths, dtype=ember.int64)


def pack_sequence(sequences, enforce_sorted=True):
    lengths = [s.shape[0] for s in sequences]
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences):
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return [padded[i, :l] for i, l in enumerate(lengths.tolist())]
