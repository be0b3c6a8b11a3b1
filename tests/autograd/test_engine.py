"""The engine, graph API, modes, hooks and errors (behaviour as torch's)."""
import gc

import numpy as np
import pytest

import ember
from ember.autograd import grad

from ._util import rand


def ones(*shape):
    return ember.tensor(np.ones(shape).tolist(), dtype=ember.float64)


def test_leaf_and_grad_fn():
    x = rand(3)
    y = x * 2
    assert x.is_leaf and not y.is_leaf and y.requires_grad
    assert y.grad_fn.name() == "MulBackward0"   # the number is a wrapped tensor, as in torch
    assert ember.mul(x, 2.0).grad_fn.name() == "MulBackward0"
    fn, nr = (x * x).grad_fn.next_functions[0]
    assert type(fn).__name__ == "AccumulateGrad" and nr == 0 and fn.variable is x
    assert (x + x.exp()).grad_fn.next_functions[1][0].name() == "ExpBackward0"
    z = x * ember.tensor([1.0, 2.0, 3.0], dtype=ember.float64)
    assert z.grad_fn.next_functions[1] == (None, 0)


def test_backward_accumulates_and_broadcasts():
    x = rand(2, 3)
    b = rand(3, seed=1)
    (x * b).backward(ones(2, 3))
    np.testing.assert_allclose(b.grad.numpy(), x.detach().numpy().sum(0))
    np.testing.assert_allclose(x.grad.numpy(), np.broadcast_to(b.detach().numpy(), (2, 3)))
    (x * b).backward(ones(2, 3))
    np.testing.assert_allclose(b.grad.numpy(), 2 * x.detach().numpy().sum(0))
    assert b.grad.shape == (3,) and x.grad.requires_grad is False


def test_diamond_graph_order_and_values():
    x = rand(3)
    a = x.exp()
    y = a * a + a.sin()
    y.backward(ones(3))
    e = np.exp(x.detach().numpy())
    np.testing.assert_allclose(x.grad.numpy(), (2 * e + np.cos(e)) * e)


def test_scalar_output_needed():
    x = rand(3)
    with pytest.raises(RuntimeError, match="grad can be implicitly created only for scalar outputs"):
        (x * 2).backward()
    s = rand(seed=2)
    (s * s).backward()
    assert s.grad.item() == pytest.approx(2 * s.item())


def test_no_grad_tensor_errors():
    t = ember.tensor([1.0, 2.0])
    with pytest.raises(RuntimeError, match="element 0 of tensors does not require grad and does not have a grad_fn"):
        (t * 2).backward(ember.tensor([1.0, 1.0]))
    x = rand(2)
    with pytest.raises(RuntimeError, match="One of the differentiated Tensors does not require grad"):
        grad(x * 2, [t], ember.tensor([1.0, 1.0]))
    with pytest.raises(RuntimeError, match="only Tensors of floating point dtype can require gradients"):
        ember.tensor([1, 2]).requires_grad_()


def test_grad_allow_unused_and_materialize():
    x, y = rand(2), rand(2, seed=1)
    with pytest.raises(RuntimeError, match="appears to not have been used in the graph"):
        grad(x * 2, [x, y], ones(2))
    gx, gy = grad(x * 2, [x, y], ones(2), allow_unused=True)
    assert gy is None and gx.tolist() == [2.0, 2.0]
    gx, gy = grad(x * 2, [x, y], ones(2), materialize_grads=True)
    assert gy.tolist() == [0.0, 0.0]
    assert x.grad is None


def test_grad_shape_mismatch():
    x = rand(3)
    with pytest.raises(RuntimeError, match=r"Mismatch in shape: grad_output\[0\] has a shape of"):
        (x * 2).backward(ones(2))


def test_retain_graph_and_second_backward_error():
    x = rand(3)
    y = x.exp()
    y.backward(ones(3), retain_graph=True)
    y.backward(ones(3))
    np.testing.assert_allclose(x.grad.numpy(), 2 * np.exp(x.detach().numpy()))
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        y.backward(ones(3))


