import numpy as np
import pytest

import ember
from _nn_util import DTYPES, RNG, arr, close, meta_matches, pair


@pytest.mark.parity
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(4, 3), (3, 2, 5), (2, 3, 4, 4)])
@pytest.mark.parametrize("affine", [True, False])
def test_batch_norm(dtype, shape, affine):
    torch = pytest.importorskip("torch")
    c = shape[1]
    x, tx = pair(torch, arr(*shape, dtype=dtype))
    w, tw = pair(torch, arr(c, dtype=dtype) if affine else None)
    b, tb = pair(torch, arr(c, dtype=dtype) if affine else None)
    rm, trm = pair(torch, arr(c, dtype=dtype))
    rv, trv = pair(torch, arr(c, dtype=dtype, low=0.5, high=2))
    close(ember.batch_norm(x, w, b, rm, rv, True, 0.2, 1e-5, False),
          torch.nn.functional.batch_norm(tx, trm, trv, tw, tb, True, 0.2, 1e-5))
    close(rm, trm)
    close(rv, trv)
    close(ember.batch_norm(x, w, b, rm, rv, False, 0.2, 1e-5, False),
          torch.nn.functional.batch_norm(tx, trm, trv, tw, tb, False, 0.2, 1e-5))
    for e, t in zip(ember.native_batch_norm(x, w, b, None, None, True, 0.1, 1e-3),
                    torch.native_batch_norm(tx, tw, tb, None, None, True, 0.1, 1e-3)):
        close(e, t)
    meta_matches(ember.native_batch_norm, x, w, b, None, None, True, 0.1, 1e-5)


@pytest.mark.parity
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,g", [((2, 6, 5), 3), ((2, 4, 3, 3), 2), ((3, 4), 4), ((1, 6, 2, 2, 2), 1)])
def test_group_norm(dtype, shape, g):
    torch = pytest.importorskip("torch")
    x, tx = pair(torch, arr(*shape, dtype=dtype))
    w, tw = pair(torch, arr(shape[1], dtype=dtype))
    b, tb = pair(torch, arr(shape[1], dtype=dtype))
    close(ember.group_norm(x, g, w, b), torch.nn.functional.group_norm(tx, g, tw, tb))
    close(ember.group_norm(x, g), torch.nn.functional.group_norm(tx, g))
    meta_matches(ember.group_norm, x, g, w, b)


@pytest.mark.parity
def test_group_norm_error():
    torch = pytest.importorskip("torch")
    with pytest.raises(RuntimeError) as te:
        torch.nn.functional.group_norm(torch.randn(2, 5, 3), 2)
    with pytest.raises(RuntimeError) as ee:
        ember.group_norm(ember.randn(2, 5, 3), 2)
    assert str(ee.value) == str(te.value)


@pytest.mark.parity
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("stats", [True, False])
def test_instance_norm(dtype, stats):
    torch = pytest.importorskip("torch")
    x, tx = pair(torch, arr(2, 3, 4, 5, dtype=dtype))
    w, tw = pair(torch, arr(3, dtype=dtype))
    b, tb = pair(torch, arr(3, dtype=dtype))
    rm, trm = pair(torch, arr(3, dtype=dtype))
    rv, trv = pair(torch, arr(3, dtype=dtype, low=0.5, high=2))
    close(ember.instance_norm(x, w, b, rm, rv, stats, 0.1, 1e-5, False),
          torch.instance_norm(tx, tw, tb, trm, trv, stats, 0.1, 1e-5, False))
    close(rm, trm)
    close(rv, trv)
    close(ember.instance_norm(x, None, None, None, None, True, 0.1, 1e-5, False),
          torch.nn.functional.instance_norm(tx))


