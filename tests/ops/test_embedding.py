"""embedding, embedding_bag and one_hot: values, grads, max_norm and errors against torch."""
import numpy as np
import pytest
import ember
from ._nn_util import DTYPES, RNG, arr, close, meta_matches, pair
import ember.nn.functional as EF


@pytest.mark.parity
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("ishape", [(5,), (2, 3), ()])
def test_embedding(dtype, ishape):
    torch = pytest.importorskip("torch")
    w, tw = pair(torch, arr(6, 3, dtype=dtype))
    i, ti = pair(torch, RNG.integers(0, 6, ishape).astype(np.int64))
    close(ember.embedding(w, i), torch.embedding(tw, ti))
    close(ember.embedding(w, i, padding_idx=2), torch.nn.functional.embedding(ti, tw, padding_idx=2))
    meta_matches(ember.embedding, w, i)


@pytest.mark.parity
@pytest.mark.parametrize("call", [
    lambda m, w, i: m.embedding(w, i * 3),
    lambda m, w, i: m.embedding(w[0], i),
    lambda m, w, i: m.embedding(w, i - 5),
    lambda m, w, i: m.one_hot(i * 3, 4),
    lambda m, w, i: m.one_hot(i - 1),
    lambda m, w, i: m.one_hot(i[:0]),
])
def test_embedding_errors(call):
    torch = pytest.importorskip("torch")
    w, tw = pair(torch, arr(4, 3))
    i, ti = pair(torch, np.array([0, 1, 3]))
    import types
    ns = types.SimpleNamespace(embedding=torch.embedding, one_hot=torch.nn.functional.one_hot)
    with pytest.raises(Exception) as te:
        call(ns, tw, ti)
    with pytest.raises(type(te.value)) as ee:
        call(types.SimpleNamespace(embedding=ember.embedding, one_hot=ember.nn.functional.one_hot), w, i)
    assert str(ee.value) == str(te.value)


@pytest.mark.parity
@pytest.mark.parametrize("n", [-1, 5])
def test_one_hot(n):
    torch = pytest.importorskip("torch")
    i, ti = pair(torch, np.array([[0, 3], [2, 1]]))
    close(ember._nn.one_hot(i, n), torch.nn.functional.one_hot(ti, n))


@pytest.mark.parity
@pytest.mark.parametrize("norm_type", [2.0, 1.0])
def test_embedding_max_norm(norm_type):
    torch = pytest.importorskip("torch")
    import ember.nn.functional as EF
    w, tw = pair(torch, arr(6, 3) * 3)
    i, ti = pair(torch, np.array([[0, 2], [5, 2]]))
    close(EF.embedding(i, w, max_norm=1.5, norm_type=norm_type),
          torch.nn.functional.embedding(ti, tw, max_norm=1.5, norm_type=norm_type))
    close(w, tw)          # the referenced rows were renormalised in place


@pytest.mark.parity
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
@pytest.mark.parametrize("padding_idx", [None, 2])
def test_embedding_bag(dtype, mode, padding_idx):
    torch = pytest.importorskip("torch")
    w, tw = pair(torch, arr(7, 3, dtype=dtype))
    i, ti = pair(torch, np.array([1, 2, 4, 5, 4, 3, 2, 6]))
    o, to = pair(torch, np.array([0, 2, 2, 5]))
    close(EF.embedding_bag(i, w, o, mode=mode, padding_idx=padding_idx),
          torch.nn.functional.embedding_bag(ti, tw, to, mode=mode, padding_idx=padding_idx))
    i2, ti2 = pair(torch, RNG.integers(0, 7, (3, 4)))
    close(EF.embedding_bag(i2, w, mode=mode), torch.nn.functional.embedding_bag(ti2, tw, mode=mode))
    if mode == "sum":
        ps, tps = pair(torch, arr(8, dtype=dtype))
        o8, to8 = pair(torch, np.array([0, 2, 2, 5, 8]))
        close(EF.embedding_bag(i, w, o8, mode=mode, per_sample_weights=ps, include_last_offset=True),
              torch.nn.functional.embedding_bag(ti, tw, to8, mode=mode, per_sample_weights=tps,
                                                include_last_offset=True))
