"""OpInfo entries of the embedding, embedding_bag, one_hot (torch's common_methods_invocations.py op_db, this family's part)."""
import numpy as np

from .._opinfo import OpInfo
from ._common import A, I64, S, _info, _s, idx


def _one_hot(dt):
    return [S(idx((5,), 4), 6), S(idx((2, 3), 5, 1), 5), S(idx((0,), 3), 3)]


def _embedding_bag(dt):
    w = A((6, 3), dt)
    return [S(idx((2, 4), 6), w), S(idx((7,), 6, 1), w, np.array([0, 2, 2, 5]), mode="sum"),
            S(idx((2, 3), 6, 2), w, mode="max"),
            S(idx((5,), 6, 3), w, np.array([0, 3]), mode="sum", per_sample_weights=A((5,), dt, seed=4))]


def _aten_embedding_bag(dt):
    """torch.embedding_bag(weight, indices, offsets, scale_grad_by_freq, mode, sparse, per_sample_weights,
    include_last_offset, padding_idx)."""
    w = A((6, 3), dt)
    return [S(w, idx((5,), 6), np.array([0, 2]), False, 0), S(w, idx((7,), 6, 1), np.array([0, 3, 4]), False, 1),
            S(w, idx((6,), 6, 2), np.array([0, 1, 4]), False, 2),
            S(w, idx((5,), 6, 3), np.array([0, 3]), False, 0, False, A((5,), dt, seed=4)),
            S(w, idx((6,), 6, 4), np.array([0, 2, 6]), False, 1, False, None, True, 3)]


def _embedding(dt):
    return [S(idx((2, 3), 5), A((5, 3), dt)), S(idx((4,), 5, 1), A((5, 2), dt), padding_idx=1), S(np.array(2), A((4, 3), dt))]


op_db = [
    OpInfo("embedding", _s((("arr", (6, 3)), (("idx", (2, 4), 6),), {})), torch_name="embedding"),
    OpInfo("nn.functional.embedding_bag",
           _s((("idx", (9,), 6), (("arr", (6, 3)), np.array([0, 2, 2, 5])), {"mode": "sum"}),
              (("idx", (9,), 6), (("arr", (6, 3)), np.array([0, 4])), {"mode": "mean", "padding_idx": 2}),
              (("idx", (9,), 6), (("arr", (6, 3)), np.array([0, 3, 7])), {"mode": "max"}),
              (("idx", (9,), 6), (("arr", (6, 3)), np.array([0, 3])), {"mode": "sum",
                                                                        "per_sample_weights": ("arr", (9,))})),
           method_variant=False, aten_name="_embedding_bag", check_strides=False),
    _info("nn.functional.one_hot", _one_hot, dtypes=I64),
    _info("nn.functional.one_hot", lambda dt: [S(idx((5,), 4)), S(idx((2, 3), 5, 1))], dtypes=I64,
          supports_meta=False),  # num_classes=-1: the class count comes from the data
    _info("nn.functional.embedding_bag", _embedding_bag, aten_name="_embedding_bag"),
    _info("nn.functional.embedding", _embedding),
    # offset2bag, bag_size and max_indices are scratch for torch's backward, filled or left empty depending on
    # the mode, the dtype and torch's CPU fast paths: parity compares the bags' values
    _info("embedding_bag", _aten_embedding_bag, parity_outputs=(0,), check_strides=False),
]
