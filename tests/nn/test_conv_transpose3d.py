"""ConvTranspose3d and F.conv_transpose3d against torch: values, output_size, gradients, repr."""
import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.parity

CASES = [((2, 3, 2), {}, (1, 2, 3, 4, 5), None),
         ((2, 4, 3), {"stride": 2, "padding": 1, "output_padding": 1}, (2, 2, 3, 3, 3), None),
         ((4, 2, (1, 2, 3)), {"stride": (1, 2, 2), "groups": 2, "dilation": (1, 1, 2), "bias": False},
          (1, 4, 2, 3, 4), None),
         ((2, 2, 3), {"stride": 2}, (2, 3, 3, 3), (7, 8, 7))]


@pytest.mark.parametrize("args,kw,shape,output_size", CASES)
def test_conv_transpose3d(args, kw, shape, output_size):
    torch.manual_seed(0)
    tm = torch.nn.ConvTranspose3d(*args, **kw).double()
    em = ember.nn.ConvTranspose3d(*args, **kw).double()
    em.load_state_dict({k: ember.tensor(v.detach().numpy()) for k, v in tm.state_dict().items()})
    assert repr(em) == repr(tm)
    x = np.random.default_rng(0).standard_normal(shape)
    ex, tx = ember.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    ey, ty = em(ex, output_size), tm(tx, output_size)
    np.testing.assert_allclose(ey.detach().numpy(), ty.detach().numpy(), rtol=1e-10, atol=1e-12)
    ey.sum().backward()
    ty.sum().backward()
    np.testing.assert_allclose(ex.grad.numpy(), tx.grad.numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(em.weight.grad.numpy(), tm.weight.grad.numpy(), rtol=1e-10, atol=1e-12)
