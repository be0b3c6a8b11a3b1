"""The engine's summing of the gradients that reach one input (autograd/input_buffer.py, torch's InputBuffer)."""
import numpy as np
import pytest

import ember
from ember.autograd import input_buffer


def _crf_like(lib, x):
    """Many selects of one tensor, each feeding the loss: the gradients of x's producer add up in one buffer."""
    y = x * 1.5
    total = y[0, 0] * 0
    for t in range(1, y.shape[0]):
        for k in range(y.shape[1]):
            score = y[t - 1] + y[t, k]
            total = total + (score - score.max()).exp().sum().log()
    return total


@pytest.mark.parity
def test_many_select_grads_add_up_like_torch():
    torch = pytest.importorskip("torch")
    a = np.random.default_rng(0).standard_normal((6, 4)).astype(np.float32)
    xe, xt = ember.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    _crf_like(ember, xe).backward()
    _crf_like(torch, xt).backward()
    np.testing.assert_allclose(xe.grad.numpy(), xt.grad.numpy(), rtol=1e-5, atol=1e-6)


def test_buffered_grads_are_summed_in_place(monkeypatch):
    adds = []

    def counting_add(a, b, out):
        adds.append(1)
        return np.add(a, b, out=out)

    monkeypatch.setattr(input_buffer, "_add", counting_add)
    x = ember.zeros(3, 4, requires_grad=True)
    y = x * 1
    (y[0] + y[1] + y[2] + y[0, 1]).sum().backward()
    assert adds            # the select grads of y landed in one buffer, summed into it
    assert x.grad.tolist() == [[1.0, 5.0, 1.0, 1.0], [1.0] * 4, [1.0] * 4]


def test_a_grad_someone_else_holds_is_not_written_into():
    seen = []
    x = ember.ones(3, requires_grad=True)
    y = x * 2
    z = y + 0                                          # passes its grad on unchanged: the same tensor object
    z.register_hook(lambda g: seen.append(g))
    (z * 3 + y * 5).sum().backward()
    assert seen[0].tolist() == [3.0, 3.0, 3.0]         # the hook's tensor kept its values
    assert x.grad.tolist() == [16.0, 16.0, 16.0]


def test_create_graph_sums_out_of_place_and_stays_differentiable():
    x = ember.tensor([1.0, 2.0], requires_grad=True)
    y = x * x
    s = y[0] * y[1] + y[0] + y[1] * 2
    (g,) = ember.autograd.grad(s, x, create_graph=True)
    # ds/dx0 = 2 x0 (y1 + 1), ds/dx1 = 2 x1 (y0 + 2)
    assert g.tolist() == [10.0, 12.0]
    g.sum().backward()
    # d/dx0 [2 x0 (x1^2 + 1) + 2 x1 (x0^2 + 2)] = 2 (x1^2 + 1) + 4 x0 x1; d/dx1 = 4 x0 x1 + 2 (x0^2 + 2)
    assert x.grad.tolist() == [18.0, 14.0]
