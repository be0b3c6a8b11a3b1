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


@pytest.mark.parity
@pytest.mark.parametrize("p", [2.0, 1.0, 0.5, 3.0, 0.0, float("inf")])
def test_pdist_values_and_gradients_match_torch(p):
    torch = pytest.importorskip("torch")
    import numpy as np
    data = np.random.default_rng(0).standard_normal((5, 3))
    res = []
    for lib, f in ((ember, EF.pdist), (torch, torch.nn.functional.pdist)):
        x = lib.tensor(data, requires_grad=True)
        out = f(x, p)
        (out * lib.arange(1.0, out.numel() + 1, dtype=out.dtype)).sum().backward()
        res.append((out.detach().numpy(), x.grad.numpy()))
    np.testing.assert_allclose(res[0][0], res[1][0], rtol=1e-10)
    np.testing.assert_allclose(res[0][1], res[1][1], rtol=1e-8, atol=1e-12)


@pytest.mark.parity
@pytest.mark.parametrize("call", [
    lambda t: t.pdist(t.ones(3)), lambda t: t.pdist(t.ones(3, 2, dtype=t.long)), lambda t: t.pdist(t.ones(3, 2), -1),
    lambda t: t.pdist(t.ones(1, 2)), lambda t: t.pdist(t.ones(0, 2)),
])
def test_pdist_shapes_and_errors_match_torch(call):
    torch = pytest.importorskip("torch")
    res = []
    for lib in (ember, torch):
        try:
            res.append(tuple(call(lib).shape))
        except RuntimeError as e:
            res.append(str(e))
    assert res[0] == res[1]