def test_inplace_saved_tensor_modified():
    x = rand(3)
    a = x.exp()
    b = a * a
    a.mul_(2)
    with pytest.raises(RuntimeError, match="one of the variables needed for gradient computation has been modified "
                                           "by an inplace operation: .* is at version 1; expected version 0"):
        b.backward(ones(3))


def test_inplace_on_leaf_raises_and_nonleaf_rebases():
    x = rand(3)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an in-place operation."):
        x.add_(1)
    with ember.no_grad():
        x.add_(1)   # allowed under no_grad
    y = x * 1.0
    y.mul_(3)
    assert y.grad_fn.name() == "MulBackward0"
    y.exp_()
    y.backward(ones(3))
    np.testing.assert_allclose(x.grad.numpy(), 3 * np.exp(3 * x.detach().numpy()))
    # in-place op on a plain tensor with a grad-requiring operand starts history
    t = ember.tensor([1.0, 2.0, 3.0], dtype=ember.float64)
    t.mul_(x)
    assert t.requires_grad and t.grad_fn.name() == "MulBackward0"


def test_out_refuses_autograd():
    x = rand(3)
    with pytest.raises(RuntimeError, match=r"add\(\): functions with out=... arguments don't support automatic "
                                           "differentiation, but one of the arguments requires grad."):
        ember.add(x, x, out=ember.tensor([0.0, 0.0, 0.0], dtype=ember.float64))


def test_not_implemented_derivative():
    x = rand(3)
    y = ember.floor_divide(x, 0.3)
    assert y.requires_grad
    with pytest.raises(RuntimeError, match="^derivative for aten::floor_divide is not implemented$"):
        y.backward(ones(3))


def test_nondifferentiable_outputs():
    x = rand(3)
    assert not (x > 0).requires_grad
    assert not (x == x).requires_grad and (x > 0).grad_fn is None


def test_no_grad_and_set_grad_enabled():
    x = rand(3)
    with ember.no_grad():
        y = x * 2
        with ember.enable_grad():
            z = x * 2
    assert not y.requires_grad and y.grad_fn is None and z.requires_grad
    with ember.set_grad_enabled(False):
        assert not (x * 2).requires_grad
    with ember.inference_mode():
        assert not (x * 2).requires_grad

    @ember.no_grad()
    def f(a):
        return a * 2
    assert not f(x).requires_grad


def test_grad_mode_is_per_thread():
    """The bindings skip the thread-local exclude set while no thread has grad mode off: a thread turning it
    off must not stop recording on another, and its own ops (method, function, indexing) record nothing."""
    import threading
    x = rand(4)
    entered, release, seen = threading.Event(), threading.Event(), {}

    def worker():
        with ember.no_grad():
            seen["method"] = (x + 1).requires_grad
            seen["function"] = ember.mul(x, 2).requires_grad
            seen["index"] = x[1].grad_fn is not None     # (a no_grad view requires grad as its base, torch 2.13)
            entered.set()
            release.wait(10)
        seen["after"] = (x * 2).requires_grad

    t = threading.Thread(target=worker)
    t.start()
    assert entered.wait(10)
    try:
        assert (x + 1).requires_grad and ember.mul(x, 2).grad_fn is not None and x[1].requires_grad
    finally:
        release.set()
        t.join()
    assert seen == {"method": False, "function": False, "index": False, "after": True}
    with ember.no_grad():
        assert not (x + 1).requires_grad and x[1].grad_fn is None
    assert (x + 1).requires_grad and x[1].grad_fn is not None


def test_detach():
    x = rand(3)
    y = x * 2
    d = y.detach()
    assert not d.requires_grad and d.grad_fn is None and d.is_leaf
    d.mul_(0)
    assert y.tolist() == [0.0, 0.0, 0.0] and y._version == d._version == 1
    y2 = x * 2
    y2.detach_()
    assert y2.grad_fn is None and not y2.requires_grad


