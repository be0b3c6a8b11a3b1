"""Custom autograd.Function and utils.checkpoint."""
import numpy as np
import pytest

import ember
from ember.autograd import Function, once_differentiable, gradcheck, grad

from ._util import rand


def ones(*shape):
    return ember.tensor(np.ones(shape).tolist(), dtype=ember.float64)


class Cube(Function):
    @staticmethod
    def forward(ctx, x, k):
        ctx.save_for_backward(x)
        ctx.k = k
        return x * x * x * k

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        assert ctx.needs_input_grad == (True, False)
        return g * 3 * x * x * ctx.k, None


class CubeSetup(Function):
    @staticmethod
    def forward(x):
        return x * x * x

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(inputs[0], output)

    @staticmethod
    def backward(ctx, g):
        x, out = ctx.saved_tensors
        return g * 3 * out / x


def test_function_forward_backward_and_name():
    x = rand(3)
    y = Cube.apply(x, 2.0)
    assert y.grad_fn.name() == "CubeBackward" and y.requires_grad
    assert not Cube.apply(x.detach(), 2.0).requires_grad
    y.backward(ones(3))
    np.testing.assert_allclose(x.grad.numpy(), 6 * x.detach().numpy() ** 2)
    assert gradcheck(lambda t: Cube.apply(t, 2.0), (rand(3),))


def test_setup_context_style_and_double_backward():
    x = ember.tensor([0.5, 1.5, 2.0], dtype=ember.float64, requires_grad=True)
    assert gradcheck(CubeSetup.apply, (x,))
    (g,) = grad(CubeSetup.apply(x), x, ones(3), create_graph=True)
    (gg,) = grad(g, x, ones(3))
    np.testing.assert_allclose(gg.numpy(), 6 * x.detach().numpy())


def test_wrong_number_of_grads_and_shape():
    class Bad(Function):
        @staticmethod
        def forward(ctx, a):
            return a * 2

        @staticmethod
        def backward(ctx, g):
            return g, g
    with pytest.raises(RuntimeError, match=r"function BadBackward returned an incorrect number of gradients "
                                           r"\(expected 1, got 2\)"):
        Bad.apply(rand(3)).backward(ones(3))

    class BadShape(Function):
        @staticmethod
        def forward(ctx, a):
            return a * 2

        @staticmethod
        def backward(ctx, g):
            return ones(2)
    with pytest.raises(RuntimeError, match=r"Function BadShapeBackward returned an invalid gradient at index 0 - "
                                           r"got \[2\] but expected shape compatible with \[3\]"):
        BadShape.apply(rand(3)).backward(ones(3))


def test_mark_dirty_non_differentiable_materialize():
    class Inc(Function):
        @staticmethod
        def forward(ctx, a):
            a.add_(1)
            ctx.mark_dirty(a)
            return a

        @staticmethod
        def backward(ctx, g):
            return g

    x = rand(3)
    y = x * 1.0
    z = Inc.apply(y)
    assert z is y and y.grad_fn.name() == "IncBackward"
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an in-place"):
        Inc.apply(x)

    class Two(Function):
        @staticmethod
        def forward(ctx, a):
            idx = a > 0
            ctx.mark_non_differentiable(idx)
            ctx.set_materialize_grads(False)
            return a * 2, idx

        @staticmethod
        def backward(ctx, g, gidx):
            assert gidx is None
            return g * 2

    out, idx = Two.apply(x)
    assert not idx.requires_grad and out.requires_grad
    out.backward(ones(3))
    assert x.grad.tolist() == [2.0, 2.0, 2.0]


def test_saved_tensors_freed():
    x = rand(3)
    y = Cube.apply(x, 1.0)
    y.backward(ones(3))
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        y.backward(ones(3))


def test_once_differentiable():
    class Sq(Function):
        @staticmethod
        def forward(ctx, a):
            ctx.save_for_backward(a)
            return a * a

        @staticmethod
        @once_differentiable
        def backward(ctx, g):
            (a,) = ctx.saved_tensors
            return g * 2 * a

    x = rand(3)
    go = ones(3).requires_grad_()
    (g,) = grad(Sq.apply(x), x, go, create_graph=True)
    np.testing.assert_allclose(g.detach().numpy(), 2 * x.detach().numpy())
    with pytest.raises(RuntimeError, match="trying to differentiate twice a function that was marked with "
                                           "@once_differentiable"):
        grad(g, go, ones(3))


def test_checkpoint_matches_plain():
    from ember.utils.checkpoint import checkpoint

    def f(a, b):
        return (a * b).sin().exp() * a

    x, w = rand(4), rand(4, seed=1)
    f(x, w).backward(ones(4))
    gx, gw = x.grad, w.grad
    for reentrant, node in ((False, "MulBackward0"), (True, "CheckpointFunctionBackward")):
        x2, w2 = rand(4), rand(4, seed=1)
        y = checkpoint(f, x2, w2, use_reentrant=reentrant)
        assert y.grad_fn.name() == node      # non-reentrant keeps the function's own graph, as torch's
        y.backward(ones(4))
        np.testing.assert_allclose(x2.grad.numpy(), gx.numpy())
        np.testing.assert_allclose(w2.grad.numpy(), gw.numpy())


@pytest.mark.parity
def test_function_parity_with_torch():
    torch = pytest.importorskip("torch")
    x = rand(4)
    Cube.apply(x, 1.5).backward(ones(4))
    tx = torch.tensor(x.detach().numpy(), requires_grad=True)
    (tx ** 3 * 1.5).backward(torch.ones(4, dtype=torch.float64))
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy())


@pytest.mark.parity
def test_custom_function_node_name_and_repr_match_torch():
    """A custom Function's grad_fn is the class <Name>Backward, shown with object's repr at torch's module path."""
    torch = pytest.importorskip("torch")
    got = []
    for L in (torch, ember):
        class MyFn(L.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return g * 2

        y = MyFn.apply(L.ones(2, requires_grad=True))
        g = y.grad_fn
        got.append((type(g).__name__, g.name(), isinstance(g, MyFn._backward_cls),
                    repr(g).split(" at 0x")[0].replace(L.__name__ + ".", "<lib>."), str(y).split("grad_fn=")[1]))
    assert got[0] == got[1]
