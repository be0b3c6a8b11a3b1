"""Every loss module vs torch: constructor defaults, repr, values for each reduction, and grads where available."""
import numpy as np
import pytest

import ember
import ember.nn as nn
from conftest import arr
from _parity import backward_or_skip

rng = np.random.default_rng(0)
P = (1 / (1 + np.exp(-arr(4, 3)))).astype(np.float32)
Y01 = rng.integers(0, 2, (4, 3)).astype(np.float32)
PM1 = np.where(rng.integers(0, 2, (4,)) > 0, 1.0, -1.0).astype(np.float32)
CLS = rng.integers(0, 5, (4,))
CLS2D = rng.integers(0, 5, (2, 3, 3))

# name, ctor kwargs, inputs (np arrays; float ones get requires_grad)
CASES = [
    ("L1Loss", {}, [arr(4, 3), arr(4, 3, seed=1)]),
    ("MSELoss", {}, [arr(4, 3), arr(4, 3, seed=1)]),
    ("SmoothL1Loss", dict(beta=0.5), [arr(4, 3), arr(4, 3, seed=1)]),
    ("HuberLoss", dict(delta=0.7), [arr(4, 3), arr(4, 3, seed=1)]),
    ("SoftMarginLoss", {}, [arr(4, 3), np.sign(arr(4, 3, seed=1))]),
    ("CrossEntropyLoss", {}, [arr(4, 5), CLS]),
    ("CrossEntropyLoss", dict(label_smoothing=0.1, ignore_index=2), [arr(4, 5), CLS]),
    ("CrossEntropyLoss", dict(weight=np.linspace(0.5, 2, 5).astype(np.float32)), [arr(2, 5, 3, 3), CLS2D]),
    ("CrossEntropyLoss", {}, [arr(4, 5), np.abs(arr(4, 5, seed=2)) / 5]),
    ("NLLLoss", {}, [arr(4, 5), CLS]),
    ("NLLLoss", dict(ignore_index=1), [arr(2, 5, 3, 3), CLS2D]),
    ("BCELoss", {}, [P, Y01]),
    ("BCELoss", dict(weight=np.float32([1, 2, 3])), [P, Y01]),
    ("BCEWithLogitsLoss", {}, [arr(4, 3), Y01]),
    ("BCEWithLogitsLoss", dict(pos_weight=np.float32([1, 2, 0.5])), [arr(4, 3), Y01]),
    ("KLDivLoss", dict(reduction="batchmean"), [np.log(P), P[::-1].copy()]),
    ("KLDivLoss", dict(log_target=True), [np.log(P), np.log(P[::-1].copy())]),
    ("MarginRankingLoss", dict(margin=0.2), [arr(4), arr(4, seed=1), PM1]),
    ("HingeEmbeddingLoss", dict(margin=0.5), [arr(4), PM1]),
    ("CosineEmbeddingLoss", dict(margin=0.1), [arr(4, 3), arr(4, 3, seed=1), PM1]),
    ("TripletMarginLoss", dict(margin=0.5, swap=True), [arr(4, 3), arr(4, 3, seed=1), arr(4, 3, seed=2)]),
    ("TripletMarginWithDistanceLoss", dict(margin=0.5), [arr(4, 3), arr(4, 3, seed=1), arr(4, 3, seed=2)]),
    ("PoissonNLLLoss", {}, [arr(4, 3), np.abs(arr(4, 3, seed=1))]),
    ("PoissonNLLLoss", dict(log_input=False, full=True), [np.abs(arr(4, 3)) + 0.1, np.abs(arr(4, 3, seed=1)) * 3]),
    ("GaussianNLLLoss", {}, [arr(4, 3), arr(4, 3, seed=1), np.abs(arr(4, 3, seed=2)) + 0.1]),
    ("GaussianNLLLoss", dict(full=True), [arr(4, 3), arr(4, 3, seed=1), np.abs(arr(4, 1, seed=2)) + 0.1]),
    ("MultiLabelSoftMarginLoss", {}, [arr(4, 3), Y01]),
]


def _tensors(lib, xs, grad):
    out = []
    for i, x in enumerate(xs):
        rg = grad and i == 0 and x.dtype.kind == "f"
        out.append(lib.tensor(x, requires_grad=rg))
    return out


