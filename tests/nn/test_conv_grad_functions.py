"""torch.nn.grad's conv gradients (conv1d/2d/3d _input and _weight, also reached as torch.nn.functional.grad)
against torch and against autograd through the conv itself."""
import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.parity


@pytest.mark.parametrize("n,kw", [(1, {}), (1, {"stride": 2, "padding": 1}), (2, {}),
                                  (2, {"stride": (2, 1), "padding": (1, 0), "dilation": 2, "groups": 2}),
                                  (3, {"padding": 1}), (3, {"stride": 2, "groups": 2})])
def test_conv_grad_functions_match_torch_and_autograd(n, kw):
    rng = np.random.default_rng(n)
    x = rng.standard_normal((2, 4) + (7,) * n)
    w = rng.standard_normal((6, 4 // kw.get("groups", 1)) + (3,) * n)
    res = []
    for L in (torch, ember):
        conv = getattr(L.nn.functional, f"conv{n}d")
        xt, wt = L.tensor(x, requires_grad=True), L.tensor(w, requires_grad=True)
        y = conv(xt, wt, **kw)
        g = L.tensor(rng.standard_normal(tuple(y.shape)) if L is torch else res[0][2])
        gx, gw = L.autograd.grad(y, (xt, wt), g)
        fgrad = L.nn.functional.grad
        got_x = getattr(fgrad, f"conv{n}d_input")(xt.shape, wt.detach(), g, **kw)
        got_w = getattr(L.nn.grad, f"conv{n}d_weight")(xt.detach(), wt.shape, g, **kw)
        np.testing.assert_allclose(got_x.numpy(), gx.numpy(), rtol=1e-10, atol=1e-10)
        np.testing.assert_allclose(got_w.numpy(), gw.numpy(), rtol=1e-10, atol=1e-10)
        res.append((got_x.numpy(), got_w.numpy(), g.numpy()))
    np.testing.assert_allclose(res[1][0], res[0][0], rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(res[1][1], res[0][1], rtol=1e-10, atol=1e-10)
