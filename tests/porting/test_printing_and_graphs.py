"""What tutorials print: grad_fn names of the graph (F.mse_loss shows MseLossBackward0), complex
tensors as torch formats them, and Linear's dtype-mismatch message; against torch."""
import numpy as np
import pytest

import ember
from _porting import torch_fixture  # noqa: F401  (the `torch` fixture)


def _graphs(t):
    F = t.nn.functional
    x = t.tensor(np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4), requires_grad=True)
    y = t.tensor(np.linspace(0.1, 0.9, 12, dtype=np.float32).reshape(3, 4))
    w = t.tensor(np.linspace(0.5, 2, 12, dtype=np.float32).reshape(3, 4))
    tgt = t.tensor([0, 1, 3])
    return {
        "mse": lambda: F.mse_loss(x, y), "mse_none": lambda: F.mse_loss(x, y, reduction="none"),
        "mse_weighted": lambda: F.mse_loss(x, y, weight=w), "l1": lambda: F.l1_loss(x, y),
        "l1_weighted": lambda: F.l1_loss(x, y, weight=w), "smooth_l1": lambda: F.smooth_l1_loss(x, y),
        "huber": lambda: F.huber_loss(x, y), "bce": lambda: F.binary_cross_entropy(x.sigmoid(), y),
        "bce_logits": lambda: F.binary_cross_entropy_with_logits(x, y),
        "cross_entropy": lambda: F.cross_entropy(x, tgt), "nll": lambda: F.nll_loss(x.log_softmax(1), tgt),
        "soft_margin": lambda: F.soft_margin_loss(x, y), "linear_bias": lambda: F.linear(x, x, x[0, :3]),
        "relu": lambda: F.relu(x), "softmax": lambda: F.softmax(x, 1), "gelu": lambda: F.gelu(x),
        "layer_norm": lambda: F.layer_norm(x, (4,)), "mean": lambda: x.mean(), "pow": lambda: x ** 2,
        "view": lambda: x.view(-1), "cat": lambda: t.cat([x, x]), "index": lambda: x[0], "where": lambda: t.where(x > 0, x, y),
        "cdist": lambda: t.cdist(x, y), "batch_norm": lambda: F.batch_norm(x, None, None, training=True),
    }


def _chain(r, depth=3):
    names, node = [], r.grad_fn
    while node is not None and len(names) < depth:
        names.append(type(node).__name__)
        nxt = [f for f, _ in node.next_functions if f is not None and type(f).__name__ != "AccumulateGrad"]
        node = nxt[0] if nxt else None
    return names


@pytest.mark.parity
@pytest.mark.parametrize("name", list(_graphs(ember)))
def test_grad_fn_names_match_torch(torch, name):
    got, want = _graphs(ember)[name](), _graphs(torch)[name]()
    assert _chain(got) == _chain(want)
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-5, atol=1e-6)


COMPLEX = [[1 + 2j, -3.5 - 0.25j], [[1e-5 + 1j, 100 + 0j], [0.5j, -1]], [1 + 1j] * 3, [1e10 + 1j, 1],
           [complex("nan+1j"), complex("inf-2j"), 0j], 2 + 3j, [1.123456789 + 2.1j], [-0.0 - 0.0j, 1 - 1j]]


@pytest.mark.parity
@pytest.mark.parametrize("data", COMPLEX, ids=range(len(COMPLEX)))
@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_complex_repr_matches_torch(torch, data, dtype):
    got = repr(ember.tensor(data, dtype=getattr(ember, dtype))).replace("ember.", "torch.")
    assert got == repr(torch.tensor(data, dtype=getattr(torch, dtype)))


@pytest.mark.parity
def test_large_complex_repr_matches_torch(torch):
    z = (np.random.default_rng(1).standard_normal((40, 30)) * (1 + 2j)).astype(np.complex64)
    assert repr(ember.tensor(z)).replace("ember.", "torch.") == repr(torch.tensor(z))


@pytest.mark.parity
@pytest.mark.parametrize("shape,dtype,bias", [((2, 3), "float64", True), ((3,), "float64", True),
                                              ((2, 2, 3), "float64", True), ((2, 3), "int64", True),
                                              ((2, 3), "float64", False), ((3,), "float64", False)])
def test_linear_dtype_mismatch_message_matches_torch(torch, shape, dtype, bias):
    msgs = []
    for t in (ember, torch):
        with pytest.raises(RuntimeError) as e:
            t.nn.Linear(3, 2, bias=bias)(t.ones(shape, dtype=getattr(t, dtype)))
        msgs.append(str(e.value))
    assert msgs[0] == msgs[1]
