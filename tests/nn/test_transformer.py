"""MultiheadAttention and Transformer modules vs torch: same state_dict layout (load either way), outputs with
masks, batch_first, need_weights/average_attn_weights, norm_first, activations."""
import numpy as np
import pytest

import ember
import ember.nn as nn
from conftest import arr
from _parity import copy_state


def _t(torch, x, **kw):
    return torch.tensor(x, **kw)


def _check(a, b, rtol=1e-4, atol=1e-5):
    if b is None:
        assert a is None
        return
    assert tuple(a.shape) == tuple(b.shape)
    np.testing.assert_allclose(a.numpy(force=True), b.detach().numpy(), rtol=rtol, atol=atol)


@pytest.mark.parity
@pytest.mark.parametrize("kw", [{}, dict(batch_first=True), dict(bias=False), dict(kdim=3, vdim=5),
                                dict(add_bias_kv=True), dict(add_zero_attn=True)])
@pytest.mark.parametrize("need_weights,average", [(True, True), (True, False), (False, True)])
def test_mha_matches_torch(torch, kw, need_weights, average):
    E, H, L, S, N = 8, 2, 4, 5, 3
    e = nn.MultiheadAttention(E, H, **kw)
    t = torch.nn.MultiheadAttention(E, H, **kw)
    assert repr(e) == repr(t)
    assert [(k, tuple(v.shape)) for k, v in e.state_dict().items()] == \
        [(k, tuple(v.shape)) for k, v in t.state_dict().items()]
    copy_state(e, t, torch)
    bf = kw.get("batch_first", False)
    qs, ks, vs = ((N, L, E), (N, S, kw.get("kdim", E)), (N, S, kw.get("vdim", E))) if bf else \
        ((L, N, E), (S, N, kw.get("kdim", E)), (S, N, kw.get("vdim", E)))
    q, k, v = arr(*qs), arr(*ks, seed=1), arr(*vs, seed=2)
    kpm = np.zeros((N, S), dtype=bool)
    kpm[0, -2:] = True
    am = np.triu(np.ones((L, S), dtype=bool), 2)
    for masks in [{}, dict(key_padding_mask=kpm), dict(attn_mask=am), dict(attn_mask=am, key_padding_mask=kpm),
                  dict(attn_mask=np.where(am, -1.5, 0.0).astype(np.float32))]:
        oe, we = e(ember.tensor(q), ember.tensor(k), ember.tensor(v), need_weights=need_weights,
                   average_attn_weights=average, **{m: ember.tensor(x) for m, x in masks.items()})
        ot, wt = t(_t(torch, q), _t(torch, k), _t(torch, v), need_weights=need_weights,
                   average_attn_weights=average, **{m: _t(torch, x) for m, x in masks.items()})
        _check(oe, ot)
        _check(we, wt)


@pytest.mark.parity
def test_mha_self_attention_unbatched_and_causal(torch):
    e, t = nn.MultiheadAttention(8, 4), torch.nn.MultiheadAttention(8, 4)
    copy_state(e, t, torch)
    x = arr(5, 8)
    oe, we = e(ember.tensor(x), ember.tensor(x), ember.tensor(x))
    ot, wt = t(_t(torch, x), _t(torch, x), _t(torch, x))
    _check(oe, ot)
    _check(we, wt)
    xe = ember.tensor(arr(5, 2, 8))
    mask = nn.Transformer.generate_square_subsequent_mask(5)
    np.testing.assert_array_equal(mask.numpy(), torch.nn.Transformer.generate_square_subsequent_mask(5).numpy())
    oe, _ = e(xe, xe, xe, attn_mask=mask, need_weights=False, is_causal=True)
    xt = _t(torch, arr(5, 2, 8))
    ot, _ = t(xt, xt, xt, attn_mask=torch.tensor(mask.numpy()), need_weights=False, is_causal=True)
    _check(oe, ot)
    with pytest.raises(RuntimeError, match="Need attn_mask if specifying the is_causal hint"):
        e(xe, xe, xe, is_causal=True)
    with pytest.raises(RuntimeError, match=r"The shape of the 2D attn_mask is torch.Size\(\[4, 4\]\), but should "
                                           r"be \(5, 5\)."):
        e(xe, xe, xe, attn_mask=ember.zeros(4, 4))


@pytest.mark.parity
def test_mha_state_dict_from_torch(torch):
    t = torch.nn.MultiheadAttention(6, 3, batch_first=True)
    e = nn.MultiheadAttention(6, 3, batch_first=True)
    res = e.load_state_dict({k: ember.tensor(v.detach().numpy()) for k, v in t.state_dict().items()})
    assert not res.missing_keys and not res.unexpected_keys
    x = arr(2, 4, 6)
    _check(e(ember.tensor(x), ember.tensor(x), ember.tensor(x))[0], t(_t(torch, x), _t(torch, x), _t(torch, x))[0])


