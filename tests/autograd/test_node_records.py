"""What a recorded op keeps in its node (torch/csrc/autograd/saved_variable.cpp, function.h's input metadata):
saved input tensors held by the node directly (no SavedVariable), shared one-output input_meta records, and the
behaviour that must not change with that: version checks, second backward, saved-tensor hooks, inference tensors."""
import gc

import numpy as np
import pytest

import ember
from ember.autograd._saved import SavedVariable


def _msg(fn):
    with pytest.raises(RuntimeError) as e:
        fn()
    return str(e.value)


def test_plain_saved_input_is_kept_in_the_node():
    x = ember.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = ember.tensor([4.0, 5.0, 6.0])
    y = x * b
    n = y.grad_fn
    assert n.s_other is b and n.v_other == 0
    assert not any(isinstance(v, SavedVariable) for v in vars(n).values())
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), b.numpy())
    assert n.s_other.__class__ is SavedVariable and n.s_other.released   # released after backward


def test_one_output_nodes_share_their_input_meta():
    x = ember.ones(3, requires_grad=True)
    y, z = x * 2.0, x + 1.0
    assert y.grad_fn.input_meta is z.grad_fn.input_meta
    assert y.grad_fn.input_meta == ((y._size, ember.float32, y.device),)


def test_recorded_op_adds_few_gc_tracked_objects():
    # a structural count (not a timing): each recorded op used to add 6-7 objects the cyclic GC tracks
    b = ember.tensor([1.0, 1.0, 1.0, 1.0])
    y = ember.ones(4, requires_grad=True)
    y = y * b + b
    gc.collect()
    gc.disable()
    try:
        n0 = len(gc.get_objects())
        for _ in range(200):
            y = y * b + b
        per_op = (len(gc.get_objects()) - n0) / 400
    finally:
        gc.enable()
    assert per_op <= 3.5
    y.sum().backward()


@pytest.mark.parity
def test_saved_input_modified_in_place_raises_as_torch():
    torch = pytest.importorskip("torch")

    def run(mod):
        a = mod.tensor([1.0, 2.0, 3.0], requires_grad=True)
        b = a * 2
        c = b * b
        b.add_(1)
        return _msg(lambda: c.sum().backward())
    assert run(ember).replace("ember.", "torch.") == run(torch)


@pytest.mark.parity
def test_saved_leaf_modified_under_no_grad_raises_as_torch():
    torch = pytest.importorskip("torch")

    def run(mod):
        w = mod.tensor([1.0, 2.0], requires_grad=True)
        x = mod.tensor([3.0, 4.0])
        y = (w * x).sum()
        x.mul_(2)
        return _msg(lambda: y.backward())
    assert run(ember).replace("ember.", "torch.") == run(torch)


@pytest.mark.parity
def test_second_backward_through_released_saved_input_raises_as_torch():
    torch = pytest.importorskip("torch")

    def run(mod):
        x = mod.tensor([1.0, 2.0], requires_grad=True)
        w = mod.tensor([3.0, 4.0])
        y = (x * w).sum()
        y.backward()
        return _msg(lambda: y.backward())
    assert run(ember) == run(torch)


@pytest.mark.parity
def test_retain_graph_reuses_saved_inputs_as_torch():
    torch = pytest.importorskip("torch")

    def run(mod):
        x = mod.tensor([1.0, -2.0, 3.0], requires_grad=True)
        y = (x * x * mod.tensor([2.0, 3.0, 4.0])).sum()
        y.backward(retain_graph=True)
        y.backward()
        return x.grad.numpy()
    np.testing.assert_array_equal(run(ember), run(torch))


@pytest.mark.parity
def test_saved_tensor_hooks_see_every_saved_input_as_torch():
    torch = pytest.importorskip("torch")

    def run(mod):
        seen = []
        x = mod.tensor([1.0, 2.0], requires_grad=True)
        w = mod.tensor([3.0, 4.0])
        with mod.autograd.graph.saved_tensors_hooks(lambda t: (seen.append("pack"), t * 1)[1],
                                                    lambda t: (seen.append("unpack"), t * 10)[1]):
            y = (x * w).sum()
        z = (x * w).sum()      # after the block: saved plainly again
        y.backward()
        z.backward()
        return seen, x.grad.numpy()
    (es, eg), (ts, tg) = run(ember), run(torch)
    assert es == ts
    np.testing.assert_array_equal(eg, tg)


@pytest.mark.parity
def test_saving_an_inference_tensor_raises_as_torch():
    torch = pytest.importorskip("torch")

    def run(mod):
        with mod.inference_mode():
            w = mod.tensor([3.0, 4.0])
        x = mod.tensor([1.0, 2.0], requires_grad=True)
        return _msg(lambda: x * w)
    assert run(ember) == run(torch)


@pytest.mark.parity
def test_double_backward_through_saved_inputs_as_torch():
    torch = pytest.importorskip("torch")

    def run(mod):
        x = mod.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = (x * x * x).sum()
        (g,) = mod.autograd.grad(y, x, create_graph=True)
        (gg,) = mod.autograd.grad(g.sum(), x)
        return g.detach().numpy(), gg.numpy()
    for e, t in zip(run(ember), run(torch)):
        np.testing.assert_allclose(e, t, rtol=1e-6)


