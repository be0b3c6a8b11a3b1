import math
import warnings

import numpy as np
import pytest

import ember
import ember.nn as nn
import ember.nn.functional as F
from conftest import arr


def _has_grad(op):
    try:
        a = ember.tensor(arr(2, 2), requires_grad=True)
        op(a).sum().backward()
        return a.grad is not None
    except Exception:
        return False


HAS_ADDMM_GRAD = _has_grad(lambda a: ember.addmm(a[0], a, a.t()))


def copy_linear(e, t, torch):
    with torch.no_grad():
        t.weight.copy_(torch.tensor(e.weight.numpy(force=True)))
        if e.bias is not None:
            t.bias.copy_(torch.tensor(e.bias.numpy(force=True)))


@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("shape", [(5, 4), (2, 3, 4), (4,)])
def test_linear_forward_matches_torch(torch, bias, shape):
    e = nn.Linear(4, 3, bias=bias)
    t = torch.nn.Linear(4, 3, bias=bias)
    copy_linear(e, t, torch)
    x = arr(*shape)
    ye = e(ember.tensor(x))
    yt = t(torch.tensor(x))
    assert tuple(ye.shape) == tuple(yt.shape) and ye.dtype is ember.float32
    np.testing.assert_allclose(ye.numpy(force=True), yt.detach().numpy(), rtol=1e-5, atol=1e-6)
    assert repr(e) == repr(t)
    assert [n for n, _ in e.named_parameters()] == [n for n, _ in t.named_parameters()]


@pytest.mark.parity
@pytest.mark.parametrize("shape,k", [((2, 3, 4), 4), ((2, 2, 3, 4), 4), ((0, 3, 4), 4), ((2, 3, 0), 0)])
@pytest.mark.parametrize("contiguous", [True, False])
def test_linear_nd_grads_match_torch(torch, shape, k, contiguous):
    """N-d input: torch folds a contiguous input into one addmm (grad_fn ViewBackward0), else matmul + add."""
    e, t = nn.Linear(k, 3), torch.nn.Linear(k, 3)
    copy_linear(e, t, torch)
    x = arr(*shape)
    if not contiguous:
        x = np.ascontiguousarray(np.swapaxes(x, 0, 1)).swapaxes(0, 1)
    xe, xt = ember.tensor(x), torch.tensor(x)
    if not contiguous:
        xe, xt = xe.transpose(0, 1).contiguous().transpose(0, 1), xt.transpose(0, 1).contiguous().transpose(0, 1)
    xe.requires_grad_(), xt.requires_grad_()
    ye, yt = e(xe), t(xt)
    assert type(ye.grad_fn).__name__ == type(yt.grad_fn).__name__
    g = arr(*ye.shape)
    ye.backward(ember.tensor(g))
    yt.backward(torch.tensor(g))
    for a, b in ((ye, yt), (xe.grad, xt.grad), (e.weight.grad, t.weight.grad), (e.bias.grad, t.bias.grad)):
        assert tuple(a.shape) == tuple(b.shape)
        np.testing.assert_allclose(a.numpy(force=True), b.detach().numpy(), rtol=1e-5, atol=1e-5)


def test_linear_default_init_bounds():
    ember.manual_seed(0)
    m = nn.Linear(400, 300)
    bound = 1 / math.sqrt(400)      # kaiming_uniform_(a=sqrt(5)) gives the same bound as the bias
    w, b = m.weight.numpy(force=True), m.bias.numpy(force=True)
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.95 * bound
    assert np.abs(b).max() <= bound and abs(w.std() - bound / math.sqrt(3)) < 0.01 * bound
    assert m.weight.requires_grad and isinstance(m.weight, nn.Parameter)
    d = nn.Linear(3, 2, dtype=ember.float64)
    assert d.weight.dtype is ember.float64
    nb = nn.Linear(3, 2, bias=False)
    assert nb.bias is None and "bias" in nb._parameters


def test_linear_wrong_input_raises_runtime_error():
    m = nn.Linear(4, 3)
    with pytest.raises(RuntimeError, match="5x6 and 4x3|shapes cannot be multiplied"):
        m(ember.tensor(arr(5, 6)))


