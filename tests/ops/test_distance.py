"""The distances (pairwise_distance, cosine_similarity, cdist) against torch."""
import pytest
import ember
import ember.nn.functional as EF
from ._nn_util import DTYPES, arr, close, meta_matches, pair


def both(torch, name, e_args, t_args, **kw):
    tf = getattr(torch.nn.functional, name, None) or getattr(torch, name)
    return getattr(EF, name)(*e_args, **kw), tf(*t_args, **kw)


@pytest.mark.parity
@pytest.mark.parametrize("dtype", DTYPES)
def test_distances(dtype):
    torch = pytest.importorskip("torch")
    a, ta = pair(torch, arr(5, 4, dtype=dtype))
    b, tb = pair(torch, arr(5, 4, dtype=dtype))
    close(*both(torch, "cosine_similarity", (a, b), (ta, tb)))
    close(*both(torch, "cosine_similarity", (a, b[:1]), (ta, tb[:1]), dim=-1))
    close(*both(torch, "pairwise_distance", (a, b), (ta, tb)))
    close(*both(torch, "pairwise_distance", (a, b), (ta, tb), p=1.5, keepdim=True))
    x, tx = pair(torch, arr(2, 30, 4, dtype=dtype))
    y, ty = pair(torch, arr(2, 7, 4, dtype=dtype))
    for p in (0.0, 1.0, 2.0, 3.0, float("inf")):
        close(*both(torch, "cdist", (x[:, :5], y), (tx[:, :5], ty), p=p))
    close(ember.cdist(x, y), torch.cdist(tx, ty), rtol=1e-3, atol=1e-3)
    meta_matches(ember.cdist, x, y)