def test_multi_output_node_records_are_shared():
    from ember.autograd.graph import cpu_meta
    x = ember.tensor([[1.0, 2.0], [3.0, 5.0]], requires_grad=True)
    s, m = ember.std_mean(x, dim=0)
    n = s.grad_fn
    assert m.grad_fn is n and len(n.input_meta) == 2
    assert n.input_meta[0] is cpu_meta(s._size, s.dtype)[0] and n.input_meta[1] is n.input_meta[0]
    (s.sum() + m.sum()).backward()
    assert x.grad.shape == x.shape


# ---- a saved output (exp, sigmoid, tanh ...): a bare shell in the node for a plain cpu output, not a SavedVariable
def test_plain_saved_output_is_a_shell_without_history():
    import weakref
    x = ember.tensor([0.5, 1.0, 2.0], requires_grad=True)
    y = x.exp()
    n = y.grad_fn
    sh = n.s_result
    assert sh.__class__ is not SavedVariable and sh.grad_fn is None and not sh.requires_grad
    assert sh._vc is y._vc and n.v_result == 0
    np.testing.assert_array_equal(sh.numpy(), y.detach().numpy())
    ref = weakref.ref(n)
    del y, n, sh
    assert ref() is None            # no cycle between the output and its node: freed without the collector


@pytest.mark.parity
@pytest.mark.parametrize("op", ["exp", "sigmoid", "tanh"])
def test_saved_output_gradients_and_double_backward_match_torch(op):
    torch = pytest.importorskip("torch")

    def run(mod):
        x = mod.tensor([0.5, -1.0, 2.0], dtype=mod.float64, requires_grad=True)
        y = getattr(x, op)()
        g, = mod.autograd.grad(y.sum(), x, create_graph=True)
        g.sum().backward()
        return g.detach().numpy(), x.grad.numpy()

    for e, t in zip(run(ember), run(torch)):
        np.testing.assert_allclose(e, t, rtol=1e-12)


@pytest.mark.parity
def test_saved_output_modified_in_place_raises_as_torch():
    torch = pytest.importorskip("torch")

    def run(mod):
        x = mod.tensor([0.5, 1.0], requires_grad=True)
        y = x.exp()
        y.add_(1.0)
        return _msg(lambda: y.sum().backward())

    assert run(ember).replace("ember.", "torch.") == run(torch)


@pytest.mark.parity
def test_saved_output_released_after_backward_as_torch():
    torch = pytest.importorskip("torch")

    def run(mod):
        x = mod.tensor([0.5, 1.0], requires_grad=True)
        y = x.tanh()
        y.sum().backward(retain_graph=True)
        first = x.grad.tolist()
        y.sum().backward()
        second = x.grad.tolist()
        z = x.sigmoid()
        z.sum().backward()
        return first, second, _msg(lambda: z.sum().backward())

    e, t = run(ember), run(torch)
    np.testing.assert_allclose(e[0], t[0], rtol=1e-6)
    np.testing.assert_allclose(e[1], t[1], rtol=1e-6)
    assert e[2] == t[2]


@pytest.mark.parity
def test_saved_output_keeps_its_data_after_data_assignment_as_torch():
    torch = pytest.importorskip("torch")

    def run(mod):
        x = mod.tensor([0.5, 1.0], requires_grad=True)
        y = x.exp()
        y.data = mod.tensor([10.0, 20.0])
        y.sum().backward()
        return x.grad.tolist()

    np.testing.assert_allclose(run(ember), run(torch), rtol=1e-6)


@pytest.mark.parity
def test_saved_output_under_saved_tensor_hooks_as_torch():
    torch = pytest.importorskip("torch")

    def run(mod):
        packed = []

        def pack(t):
            packed.append(t.tolist())
            return t

        x = mod.tensor([0.5, 1.0], requires_grad=True)
        with mod.autograd.graph.saved_tensors_hooks(pack, lambda t: t * 2):
            y = x.exp()
        y.sum().backward()
        return packed, x.grad.tolist()

    e, t = run(ember), run(torch)
    np.testing.assert_allclose(e[0], t[0], rtol=1e-6)
    np.testing.assert_allclose(e[1], t[1], rtol=1e-6)


def test_recorded_selects_and_adds_keep_no_edge_tuples():
    # a structural count (not a timing), the crf benchmark's loop: `y + f[t, k]` records two selects and an add;
    # what stays alive per step is their three nodes, three next_edges tuples and one or two more (eleven or twelve
    # with the (fn, 0) edge tuples the nodes kept before entries, graph.py)
    f = ember.ones(6, 4, requires_grad=True) * 1.0
    y = f[0, 0] + f[1, 1]             # (the ops' first use loads their bindings)
    gc.collect()
    gc.disable()
    try:
        n0 = len(gc.get_objects())
        for t in range(1, 6):
            for k in range(4):
                y = y + f[t, k]
        per_step = (len(gc.get_objects()) - n0) / 20
    finally:
        gc.enable()
    assert per_step <= 9
    stack, seen = [y.grad_fn], set()
    while stack:
        n = stack.pop()
        if n is None or isinstance(n, ember.Tensor) or id(n) in seen:     # (a leaf entry: the tensor)
            continue
        seen.add(id(n))
        assert not any(e.__class__ is tuple for e in n.next_edges)
        stack.extend(n.next_edges)
    assert len(seen) >= 3 * 20
    y.backward()
