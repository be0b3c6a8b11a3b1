"""The legacy nn.utils.spectral_norm / remove_spectral_norm against torch: the same u, v and weights give the
same normalised weight, power-iteration updates, outputs and gradients; eval mode skips the iteration."""
import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.parity


def _pair(kind):
    torch.manual_seed(0)
    if kind == "linear":
        tm, em = torch.nn.Linear(5, 4).double(), ember.nn.Linear(5, 4).double()
        shape = (3, 5)
    else:
        tm, em = torch.nn.ConvTranspose2d(3, 2, 3).double(), ember.nn.ConvTranspose2d(3, 2, 3).double()
        shape = (1, 3, 4, 4)
    torch.nn.utils.spectral_norm(tm, n_power_iterations=2)
    ember.nn.utils.spectral_norm(em, n_power_iterations=2)
    state = {k: ember.tensor(v.detach().numpy()) for k, v in tm.state_dict().items()}
    assert sorted(state) == sorted(em.state_dict())
    em.load_state_dict(state)
    return em, tm, np.random.default_rng(0).standard_normal(shape)


@pytest.mark.parametrize("kind", ["linear", "conv_transpose"])
def test_spectral_norm(kind):
    em, tm, x = _pair(kind)
    for _ in range(2):
        ex, tx = ember.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
        ey, ty = em(ex), tm(tx)
        np.testing.assert_allclose(ey.detach().numpy(), ty.detach().numpy(), rtol=1e-9, atol=1e-12)
        ey.sum().backward()
        ty.sum().backward()
        np.testing.assert_allclose(em.weight_orig.grad.numpy(), tm.weight_orig.grad.numpy(), rtol=1e-8, atol=1e-12)
        np.testing.assert_allclose(em.weight_u.numpy(), tm.weight_u.numpy(), rtol=1e-9, atol=1e-12)
    em.eval()
    tm.eval()
    u = em.weight_u.numpy().copy()
    np.testing.assert_allclose(em(ember.tensor(x)).detach().numpy(), tm(torch.tensor(x)).detach().numpy(), rtol=1e-9)
    np.testing.assert_array_equal(em.weight_u.numpy(), u)
    ember.nn.utils.remove_spectral_norm(em)
    torch.nn.utils.remove_spectral_norm(tm)
    assert isinstance(em.weight, ember.nn.Parameter) and not hasattr(em, "weight_orig")
    np.testing.assert_allclose(em.weight.detach().numpy(), tm.weight.detach().numpy(), rtol=1e-9)


def test_errors():
    for mod in (torch, ember):
        m = mod.nn.Linear(2, 2)
        mod.nn.utils.spectral_norm(m)
        with pytest.raises(RuntimeError, match="Cannot register two spectral_norm hooks"):
            mod.nn.utils.spectral_norm(m)
        with pytest.raises(ValueError, match="n_power_iterations"):
            mod.nn.utils.spectral_norm(mod.nn.Linear(2, 2), n_power_iterations=0)
        with pytest.raises(ValueError, match="spectral_norm of 'bias' not found"):
            mod.nn.utils.remove_spectral_norm(m, "bias")