def test_tensor_hooks():
    x = rand(3)
    seen = []
    h = x.register_hook(lambda g: seen.append(g.tolist()))
    y = x * 2
    y.register_hook(lambda g: g * 10)
    y.backward(ones(3))
    assert seen == [[20.0, 20.0, 20.0]] and x.grad.tolist() == [20.0, 20.0, 20.0]
    h.remove()
    (x * 1.0).backward(ones(3))
    assert len(seen) == 1


def test_hook_wrong_shape():
    x = rand(3)

    def bad(g):
        return ones(2)
    y = x * 2
    y.register_hook(bad)
    with pytest.raises(RuntimeError, match="hook 'bad' has changed the size of value"):
        y.backward(ones(3))
    with pytest.raises(RuntimeError, match="cannot register a hook on a tensor that doesn't require gradient"):
        ember.tensor([1.0]).register_hook(bad)


def test_retain_grad_and_post_accumulate_hook():
    x = rand(3)
    y = x * 2
    y.retain_grad()
    assert y.retains_grad
    post = []
    x.register_post_accumulate_grad_hook(lambda t: post.append(t.grad.tolist()))
    (y * y).backward(ones(3))
    np.testing.assert_allclose(y.grad.numpy(), 2 * y.detach().numpy())
    assert post == [x.grad.tolist()]
    with pytest.raises(RuntimeError, match="post accumulate grad hooks cannot be registered on non-leaf tensors"):
        y.register_post_accumulate_grad_hook(lambda t: None)


def test_node_hooks_and_metadata():
    x = rand(3)
    y = x.exp()
    calls = []
    y.grad_fn.register_prehook(lambda go: calls.append("pre"))
    y.grad_fn.register_hook(lambda gi, go: (gi[0] * 0,))
    y.grad_fn.metadata["k"] = 1
    assert y.grad_fn.metadata == {"k": 1}
    y.backward(ones(3))
    assert calls == ["pre"] and x.grad.tolist() == [0.0, 0.0, 0.0]


def test_backward_inputs():
    x, w = rand(3), rand(3, seed=1)
    (x * w).backward(ones(3), inputs=[w])
    assert x.grad is None and w.grad is not None
    with pytest.raises(RuntimeError, match="'inputs' argument to backward\\(\\) cannot be empty."):
        (x * w).backward(ones(3), inputs=[])


def test_double_and_triple_backward():
    x = rand(3)
    y = x * x * x
    (g,) = grad(y, x, ones(3), create_graph=True)
    (gg,) = grad(g, x, ones(3), create_graph=True)
    (ggg,) = grad(gg, x, ones(3))
    xv = x.detach().numpy()
    np.testing.assert_allclose(g.detach().numpy(), 3 * xv ** 2)
    np.testing.assert_allclose(gg.detach().numpy(), 6 * xv)
    np.testing.assert_allclose(ggg.numpy(), [6.0, 6.0, 6.0])
    x.grad = None
    y = (x * x).sin()
    y.backward(ones(3), create_graph=True)
    assert x.grad.requires_grad


def test_saved_tensors_hooks():
    from ember.autograd.graph import saved_tensors_hooks
    packed = []

    def pack(t):
        packed.append(t)
        return t.detach()

    def unpack(t):
        return t * 1.0
    x = rand(3)
    with saved_tensors_hooks(pack, unpack):
        y = x * x
    y.backward(ones(3))
    assert len(packed) == 2
    np.testing.assert_allclose(x.grad.numpy(), 2 * x.detach().numpy())


def test_anomaly_mode_names_op():
    x = ember.tensor([0.0, 1.0], dtype=ember.float64, requires_grad=True)
    with ember.autograd.detect_anomaly():
        y = x.sqrt() * 0.0
        with pytest.warns(UserWarning, match="Error detected in SqrtBackward0"):
            with pytest.raises(RuntimeError, match="Function 'SqrtBackward0' returned nan values in its 0th output."):
                y.backward(ones(2))