@pytest.mark.parity
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,ns,eps", [((2, 3, 4), [4], None), ((2, 3, 4), [3, 4], 1e-3), ((5,), [5], 1e-6)])
def test_rms_norm(dtype, shape, ns, eps):
    torch = pytest.importorskip("torch")
    x, tx = pair(torch, arr(*shape, dtype=dtype))
    w, tw = pair(torch, arr(*ns, dtype=dtype))
    close(ember.rms_norm(x, ns, w, eps), torch.nn.functional.rms_norm(tx, ns, tw, eps))
    close(ember.rms_norm(x, ns), torch.nn.functional.rms_norm(tx, ns))
    with pytest.raises(RuntimeError) as te:
        torch.nn.functional.rms_norm(tx, [7])
    with pytest.raises(RuntimeError) as ee:
        ember.rms_norm(x, [7])
    assert str(ee.value) == str(te.value)


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


def test_dropout_reproducible_and_scaled():
    x = ember.ones(1000, dtype=ember.float64)
    ember.manual_seed(3)
    a = ember.dropout(x, 0.3, True)
    ember.manual_seed(3)
    b = ember.dropout(x, 0.3, True)
    assert np.array_equal(a.numpy(), b.numpy())
    vals = set(np.unique(a.numpy()).round(6))
    assert vals <= {0.0, round(1 / 0.7, 6)}
    assert 0.2 < (a.numpy() == 0).mean() < 0.4
    assert ember.dropout(x, 0.3, False) is x
    out, mask = ember.native_dropout(x, 0.5, True)
    assert mask.dtype == ember.bool and np.allclose(out.numpy(), mask.numpy() * 2.0)
    assert (ember.dropout(x, 1.0, True).numpy() == 0).all()
    with pytest.raises(RuntimeError, match="dropout probability has to be between 0 and 1, but got 1.5"):
        ember.dropout(x, 1.5, True)
    meta_matches(lambda t: ember.native_dropout(t, 0.5, True), x)


def test_feature_and_alpha_dropout():
    x = ember.ones(4, 50, 3, 3)
    ember.manual_seed(0)
    y = ember.feature_dropout(x, 0.5, True).numpy()
    per_channel = y.reshape(4, 50, 9)
    assert (per_channel.min(-1) == per_channel.max(-1)).all()       # whole channels kept or zeroed
    assert set(np.unique(y)) <= {0.0, 2.0}
    z = ember.alpha_dropout(ember.randn(20000, dtype=ember.float64), 0.2, True).numpy()
    assert abs(z.mean()) < 0.05 and abs(z.std() - 1) < 0.05          # alpha dropout keeps mean 0 / std 1


@pytest.mark.parity
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("cfg", [
    dict(q=(2, 3, 4, 8), k=(2, 3, 5, 8), v=(2, 3, 5, 6)),
    dict(q=(2, 3, 4, 8), k=(2, 3, 4, 8), v=(2, 3, 4, 8), is_causal=True),
    dict(q=(2, 3, 4, 8), k=(2, 3, 6, 8), v=(2, 3, 6, 8), is_causal=True, scale=0.3),
    dict(q=(3, 4, 8), k=(3, 5, 8), v=(3, 5, 2), mask="bool"),
    dict(q=(2, 2, 4, 8), k=(2, 2, 5, 8), v=(2, 2, 5, 8), mask="float"),
    dict(q=(2, 4, 4, 8), k=(2, 2, 5, 8), v=(2, 2, 5, 8), enable_gqa=True),
])
def test_sdpa(dtype, cfg):
    torch = pytest.importorskip("torch")
    cfg = dict(cfg)
    q, tq = pair(torch, arr(*cfg.pop("q"), dtype=dtype))
    k, tk = pair(torch, arr(*cfg.pop("k"), dtype=dtype))
    v, tv = pair(torch, arr(*cfg.pop("v"), dtype=dtype))
    kind = cfg.pop("mask", None)
    L, S = q.shape[-2], k.shape[-2]
    m = tm = None
    if kind == "bool":
        a = RNG.random((L, S)) > 0.3
        a[:, 0] = True
        m, tm = pair(torch, a)
    elif kind == "float":
        m, tm = pair(torch, arr(L, S, dtype=dtype))
    close(ember._nn.scaled_dot_product_attention(q, k, v, m, **cfg),
          torch.nn.functional.scaled_dot_product_attention(tq, tk, tv, tm, **cfg))
    meta_matches(lambda *a: ember._nn.scaled_dot_product_attention(*a, **cfg), q, k, v, m)


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