def _kwargs(lib, kw):
    return {k: lib.tensor(v) if isinstance(v, np.ndarray) else v for k, v in kw.items()}


@pytest.mark.parity
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("case", CASES, ids=lambda c: c[0] + "-" + "-".join(c[1]))
def test_loss_matches_torch(torch, case, reduction):
    name, kw, xs = case
    if "reduction" in kw:
        if reduction != "mean":
            pytest.skip("reduction fixed by the case")
        reduction = kw["reduction"]
    kw = dict(kw, reduction=reduction)
    e = getattr(nn, name)(**_kwargs(ember, kw))
    t = getattr(torch.nn, name)(**_kwargs(torch, kw))
    assert repr(e) == repr(t)
    assert list(e.state_dict()) == list(t.state_dict())
    ex, tx = _tensors(ember, xs, True), _tensors(torch, xs, True)
    le, lt = e(*ex), t(*tx)
    assert tuple(le.shape) == tuple(lt.shape)
    np.testing.assert_allclose(le.numpy(force=True), lt.detach().numpy(), rtol=1e-5, atol=1e-6)
    g = arr(*lt.shape, seed=9) if lt.dim() else np.float32(1.0)
    backward_or_skip(pytest, lambda: le.backward(ember.tensor(g)))
    lt.backward(torch.tensor(g))
    np.testing.assert_allclose(ex[0].grad.numpy(), tx[0].grad.numpy(), rtol=1e-4, atol=1e-5)


def test_loss_defaults_match_torch(torch):
    import inspect
    for name, *_ in CASES + [("CTCLoss",)]:
        a = inspect.signature(getattr(nn, name).__init__).parameters
        b = inspect.signature(getattr(torch.nn, name).__init__).parameters
        assert [(p.name, p.default, p.kind) for p in a.values()] == \
            [(p.name, p.default, p.kind) for p in b.values()], name


def test_legacy_size_average_reduce():
    m = nn.MSELoss(size_average=False)
    assert m.reduction == "sum"
    assert nn.L1Loss(reduce=False).reduction == "none"


@pytest.mark.parity
def test_ctc_loss_matches_torch(torch):
    T, N, C, S = 6, 2, 4, 3
    lp = np.log(np.random.default_rng(0).dirichlet(np.ones(C), (T, N))).astype(np.float32)
    tg = np.random.default_rng(1).integers(1, C, (N, S))
    il, tl = np.array([6, 5]), np.array([3, 2])
    for red in ["mean", "sum", "none"]:
        le = nn.CTCLoss(reduction=red)(ember.tensor(lp), ember.tensor(tg), ember.tensor(il), ember.tensor(tl))
        lt = torch.nn.CTCLoss(reduction=red)(torch.tensor(lp), torch.tensor(tg), torch.tensor(il), torch.tensor(tl))
        np.testing.assert_allclose(le.numpy(), lt.numpy(), rtol=1e-5, atol=1e-5)


def test_invalid_reduction_raises():
    with pytest.raises(ValueError, match="is not a valid value for reduction"):
        nn.L1Loss(reduction="avg")(ember.ones(2), ember.ones(2))


@pytest.mark.parity
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_nllloss2d_is_nllloss_as_torch(reduction):
    torch = pytest.importorskip("torch")
    x = arr(2, 3, 4, 5)
    t = np.random.default_rng(1).integers(0, 3, (2, 4, 5))
    w = np.array([0.2, 1.0, 3.0], dtype=np.float32)
    res = []
    for L in (torch, ember):
        m = L.nn.NLLLoss2d(weight=L.tensor(w), ignore_index=1, reduction=reduction)
        inp = L.tensor(x, requires_grad=True)
        y = m(L.log_softmax(inp, 1), L.tensor(t))
        y.sum().backward()
        res.append((repr(m), isinstance(m, L.nn.NLLLoss), y.detach().numpy(), inp.grad.numpy()))
    assert res[0][:2] == res[1][:2]
    np.testing.assert_allclose(res[1][2], res[0][2], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(res[1][3], res[0][3], rtol=1e-5, atol=1e-6)