def test_graph_freed_without_retain():
    x = rand(3)
    y = x.exp()
    y.backward(ones(3))
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        grad(y, x, ones(3))
    del y
    gc.collect()


def test_import_ember_does_not_load_autograd():
    import subprocess
    import sys
    code = "import sys, ember; ember.tensor([1.0]); print('ember.autograd' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env={"PYTHONPATH": __import__("os").path.dirname(ember.__path__[0])})
    assert out.stdout.strip() == "False", out.stderr


@pytest.mark.parity
def test_reflected_remainder_has_no_derivative_like_torch():
    """`5.0 % x` runs remainder.Scalar_Tensor: torch gives it a NotImplemented grad_fn whose backward raises."""
    torch = pytest.importorskip("torch")
    x = ember.tensor([1.0, -2.0, 3.0], requires_grad=True)
    t = torch.tensor([1.0, -2.0, 3.0], requires_grad=True)
    y, u = 5.0 % x, 5.0 % t
    assert y.tolist() == u.tolist()
    assert type(y.grad_fn).__name__.startswith("NotImplemented") and y.grad_fn.name() == u.grad_fn.name()
    with pytest.raises(RuntimeError) as theirs:
        u.sum().backward()
    with pytest.raises(RuntimeError) as ours:
        y.sum().backward()
    assert str(ours.value) == str(theirs.value) == "derivative for aten::remainder is not implemented"


# a second backward (torch's engine): a node that saved nothing runs again; a freed saved tensor raises
@pytest.mark.parity
def test_second_backward_through_nodes_without_saved_tensors():
    torch = pytest.importorskip("torch")
    for lib in (ember, torch):
        x = lib.ones(3, requires_grad=True)
        y = x + 1                          # AddBackward0 saves nothing: reusable after a backward
        (y * 2).sum().backward()
        (y * 3).sum().backward()
        assert x.grad.tolist() == [5.0, 5.0, 5.0]
        s = lib.ones(3, requires_grad=True) * 2.0     # MulBackward0 saved its scalar operand's partner
        z = s * s
        z.sum().backward()
        with pytest.raises(RuntimeError, match="backward through the graph a second time"):
            z.sum().backward()


def test_no_zero_grads_made_for_outputs_the_formula_does_not_read(monkeypatch):
    # layer_norm's formula reads only the grad of its first output: its mean/rstd outputs' missing grads stay
    # None (torch passes them undefined) rather than two zero tensors made per backward; so do max.dim's indices
    from ember.autograd import engine
    made = []
    real = engine._zeros
    monkeypatch.setattr(engine, "_zeros", lambda meta: made.append(meta) or real(meta))
    x = ember.tensor(np.random.default_rng(0).standard_normal((3, 4)).astype(np.float32), requires_grad=True)
    ln = ember.nn.LayerNorm(4)
    (ln(x).sum() + x.max(dim=1).values.sum()).backward()
    assert made == []
    assert x.grad is not None


@pytest.mark.parity
def test_grads_through_multi_output_ops_read_by_grad_only_match_torch():
    torch = pytest.importorskip("torch")
    data = np.random.default_rng(1).standard_normal((3, 5)).astype(np.float32)
    out = []
    for mod in (torch, ember):
        x = mod.tensor(data, requires_grad=True)
        w = mod.tensor(np.linspace(0.5, 1.5, 5, dtype=np.float32), requires_grad=True)
        y = mod.nn.functional.layer_norm(x, (5,), w) * 2.0
        v = x.sort(dim=1).values[:, 0] + x.min(dim=0).values.sum() + x.topk(2, dim=1).values.sum()
        (y.square().sum() + v.sum()).backward()
        out.append((x.grad.numpy().copy(), w.grad.numpy().copy()))
    np.testing.assert_allclose(out[1][0], out[0][0], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(out[1][1], out[0][1], rtol=1e-5, atol=1e-6)
