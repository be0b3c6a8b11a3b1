"""OpInfo entries of the scaled_dot_product_attention (torch's common_methods_invocations.py op_db, this family's part)."""
import numpy as np

from .._opinfo import OpInfo
from ._common import A, S, _info, _s


def _sdpa(dt):
    q, k, v = A((1, 3, 4), dt), A((1, 5, 4), dt, seed=1), A((1, 5, 2), dt, seed=2)
    mask = np.random.default_rng(0).random((3, 5)) < 0.7
    mask[:, 0] = True
    return [S(q, k, v, attn_mask=mask), S(q, k, v, attn_mask=A((3, 5), dt, seed=3), scale=0.3),
            S(A((2, 4), dt), A((3, 4), dt, seed=1), A((3, 2), dt, seed=2))]


op_db = [
    OpInfo("_nn.scaled_dot_product_attention", _s(((2, 3, 4, 8), (("arr", (2, 3, 5, 8)), ("arr", (2, 3, 5, 8))), {}),
                                              ((2, 4, 8), (("arr", (2, 4, 8)), ("arr", (2, 4, 8))),
                                               {"is_causal": True})),
           torch_name="nn.functional.scaled_dot_product_attention", rtol=1e-5, atol=1e-5, check_strides=False),
    _info("nn.functional.scaled_dot_product_attention", _sdpa, rtol=1e-5, atol=1e-5),
]
