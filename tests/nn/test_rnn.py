"""RNN/LSTM/GRU (+cells) vs torch: parameter names/shapes/gate order (state_dicts interchange), outputs and
hidden states, backward, bidirectional/multi-layer/batch_first/proj_size, packed sequences."""
import numpy as np
import pytest

import ember
import ember.nn as nn
from ember.nn.utils import rnn as rnn_utils
from conftest import arr
from _parity import copy_state


def _check(a, b, rtol=1e-4, atol=1e-5):
    assert tuple(a.shape) == tuple(b.shape)
    np.testing.assert_allclose(a.numpy(force=True), b.detach().numpy(), rtol=rtol, atol=atol)


CFGS = [
    ("RNN", dict()), ("RNN", dict(nonlinearity="relu", num_layers=2)), ("GRU", dict(bidirectional=True)),
    ("LSTM", dict()), ("LSTM", dict(num_layers=2, bidirectional=True, batch_first=True)),
    ("LSTM", dict(proj_size=3)), ("GRU", dict(bias=False, num_layers=2)), ("RNN", dict(batch_first=True)),
]


@pytest.mark.parity
@pytest.mark.parametrize("name,kw", CFGS, ids=lambda c: str(c))
def test_rnn_matches_torch(torch, name, kw):
    e = getattr(nn, name)(4, 5, **kw)
    t = getattr(torch.nn, name)(4, 5, **kw)
    assert repr(e) == repr(t)
    assert [(k, tuple(v.shape)) for k, v in e.state_dict().items()] == \
        [(k, tuple(v.shape)) for k, v in t.state_dict().items()]
    copy_state(e, t, torch)
    bf = kw.get("batch_first", False)
    x = arr(*((3, 6, 4) if bf else (6, 3, 4)))
    xe, xt = ember.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    D = 2 if kw.get("bidirectional") else 1
    L = kw.get("num_layers", 1)
    hout = kw.get("proj_size", 0) or 5
    h0 = arr(L * D, 3, hout, seed=3)
    if name == "LSTM":
        c0 = arr(L * D, 3, 5, seed=4)
        ye, (he, ce) = e(xe, (ember.tensor(h0), ember.tensor(c0)))
        yt, (ht, ct) = t(xt, (torch.tensor(h0), torch.tensor(c0)))
        _check(ce, ct)
    else:
        ye, he = e(xe, ember.tensor(h0))
        yt, ht = t(xt, torch.tensor(h0))
    _check(ye, yt)
    _check(he, ht)
    g = arr(*yt.shape, seed=5)
    (ye * ember.tensor(g)).sum().backward()
    (yt * torch.tensor(g)).sum().backward()
    _check(xe.grad, xt.grad)
    tp = dict(t.named_parameters())
    for n, p in e.named_parameters():
        _check(p.grad, tp[n].grad)


@pytest.mark.parity
def test_unbatched_default_hidden_and_cells(torch):
    for name in ["RNN", "GRU", "LSTM"]:
        e, t = getattr(nn, name)(3, 4), getattr(torch.nn, name)(3, 4)
        copy_state(e, t, torch)
        x = arr(5, 3)
        ye, yt = e(ember.tensor(x)), t(torch.tensor(x))
        _check(ye[0], yt[0])
    for name in ["RNNCell", "GRUCell", "LSTMCell"]:
        e, t = getattr(nn, name)(3, 4), getattr(torch.nn, name)(3, 4)
        assert repr(e) == repr(t)
        copy_state(e, t, torch)
        x = arr(2, 3)
        ye, yt = e(ember.tensor(x)), t(torch.tensor(x))
        if name == "LSTMCell":
            _check(ye[0], yt[0])
            _check(ye[1], yt[1])
        else:
            _check(ye, yt)


@pytest.mark.parity
@pytest.mark.parametrize("enforce_sorted", [True, False])
def test_packed_sequence_matches_torch(torch, enforce_sorted):
    lengths = [5, 3, 2] if enforce_sorted else [3, 5, 2]
    x = arr(5, 3, 4)
    pe = rnn_utils.pack_padded_sequence(ember.tensor(x), lengths, enforce_sorted=enforce_sorted)
    pt = torch.nn.utils.rnn.pack_padded_sequence(torch.tensor(x), lengths, enforce_sorted=enforce_sorted)
    _check(pe.data, pt.data)
    assert pe.batch_sizes.tolist() == pt.batch_sizes.tolist()
    e = nn.LSTM(4, 5, bidirectional=True)
    t = torch.nn.LSTM(4, 5, bidirectional=True)
    copy_state(e, t, torch)
    oe, (he, ce) = e(pe)
    ot, (ht, ct) = t(pt)
    _check(oe.data, ot.data)
    _check(he, ht)
    _check(ce, ct)
    ue, le = rnn_utils.pad_packed_sequence(oe, batch_first=True)
    ut, lt = torch.nn.utils.rnn.pad_packed_sequence(ot, batch_first=True)
    _check(ue, ut)
    assert le.tolist() == lt.tolist()


def test_rnn_bad_input():
    m = nn.GRU(4, 5)
    with pytest.raises(RuntimeError, match="input.size\\(-1\\) must be equal to input_size. Expected 4, got 3"):
        m(ember.randn(2, 3, 3))
    with pytest.raises(ValueError, match="GRU: Expected input to be 2D or 3D, got 4D instead"):
        m(ember.randn(2, 3, 3, 4))
    with pytest.raises(RuntimeError, match=r"Expected hidden size \(1, 3, 5\), got \[1, 2, 5\]"):
        m(ember.randn(2, 3, 4), ember.zeros(1, 2, 5))
    with pytest.warns(UserWarning, match="dropout option adds dropout after all but last recurrent layer"):
        nn.LSTM(2, 3, dropout=0.5)


@pytest.mark.parity
def test_rnn_cell_base_is_public_with_torchs_parameters():
    torch = pytest.importorskip("torch")
    got = []
    for L in (torch, ember):
        class Cell(L.nn.RNNCellBase):
            def forward(self, x, h):
                return L.tanh(x @ self.weight_ih.t() + h @ self.weight_hh.t() + self.bias_ih + self.bias_hh)
        c = Cell(3, 4, True, 2)
        got.append(([(n, tuple(p.shape)) for n, p in c.named_parameters()], repr(c), "RNNCellBase" in L.nn.modules.rnn.__all__))
    assert got[0] == got[1]