LAYER_KW = [{}, dict(norm_first=True), dict(activation="gelu"), dict(batch_first=True), dict(bias=False)]


@pytest.mark.parity
@pytest.mark.parametrize("kw", LAYER_KW, ids=str)
def test_encoder_decoder_layers_match_torch(torch, kw):
    d, h, ff = 8, 2, 16
    for cls in ["TransformerEncoderLayer", "TransformerDecoderLayer"]:
        e = getattr(nn, cls)(d, h, ff, **kw).eval()
        t = getattr(torch.nn, cls)(d, h, ff, **kw).eval()
        assert repr(e) == repr(t)
        assert list(e.state_dict()) == list(t.state_dict())
        copy_state(e, t, torch)
        bf = kw.get("batch_first", False)
        x, m = arr(*((2, 5, d) if bf else (5, 2, d))), arr(*((2, 3, d) if bf else (3, 2, d)), seed=1)
        kpm = np.zeros((2, 5), dtype=bool)
        kpm[1, -1] = True
        mask = np.triu(np.full((5, 5), -np.inf, dtype=np.float32), 1)
        if cls == "TransformerEncoderLayer":
            ye = e(ember.tensor(x), src_mask=ember.tensor(mask), src_key_padding_mask=ember.tensor(kpm))
            with torch.no_grad():
                yt = t(_t(torch, x), src_mask=_t(torch, mask), src_key_padding_mask=_t(torch, kpm))
        else:
            ye = e(ember.tensor(x), ember.tensor(m), tgt_mask=ember.tensor(mask),
                   tgt_key_padding_mask=ember.tensor(kpm))
            yt = t(_t(torch, x), _t(torch, m), tgt_mask=_t(torch, mask), tgt_key_padding_mask=_t(torch, kpm))
        _check(ye, yt)


@pytest.mark.parity
@pytest.mark.parametrize("batch_first", [False, True])
def test_full_transformer_matches_torch(torch, batch_first):
    kw = dict(d_model=8, nhead=2, num_encoder_layers=2, num_decoder_layers=2, dim_feedforward=16, dropout=0.0,
              batch_first=batch_first)
    with pytest.warns(UserWarning) if not batch_first else _nullcontext():
        e = nn.Transformer(**kw)
    t = torch.nn.Transformer(**kw)
    assert repr(e) == repr(t)
    assert list(e.state_dict()) == list(t.state_dict())
    copy_state(e, t, torch)
    src = arr(*((2, 6, 8) if batch_first else (6, 2, 8)))
    tgt = arr(*((2, 4, 8) if batch_first else (4, 2, 8)), seed=1)
    tm = nn.Transformer.generate_square_subsequent_mask(4)
    ye = e(ember.tensor(src), ember.tensor(tgt), tgt_mask=tm)
    yt = t(_t(torch, src), _t(torch, tgt), tgt_mask=torch.tensor(tm.numpy()))
    _check(ye, yt)
    with pytest.raises(RuntimeError, match="the feature number of src and tgt must be equal to d_model"):
        e(ember.ones(2, 2, 7), ember.ones(2, 2, 7))


class _nullcontext:
    def __enter__(self):
        return self

    def __exit__(self, *a):
        return False


@pytest.mark.parity
@pytest.mark.parametrize("layer_only", [False, True])
def test_encoder_with_bool_padding_and_float_mask_warns_as_torch(torch, layer_only):
    """nn.TransformerEncoder(/Layer) given a bool src_key_padding_mask with a float mask canonicalises both
    (bool -> -inf) and gives torch's deprecation warning naming its own arguments; outputs as torch's."""
    import warnings

    def make(L):
        layer = L.nn.TransformerEncoderLayer(16, 4, 32, dropout=0.0, batch_first=True)
        return layer if layer_only else L.nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)

    t_mod, e_mod = make(torch), make(ember)
    copy_state(e_mod, t_mod, torch)
    x = np.random.default_rng(0).standard_normal((2, 5, 16)).astype(np.float32)
    pad = [[False] * 5, [False, False, False, True, True]]
    outs, msgs = [], []
    for L, mod in ((torch, t_mod), (ember, e_mod)):
        mask = L.nn.Transformer.generate_square_subsequent_mask(5)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            kw = dict(src_mask=mask) if layer_only else dict(mask=mask)
            outs.append(mod(L.tensor(x), src_key_padding_mask=L.tensor(pad), **kw))
        msgs.append([str(m.message) for m in w if "mismatched" in str(m.message)])
    assert msgs[1] == msgs[0] and msgs[0]
    _check(outs[1], outs[0])
