"""The activation family against torch: softshrink as an op of its own (values, gradients, errors)."""
import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")


def _both(fn):
    """fn(lib) in torch and ember: (result or exception type and message) of each."""
    out = []
    for lib in (torch, ember):
        try:
            out.append(fn(lib))
        except Exception as e:  # noqa: BLE001
            out.append((type(e).__name__, str(e)))
    return out


@pytest.mark.parity
@pytest.mark.parametrize("make", [
    lambda L: L.tensor([1, 2]), lambda L: L.tensor([True]), lambda L: L.tensor([1 + 1j]),
], ids=["long", "bool", "complex"])
def test_softshrink_refuses_non_floating_inputs_as_torch(make):
    want, got = _both(lambda L: L.nn.functional.softshrink(make(L)))
    assert got == want and got[0] == "NotImplementedError"


@pytest.mark.parity
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_softshrink_lambda_range_and_out_dtype_as_torch(dtype):
    want, got = _both(lambda L: L.nn.functional.softshrink(L.ones(2, dtype=getattr(L, dtype)), -1.5))
    assert got == want and got[0] == "RuntimeError"
    want, got = _both(lambda L: (L._C._nn if L is torch else L._nn).softshrink(L.ones(2), out=L.empty(2, dtype=L.float64)))
    assert got == want and got[0] == "RuntimeError"


@pytest.mark.parity
@pytest.mark.parametrize("lambd", [0.0, 0.5, 1.2])
def test_softshrink_values_grads_and_node_match_torch(lambd):
    a = np.array([[-2.0, -0.5, -0.3, 0.0, -1.0], [0.3, 0.5, 0.7, 1.2, 3.0]])   # (torch's grad at nan is 0 or 1
    # depending on its vectorised or scalar loop: not compared)
    g = np.random.default_rng(0).standard_normal(a.shape)
    res = []
    for L in (torch, ember):
        x = L.from_numpy(a.copy()).requires_grad_()
        y = L.nn.functional.softshrink(x, lambd)
        (gx,) = L.autograd.grad(y, x, L.from_numpy(g.copy()), create_graph=True)
        (ggx,) = L.autograd.grad((gx * gx).sum(), x, allow_unused=True, materialize_grads=True)
        res.append((y.detach().numpy(), gx.detach().numpy(), ggx.numpy(), type(y.grad_fn).__name__))
    (yt, gt, ggt, nt), (ye, ge, gge, ne) = res
    np.testing.assert_allclose(ye, yt)
    np.testing.assert_allclose(ge, gt)
    np.testing.assert_allclose(gge, ggt)
    assert ne == nt == "SoftshrinkBackward0"


def test_softshrink_gradcheck():
    x = ember.randn(3, 4, dtype=ember.float64, requires_grad=True)
    assert ember.autograd.gradcheck(lambda t: ember.nn.functional.softshrink(t, 0.3), (x,))
    assert ember.autograd.gradgradcheck(lambda t: ember.nn.functional.softshrink(t, 0.3) ** 2, (x,))
