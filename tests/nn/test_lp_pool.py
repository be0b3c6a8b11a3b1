"""LPPool1d/2d/3d and F.lp_pool1d/2d/3d against torch: values, gradients and reprs."""
import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.parity

CASES = [("LPPool1d", (2, 3), {}, (2, 3, 10)), ("LPPool1d", (1.5, 2), {"stride": 1, "ceil_mode": True}, (1, 2, 7)),
         ("LPPool2d", (2, 2), {}, (2, 3, 6, 6)), ("LPPool2d", (3, (2, 3)), {"stride": (1, 2)}, (1, 2, 5, 7)),
         ("LPPool3d", (2, 2), {}, (1, 2, 4, 4, 4)), ("LPPool3d", (1, (1, 2, 2)), {"ceil_mode": True}, (1, 1, 3, 5, 5))]


@pytest.mark.parametrize("name,args,kw,shape", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_lp_pool(name, args, kw, shape):
    x = np.random.default_rng(0).uniform(0.1, 2.0, shape)
    em, tm = getattr(ember.nn, name)(*args, **kw), getattr(torch.nn, name)(*args, **kw)
    assert repr(em) == repr(tm)
    ex, tx = ember.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    ey, ty = em(ex), tm(tx)
    np.testing.assert_allclose(ey.detach().numpy(), ty.detach().numpy(), rtol=1e-10)
    ey.sum().backward()
    ty.sum().backward()
    np.testing.assert_allclose(ex.grad.numpy(), tx.grad.numpy(), rtol=1e-9)
