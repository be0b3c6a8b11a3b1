"""Gradients match torch's for every op with a formula (first and second order)."""
import numpy as np
import pytest

import ember

from ._util import FIRST_ORDER_ONLY, OPS

torch = pytest.importorskip("torch")


def _to_torch(x):
    if isinstance(x, ember.Tensor):
        return torch.tensor(x.detach().numpy(), dtype=torch.float64, requires_grad=x.requires_grad)
    return x


class _TorchNS:
    """Lets the OPS lambdas (written against `ember.`) run on torch tensors: torch, then
    torch.nn.functional, then torch.special."""

    _ALIASES = {"log_sigmoid": "logsigmoid"}

    def __getattr__(self, name):
        if name == "_nn":           # ember._nn is torch._C._nn (python_module: nn ops)
            return torch._C._nn
        name = self._ALIASES.get(name, name)
        for ns in (torch, torch.nn.functional, torch.special):
            if hasattr(ns, name):
                return getattr(ns, name)
        raise AttributeError(name)


def _run_torch(name, ins):
    fn, _ = OPS[name]
    g = fn.__globals__
    old = g["ember"]
    g["ember"] = _TorchNS()
    try:
        if name == "clamp_tensor":
            return torch.clamp(*ins)
        return fn(*ins)
    finally:
        g["ember"] = old


@pytest.mark.parity
@pytest.mark.parametrize("name", sorted(OPS))
def test_grad_parity(name):
    fn, make = OPS[name]
    ins = make()
    out = fn(*ins)
    tins = [_to_torch(x) for x in ins]
    tout = _run_torch(name, tins)
    np.testing.assert_allclose(out.detach().numpy(), tout.detach().numpy(), rtol=1e-12, atol=1e-12)
    go = np.random.default_rng(3).standard_normal(tuple(out.shape))
    grads = ember.autograd.grad(out, ins, ember.tensor(go.tolist(), dtype=ember.float64),
                                create_graph=name not in FIRST_ORDER_ONLY)
    tgrads = torch.autograd.grad(tout, tins, torch.tensor(go), create_graph=True)
    for g, tg in zip(grads, tgrads):
        assert g.shape == tuple(tg.shape) and g.dtype is ember.float64
        np.testing.assert_allclose(g.detach().numpy(), tg.detach().numpy(), rtol=1e-10, atol=1e-12)
    if name in FIRST_ORDER_ONLY:
        return
    # second order: d/d inputs of sum(grads * v)
    v = [np.random.default_rng(4 + i).standard_normal(tuple(g.shape)) for i, g in enumerate(grads)]
    s = sum(((g * ember.tensor(vi.tolist(), dtype=ember.float64)).sum() for g, vi in zip(grads, v)),
            start=ember.tensor(0.0, dtype=ember.float64))
    ts = sum(((tg * torch.tensor(vi)).sum() for tg, vi in zip(tgrads, v)), start=torch.tensor(0.0, dtype=torch.float64))
    if ts.requires_grad and not s.requires_grad:   # torch's graph is connected but the derivative is zero
        try:
            tgg = torch.autograd.grad(ts.sum(), tins, allow_unused=True, materialize_grads=True)
        except RuntimeError as e:      # torch has no double backward here (hardsigmoid)
            assert "not implemented" in str(e)
            return
        assert all(float(np.abs(_tnp(t)).sum()) == 0 for t in tgg)
    elif ts.requires_grad:
        try:
            tgg = torch.autograd.grad(ts.sum(), tins, allow_unused=True, materialize_grads=True)
        except RuntimeError as e:      # torch has no double backward here (hardsigmoid): ember's is checked by gradgradcheck
            assert "not implemented" in str(e)
            return
        gg = ember.autograd.grad(s, ins, ember.ones_like(s) if hasattr(ember, "ones_like") else
                                 ember.tensor(np.ones(tuple(s.shape)).tolist(), dtype=ember.float64),
                                 allow_unused=True, materialize_grads=True)
        for a, b in zip(gg, tgg):
            np.testing.assert_allclose(a.detach().numpy(), _tnp(b), rtol=1e-9, atol=1e-10)


def _tnp(t):
    """numpy value of a torch tensor, including torch's ZeroTensor (efficient zero gradients)."""
    t = t.detach()
    if t._is_zerotensor():
        return np.zeros(tuple(t.shape))
    return t.numpy()


@pytest.mark.parity
@pytest.mark.parametrize("base", ["tensor", "number"])
def test_pow_exponent_grad_at_base_zero_matches_torch(base):
    """d(0 ** x)/dx (pow_backward_exponent at base 0): torch gives 0 where x >= 0 (x = 0 included, where the
    formula result * log(0) would be nan) and -inf where x < 0 (inf * log(0)); a base tensor mixing zeros with
    positive values takes each element's own rule."""
    x = np.array([-2.0, -1.0, -0.5, 0.0, 0.5, 1.0, 3.0])
    b = np.array([0.0, 0.0, 0.0, 0.0, 0.0, 2.0, 0.0]) if base == "tensor" else 0.0
    w = np.linspace(0.5, 2.0, x.size)
    grads = []
    for T in (ember, torch):
        e = T.tensor(x, requires_grad=True)
        r = T.pow(T.tensor(b) if base == "tensor" else b, e)
        (r * T.tensor(w)).sum().backward()
        grads.append((r.detach().numpy(), e.grad.numpy()))
    (r_e, g_e), (r_t, g_t) = grads
    np.testing.assert_array_equal(r_e, r_t)
    np.testing.assert_array_equal(g_e, g_t)
    assert np.isneginf(g_t[:3]).all() and (g_t[3:5] == 0).all()       # the values this test pins down
