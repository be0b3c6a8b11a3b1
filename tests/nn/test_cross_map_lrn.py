"""nn.CrossMapLRN2d, torch's legacy cross-channel LRN: forward parity with torch (its running-window sum
included), the exact gradient (gradcheck) and parity with torch's gradient where torch's hand-written backward
is the derivative of its forward (a single channel; size 5 over two channels)."""
import numpy as np
import pytest

import ember
from ember.autograd import gradcheck, gradgradcheck


@pytest.mark.parity
@pytest.mark.parametrize("size", [1, 2, 3, 5, 6])
@pytest.mark.parametrize("channels", [1, 2, 3, 5, 11])
def test_forward_matches_torch(size, channels):
    torch = pytest.importorskip("torch")
    x = np.random.default_rng(channels).standard_normal((2, channels, 3, 4))
    t = torch.nn.CrossMapLRN2d(size, alpha=0.3, beta=0.7, k=1.5)
    e = ember.nn.CrossMapLRN2d(size, alpha=0.3, beta=0.7, k=1.5)
    np.testing.assert_allclose(e(ember.tensor(x)).numpy(), t(torch.tensor(x)).numpy(), rtol=1e-12)
    xf = x.astype(np.float32)
    out = ember.nn.CrossMapLRN2d(size)(ember.tensor(xf))
    assert out.dtype == ember.float32
    np.testing.assert_allclose(out.numpy(), torch.nn.CrossMapLRN2d(size)(torch.tensor(xf)).numpy(), rtol=1e-6)
    assert repr(e) == repr(t)


@pytest.mark.parametrize("size,channels", [(2, 3), (3, 6), (5, 9)])
def test_gradcheck(size, channels):
    x = ember.tensor(np.random.default_rng(0).standard_normal((2, channels, 2, 3)), requires_grad=True)
    m = ember.nn.CrossMapLRN2d(size, alpha=0.5, beta=0.75, k=1.0)
    assert gradcheck(m, (x,))
    assert gradgradcheck(m, (x,))


@pytest.mark.parity
@pytest.mark.parametrize("size,channels", [(2, 1), (3, 1), (5, 1), (5, 2)])
def test_grad_matches_torch_where_torch_is_exact(size, channels):
    torch = pytest.importorskip("torch")
    x = np.random.default_rng(1).standard_normal((2, channels, 3, 3))
    g = np.random.default_rng(2).standard_normal(x.shape)
    grads = []
    for lib in (torch, ember):
        xt = lib.tensor(x, requires_grad=True)
        lib.nn.CrossMapLRN2d(size, alpha=0.3, beta=0.7, k=1.5)(xt).backward(lib.tensor(g))
        grads.append(xt.grad.numpy())
    np.testing.assert_allclose(grads[1], grads[0], rtol=1e-10)


@pytest.mark.parity
def test_error_matches_torch():
    torch = pytest.importorskip("torch")
    errs = []
    for lib in (torch, ember):
        with pytest.raises(ValueError) as info:
            lib.nn.CrossMapLRN2d(3)(lib.zeros(2, 3, 4))
        errs.append(str(info.value))
    assert errs[0] == errs[1]