def test_activations_and_mse_match_torch(torch):
    x = arr(3, 4)
    for name in ["ReLU", "Sigmoid", "Tanh"]:
        ye = getattr(nn, name)()(ember.tensor(x))
        yt = getattr(torch.nn, name)()(torch.tensor(x))
        np.testing.assert_allclose(ye.numpy(), yt.numpy(), rtol=1e-6, atol=1e-7)
        assert repr(getattr(nn, name)()) == repr(getattr(torch.nn, name)())
    assert repr(nn.ReLU(inplace=True)) == repr(torch.nn.ReLU(inplace=True))
    xe = ember.tensor(x.copy())
    assert nn.ReLU(inplace=True)(xe) is xe and (xe.numpy() >= 0).all()
    y = arr(3, 4, seed=1)
    for red in ["mean", "sum", "none"]:
        le = nn.MSELoss(reduction=red)(ember.tensor(x), ember.tensor(y))
        lt = torch.nn.MSELoss(reduction=red)(torch.tensor(x), torch.tensor(y))
        np.testing.assert_allclose(le.numpy(), lt.numpy(), rtol=1e-6)
        assert tuple(le.shape) == tuple(lt.shape)
    with pytest.raises(ValueError, match="bad is not a valid value for reduction"):
        F.mse_loss(ember.tensor(x), ember.tensor(y), reduction="bad")
    with pytest.warns(UserWarning, match="Using a target size"):
        F.mse_loss(ember.tensor(x), ember.tensor(arr(4)))
    assert nn.MSELoss(size_average=False).reduction == "sum"


def test_mse_backward_matches_torch(torch):
    x, y = arr(3, 4), arr(3, 4, seed=1)
    xe = ember.tensor(x, requires_grad=True)
    xt = torch.tensor(x, requires_grad=True)
    F.mse_loss(xe, ember.tensor(y)).backward()
    torch.nn.functional.mse_loss(xt, torch.tensor(y)).backward()
    np.testing.assert_allclose(xe.grad.numpy(), xt.grad.numpy(), rtol=1e-6)


@pytest.mark.skipif(not HAS_ADDMM_GRAD, reason="addmm derivative not on main yet")
def test_linear_backward_matches_torch(torch):
    e, t = nn.Linear(4, 3), torch.nn.Linear(4, 3)
    copy_linear(e, t, torch)
    x = arr(5, 4)
    F.mse_loss(e(ember.tensor(x)), ember.zeros(5, 3)).backward()
    torch.nn.functional.mse_loss(t(torch.tensor(x)), torch.zeros(5, 3)).backward()
    np.testing.assert_allclose(e.weight.grad.numpy(), t.weight.grad.numpy(), rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(e.bias.grad.numpy(), t.bias.grad.numpy(), rtol=1e-5, atol=1e-7)


def build_scale(lib):
    class Scale(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.w = lib.nn.Parameter(lib.tensor(arr(3)))

        def forward(self, x, y):
            return x * self.w, (y * 2).tanh()

    return Scale()


def test_full_backward_hooks_match_torch(torch):
    results = []
    for lib in (ember, torch):
        m = build_scale(lib)
        if lib is ember:
            m.w.numpy(force=True)[...] = m.w.numpy(force=True)
        log = []

        def pre(mod, go):
            log.append(("pre", [g.tolist() if g is not None else None for g in go]))
            return (go[0] * 3, go[1])

        def hook(mod, gi, go):
            log.append(("post", [g.tolist() if g is not None else None for g in gi],
                        [g.tolist() if g is not None else None for g in go]))
            return (gi[0] * 2, gi[1])

        m.register_full_backward_pre_hook(pre)
        m.register_full_backward_hook(hook)
        x = lib.tensor(arr(3, seed=1), requires_grad=True)
        y = lib.tensor(arr(3, seed=2), requires_grad=True)
        a, b = m(x, y)
        (a.sum() + b.sum()).backward()
        results.append((log, x.grad.tolist(), y.grad.tolist(), m.w.grad.tolist()))
    (le, xe, ye, we), (lt, xt, yt, wt) = results
    np.testing.assert_allclose(xe, xt, rtol=1e-6)
    np.testing.assert_allclose(ye, yt, rtol=1e-6)
    np.testing.assert_allclose(we, wt, rtol=1e-6)
    assert [e[0] for e in le] == [t[0] for t in lt] == ["pre", "post"]
    for e, t in zip(le, lt):
        for ge, gt in zip(e[1:], t[1:]):
            np.testing.assert_allclose(np.array(ge, dtype=float), np.array(gt, dtype=float), rtol=1e-6)


def test_backward_hook_mixing_errors():
    m = nn.Identity()
    m.register_full_backward_hook(lambda *a: None)
    with pytest.raises(RuntimeError, match="Cannot use both regular backward hooks and full backward hooks"):
        m.register_backward_hook(lambda *a: None)
