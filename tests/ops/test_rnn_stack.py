"""torch.lstm / torch.gru / torch.rnn_tanh / torch.rnn_relu (the aten functions behind nn.LSTM and friends),
padded and packed, against torch given the same flat weights: outputs, final states and every gradient."""
import numpy as np
import pytest

import ember

MODES = {"lstm": "LSTM", "gru": "GRU", "rnn_tanh": "RNN", "rnn_relu": "RNN"}


def _module(lib, name, kw):
    cls = getattr(lib.nn, MODES[name])
    extra = {"nonlinearity": "relu"} if name == "rnn_relu" else {}
    return cls(4, 5, **extra, **kw).double()


@pytest.mark.parity
@pytest.mark.parametrize("name", ["lstm", "gru", "rnn_tanh", "rnn_relu"])
@pytest.mark.parametrize("kw", [{"num_layers": 1}, {"num_layers": 2, "bidirectional": True},
                                {"num_layers": 2, "bias": False, "batch_first": True},
                                {"num_layers": 2, "proj_size": 3, "bidirectional": True}],
                         ids=["one", "bi2", "nobias-bf", "proj"])
@pytest.mark.parametrize("packed", [False, True])
def test_matches_torch(name, kw, packed):
    torch = pytest.importorskip("torch")
    if "proj_size" in kw and name != "lstm":
        pytest.skip("projections are LSTM's")
    torch.manual_seed(0)
    tm = _module(torch, name, kw)
    weights = [w.detach().numpy() for w in tm._flat_weights]
    batch_first = kw.get("batch_first", False)
    L, N = 6, 3
    rng = np.random.default_rng(1)
    x = rng.standard_normal((N, L, 4) if batch_first else (L, N, 4))
    layers_dirs = kw.get("num_layers", 1) * (2 if kw.get("bidirectional") else 1)
    h_out = kw.get("proj_size", 5)
    h0, c0 = rng.standard_normal((layers_dirs, N, h_out)), rng.standard_normal((layers_dirs, N, 5))
    lengths = [6, 4, 2]
    res = []
    for lib in (torch, ember):
        ws = [lib.tensor(w, requires_grad=True) for w in weights]
        xt, ht, ct = (lib.tensor(a, requires_grad=True) for a in (x, h0, c0))
        hx = [ht, ct] if name == "lstm" else ht
        fn = getattr(lib, name)
        args = (ws, kw.get("bias", True), kw.get("num_layers", 1), 0.0, True, kw.get("bidirectional", False))
        if packed:
            seq = xt if not batch_first else xt.transpose(0, 1)
            pk = lib.nn.utils.rnn.pack_padded_sequence(seq, lengths)
            outs = fn(pk.data, pk.batch_sizes, hx, *args)
        else:
            outs = fn(xt, hx, *args, batch_first)
        total = sum((o * lib.tensor(np.linspace(-1, 1, o.numel()).reshape(o.shape))).sum() for o in outs)
        total.backward()
        res.append(([o.detach().numpy() for o in outs],
                    [t.grad.numpy() if t.grad is not None else None for t in [xt, ht, ct] + ws]))
    for a, b in zip(res[0][0], res[1][0]):
        np.testing.assert_allclose(b, a, rtol=1e-10, atol=1e-12)
    for a, b in zip(res[0][1], res[1][1]):
        assert (a is None) == (b is None)
        if a is not None:
            np.testing.assert_allclose(b, a, rtol=1e-9, atol=1e-12)


@pytest.mark.parity
def test_module_weights_through_lstm_function():
    """An nn.LSTM's own weights through torch.lstm give the module's output (what nn.LSTM computes)."""
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    tm = torch.nn.LSTM(4, 5, num_layers=2).double()
    em = ember.nn.LSTM(4, 5, num_layers=2).double()
    em.load_state_dict({k: ember.tensor(v.detach().numpy()) for k, v in tm.state_dict().items()})
    x = np.random.default_rng(0).standard_normal((5, 2, 4))
    z = np.zeros((2, 2, 5))
    out, hy, cy = ember.lstm(ember.tensor(x), [ember.tensor(z), ember.tensor(z)], em._flat_weights, True, 2, 0.0,
                             False, False, False)
    ref, (rh, rc) = em(ember.tensor(x))
    np.testing.assert_allclose(out.detach().numpy(), ref.detach().numpy(), rtol=1e-10)
    np.testing.assert_allclose(out.detach().numpy(), tm(torch.tensor(x))[0].detach().numpy(), rtol=1e-10)
    for lib, ps, xx, zz in ((torch, tm._flat_weights, torch.tensor(x), torch.tensor(z)),
                            (ember, em._flat_weights, ember.tensor(x), ember.tensor(z))):
        with pytest.raises(RuntimeError, match="^lstm expects two hidden states$"):
            lib.lstm(xx, [zz], ps, True, 2, 0.0, False, False, False)
        with pytest.raises(RuntimeError, match="^got an incorrect number of RNN parameters$"):
            lib.lstm(xx, [zz, zz], ps[:-1], True, 2, 0.0, False, False, False)

