"""A node that saves its own output (exp, tanh, sigmoid, pow ...) keeps the output's data, not the
output tensor, so output and node do not hold each other: a forward under grad mode without backward
frees its graph at once, without the cycle collector. Double backward and the in-place check still work."""
import gc
import weakref

import numpy as np
import pytest

import ember


@pytest.fixture
def no_gc():
    was = gc.isenabled()
    gc.disable()
    yield
    if was:
        gc.enable()


def test_graph_of_an_unused_output_is_freed_without_the_collector(no_gc):
    x = ember.randn(100, requires_grad=True)
    for op in (ember.exp, ember.tanh, ember.sigmoid, ember.sqrt, lambda t: t.abs().pow(1.5)):
        y = op(x)
        node, out = weakref.ref(y.grad_fn), weakref.ref(y)
        del y
        assert node() is None and out() is None


def test_double_backward_through_a_saved_output():
    x = ember.tensor([0.5, 1.0, -2.0], dtype=ember.float64, requires_grad=True)
    y = x.exp() + x.tanh()
    g, = ember.autograd.grad(y.sum(), x, create_graph=True)
    h, = ember.autograd.grad(g.sum(), x)
    xn = x.detach().numpy()
    np.testing.assert_allclose(g.detach().numpy(), np.exp(xn) + 1 - np.tanh(xn) ** 2, rtol=1e-12)
    np.testing.assert_allclose(h.numpy(), np.exp(xn) - 2 * np.tanh(xn) * (1 - np.tanh(xn) ** 2), rtol=1e-12)


@pytest.mark.parity
def test_inplace_on_a_saved_output_is_caught_with_torchs_message():
    torch = pytest.importorskip("torch")
    msgs = []
    for lib in (torch, ember):
        x = lib.tensor([0.5, 1.0], requires_grad=True)
        y = x.exp()
        y.add_(1)
        with pytest.raises(RuntimeError) as e:
            y.sum().backward()
        msgs.append(str(e.value).replace("torch.", "").replace("ember.", ""))
    assert msgs[0] == msgs[1]
