"""AccumulateGrad keeps an incoming gradient as .grad without a copy only when nothing else holds it
(torch checks the use count): a gradient shared by two leaves, kept by a hook, viewed by a retained
grad or given by the user must not become a .grad that the next backward adds into in place."""
import numpy as np
import pytest

import ember
from ember.autograd import engine


def _leaf(*vals):
    return ember.tensor(list(vals), requires_grad=True)


@pytest.mark.parity
def test_grad_shared_by_two_leaves_accumulates_separately():
    torch = pytest.importorskip("torch")
    for lib in (ember, torch):
        a, b = lib.ones(3, requires_grad=True), lib.ones(3, requires_grad=True)
        for _ in range(3):
            (a + b).sum().backward()
        assert a.grad.tolist() == [3.0] * 3 and b.grad.tolist() == [3.0] * 3, lib.__name__


def test_grad_kept_by_a_hook_is_not_modified_by_later_backwards():
    x = _leaf(1.0, 2.0)
    kept = []
    y = x * 1.0
    y.register_hook(lambda g: kept.append(g))
    (y + 0).sum().backward()
    (x * 1.0 + 0).sum().backward()
    assert kept[0].tolist() == [1.0, 1.0]
    assert x.grad.tolist() == [2.0, 2.0]


def test_retained_grad_does_not_alias_the_leaf_grad():
    x = _leaf(1.0, 2.0)
    y = x * 2.0
    y.retain_grad()
    (y + 0).sum().backward()
    (x * 2.0).sum().backward()
    assert y.grad.tolist() == [1.0, 1.0]
    assert x.grad.tolist() == [4.0, 4.0]


def test_user_gradient_passed_through_is_copied():
    x = _leaf(1.0, 2.0)
    g = ember.tensor([5.0, 7.0])
    (x + 0).backward(g)
    (x + 0).backward(g)
    assert g.tolist() == [5.0, 7.0]
    assert x.grad.tolist() == [10.0, 14.0]


def test_a_fresh_gradient_is_stolen_not_copied(monkeypatch):
    calls = []
    orig = engine._clone_detached
    monkeypatch.setattr(engine, "_clone_detached", lambda t: calls.append(1) or orig(t))
    w = ember.randn(4, 3, requires_grad=True)
    b = ember.randn(4, requires_grad=True)
    x = ember.randn(5, 3)
    ember.nn.functional.linear(x, w, b).relu().sum().backward()
    assert calls == []
    np.testing.assert_allclose(b.grad.numpy(), ((x.numpy() @ w.detach().numpy().T + b.detach().numpy()) > 0).sum(0))


@pytest.mark.parity
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_linear_grads_match_torch_and_weight_grad_is_no_view(dtype):
    """addmm's backward computes its operand grads without dispatching t/mm/t when there is no graph
    to record (and through the ops when there is): both agree with torch, layouts included."""
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(3)
    x, w, b = (rng.standard_normal(s).astype(dtype) for s in ((5, 4), (3, 4), (3,)))
    go = rng.standard_normal((5, 3)).astype(dtype)
    res = {}
    for lib in (ember, torch):
        tx, tw, tb = (lib.tensor(v, requires_grad=True) for v in (x, w, b))
        lib.nn.functional.linear(tx, tw, tb).backward(lib.tensor(go))
        res[lib.__name__] = [(t.grad.numpy(), t.grad.stride(), t.grad._is_view()) for t in (tx, tw, tb)]
    tol = 1e-6 if dtype == "float32" else 1e-12
    for (eg, es, ev), (tg, ts, tv) in zip(res["ember"], res["torch"]):
        np.testing.assert_allclose(eg, tg, rtol=tol, atol=tol)
        assert es == ts and ev == tv
    tx, tw = (ember.tensor(v, dtype=ember.float64, requires_grad=True) for v in (x, w))
    gx, gw = ember.autograd.grad((tx @ tw.t()).pow(2).sum(), (tx, tw), create_graph=True)
    assert gx.grad_fn is not None and gw.grad_fn is not None
    x64, w64 = x.astype(np.float64), w.astype(np.float64)
    np.testing.assert_allclose(gw.detach().numpy(), 2 * (x64 @ w64.T).T @ x64, rtol=1e-9)
