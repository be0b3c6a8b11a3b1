"""nn.Embedding / F.embedding / F.embedding_bag with max_norm: the referenced rows are renormalised in place
(op embedding_renorm_, under no_grad) before the lookup, like torch."""
import numpy as np
import pytest

import ember
import ember.nn as nn
import ember.nn.functional as F


@pytest.fixture
def torch():
    return pytest.importorskip("torch")


def _w(seed=0, shape=(7, 4), dtype=np.float32):
    return (np.random.default_rng(seed).standard_normal(shape) * 2).astype(dtype)


@pytest.mark.parity
@pytest.mark.parametrize("norm_type", [2.0, 1.0, 3.0, float("inf")])
@pytest.mark.parametrize("padding_idx", [None, 2])
def test_embedding_module_max_norm_training_steps_match_torch(torch, norm_type, padding_idx):
    w = _w()
    me = nn.Embedding.from_pretrained(ember.tensor(w), freeze=False, max_norm=1.5, norm_type=norm_type,
                                      padding_idx=padding_idx)
    mt = torch.nn.Embedding.from_pretrained(torch.tensor(w), freeze=False, max_norm=1.5, norm_type=norm_type,
                                            padding_idx=padding_idx)
    assert repr(me) == repr(mt)
    oe, ot = ember.optim.SGD(me.parameters(), lr=0.5), torch.optim.SGD(mt.parameters(), lr=0.5)
    rng = np.random.default_rng(1)
    for step in range(4):
        idx = rng.integers(0, 7, (3, 5))
        idx[0, :2] = idx[1, 0]                     # repeated rows are renormalised once
        ye, yt = me(ember.tensor(idx)), mt(torch.tensor(idx))
        np.testing.assert_allclose(ye.detach().numpy(), yt.detach().numpy(), rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(me.weight.detach().numpy(), mt.weight.detach().numpy(), rtol=1e-5, atol=1e-6)
        g = rng.standard_normal(ye.shape).astype(np.float32)
        oe.zero_grad()
        ot.zero_grad()
        (ye * ember.tensor(g)).sum().backward()
        (yt * torch.tensor(g)).sum().backward()
        np.testing.assert_allclose(me.weight.grad.numpy(), mt.weight.grad.numpy(), rtol=1e-5, atol=1e-6)
        oe.step()
        ot.step()
    me(ember.tensor(idx))                              # the update grew some rows; a lookup renormalises them
    norms = np.linalg.norm(me.weight.detach().numpy()[np.unique(idx)], ord=norm_type, axis=1)
    assert np.all(norms <= 1.5 + 1e-5)


@pytest.mark.parity
def test_only_referenced_rows_change_and_version_bumps(torch):
    w = _w(2)
    we, wt = ember.tensor(w), torch.tensor(w)
    idx = np.array([[0, 3], [3, 5]])
    v = we._version
    F.embedding(ember.tensor(idx), we, max_norm=1.0)
    torch.nn.functional.embedding(torch.tensor(idx), wt, max_norm=1.0)
    assert we._version > v
    got = we.numpy()
    np.testing.assert_allclose(got, wt.numpy(), rtol=1e-6, atol=1e-7)
    untouched = [1, 2, 4, 6]
    np.testing.assert_array_equal(got[untouched], w[untouched])
    assert np.all(np.linalg.norm(got[[0, 3, 5]], axis=1) <= 1.0 + 1e-6)


@pytest.mark.parity
@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
def test_embedding_bag_max_norm_matches_torch(torch, mode):
    w = _w(3)
    we, wt = ember.tensor(w), torch.tensor(w)
    idx, off = np.array([1, 2, 4, 4, 6, 1]), np.array([0, 2, 5])
    ye = F.embedding_bag(ember.tensor(idx), we, ember.tensor(off), max_norm=0.8, norm_type=1.0, mode=mode)
    yt = torch.nn.functional.embedding_bag(torch.tensor(idx), wt, torch.tensor(off), max_norm=0.8, norm_type=1.0,
                                           mode=mode)
    np.testing.assert_allclose(ye.numpy(), yt.numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(we.numpy(), wt.numpy(), rtol=1e-6, atol=1e-7)
    be = nn.EmbeddingBag.from_pretrained(ember.tensor(w), max_norm=0.8, mode=mode)
    bt = torch.nn.EmbeddingBag.from_pretrained(torch.tensor(w), max_norm=0.8, mode=mode)
    np.testing.assert_allclose(be(ember.tensor(idx), ember.tensor(off)).numpy(),
                               bt(torch.tensor(idx), torch.tensor(off)).numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parity
def test_renorm_op_float64_and_int32_indices(torch):
    w = _w(4, dtype=np.float64)
    we, wt = ember.tensor(w), torch.tensor(w)
    idx = np.array([6, 0, 6, -1], dtype=np.int32)      # -1 counts from the end, like torch's select
    assert ember.embedding_renorm_(we, ember.tensor(idx), 0.5, 2.0) is we
    torch.embedding_renorm_(wt, torch.tensor(idx), 0.5, 2.0)
    assert we.dtype is ember.float64
    np.testing.assert_allclose(we.numpy(), wt.numpy(), rtol=1e-12)


BAD = [
    ("float_indices", lambda L, w: L.embedding_renorm_(w, L.tensor([0.0, 1.0]), 1.0, 2.0)),
    ("one_dim_weight", lambda L, w: L.embedding_renorm_(w.view(-1), L.tensor([0, 1]), 1.0, 2.0)),
    ("long_weight", lambda L, w: L.embedding_renorm_(w.long(), L.tensor([0, 1]), 1.0, 2.0)),
    ("out_of_range", lambda L, w: L.embedding_renorm_(w, L.tensor([0, 7]), 1.0, 2.0)),
    ("below_range", lambda L, w: L.embedding_renorm_(w, L.tensor([-9, 1]), 1.0, 2.0)),
    ("leaf_requires_grad", lambda L, w: L.embedding_renorm_(w.clone().requires_grad_(), L.tensor([0]), 1.0, 2.0)),
]


@pytest.mark.parity
@pytest.mark.parametrize("name,call", BAD, ids=[n for n, _ in BAD])
def test_bad_input_like_torch_and_weight_unchanged(torch, name, call):
    w = _w(5) * 3
    with pytest.raises(Exception) as et:
        call(torch, torch.tensor(w))
    we = ember.tensor(w)
    with pytest.raises(type(et.value)) as ee:
        call(ember, we)
    assert str(ee.value) == str(et.value)
    np.testing.assert_array_equal(we.numpy(), w)        # ember validates before writing (torch may not)


def test_meta_renorm_returns_self_and_checks():
    w = ember.empty(5, 3, device="meta")
    assert ember.embedding_renorm_(w, ember.tensor([0, 1], device="meta"), 1.0, 2.0) is w
    with pytest.raises(RuntimeError, match="2-dimensional"):
        ember.embedding_renorm_(ember.empty(5, device="meta"), ember.tensor([0], device="meta"), 1.0, 2.0)
