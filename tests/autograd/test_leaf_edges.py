"""A leaf input's edge made when first read (torch/csrc/autograd/function.h's next_edges, built by gradient_edge
at the forward op in torch): generated nodes keep a leaf that needs grad as itself in `next_edges` and
graph.leaf_edges makes its AccumulateGrad edge for the engine, next_functions and DDP. What must not change:
gradients, the AccumulateGrad's identity across nodes, hooks, anomaly traces, retain_graph, autograd.grad."""
import gc

import numpy as np
import pytest

import ember
from ember.autograd.graph import AccumulateGrad


def _accumulators():
    return [o for o in gc.get_objects() if type(o) is AccumulateGrad]


def test_forward_without_backward_makes_no_accumulator():
    a = ember.tensor([1.0, 2.0], requires_grad=True)
    b = ember.tensor([3.0, 4.0])
    gc.collect()
    before = len(_accumulators())
    y = (a + b) * a
    assert len(_accumulators()) == before
    y.sum().backward()
    np.testing.assert_array_equal(a.grad.numpy(), [5.0, 8.0])      # 2a + b


@pytest.mark.parity
@pytest.mark.parametrize("case", ["a+a", "two_ops", "mul_chain", "leaf_other", "both_leaves"])
def test_gradients_through_leaf_edges_match_torch(case):
    torch = pytest.importorskip("torch")

    def run(mod):
        a = mod.tensor([1.0, -2.0, 3.0], requires_grad=True)
        c = mod.tensor([0.5, 0.25, 2.0], requires_grad=True)
        b = mod.tensor([4.0, 5.0, 6.0])
        if case == "a+a":
            y = a + a
        elif case == "two_ops":
            y = (a * b).exp() + a.sin()
        elif case == "mul_chain":
            y = a
            for _ in range(5):
                y = y * a
        elif case == "leaf_other":
            y = b.mul(a)
        else:
            y = a * c + c
        y.sum().backward()
        return [t.grad.numpy() if t.grad is not None else None for t in (a, c)]

    for e, t in zip(run(ember), run(torch)):
        if t is None:
            assert e is None
        else:
            np.testing.assert_allclose(e, t, rtol=1e-6)     # (exp and sin may differ from torch by an ulp)


@pytest.mark.parity
def test_next_functions_share_the_leaf_accumulator_as_torch():
    torch = pytest.importorskip("torch")
    for mod in (ember, torch):
        a = mod.tensor([1.0, 2.0], requires_grad=True)
        y1, y2 = a * 2.0, a + 1.0
        g1 = y1.grad_fn.next_functions[0][0]
        g2 = y2.grad_fn.next_functions[0][0]
        assert g1 is g2 and type(g1).__name__ == "AccumulateGrad"
        assert g1.variable is a
        z = a.t() if a.dim() == 2 else a.view(2)
        assert z.grad_fn.next_functions[0][0] is g1


@pytest.mark.parity
def test_leaf_hook_registered_after_the_forward_runs():
    torch = pytest.importorskip("torch")
    seen = {}
    for mod in (ember, torch):
        a = mod.tensor([1.0, 2.0], requires_grad=True)
        y = a * 3.0
        calls = []
        a.register_hook(lambda g, calls=calls: calls.append(g.tolist()))
        y.sum().backward(retain_graph=True)
        y.sum().backward()
        seen[mod.__name__] = (calls, a.grad.tolist())
    assert seen["ember"] == seen["torch"]


@pytest.mark.parity
def test_autograd_grad_of_a_leaf_recorded_lazily():
    torch = pytest.importorskip("torch")
    out = []
    for mod in (ember, torch):
        a = mod.tensor([1.0, 2.0], requires_grad=True)
        b = mod.tensor([3.0, 4.0], requires_grad=True)
        y = (a * b).sum()
        ga, = mod.autograd.grad(y, [a], retain_graph=True)
        gb, = mod.autograd.grad(y, [b])
        out.append((ga.tolist(), gb.tolist(), a.grad, b.grad))
    assert out[0] == out[1]


def test_anomaly_mode_makes_the_leaf_edge_at_the_forward_op():
    a = ember.tensor([1.0, 2.0], requires_grad=True)
    with ember.autograd.detect_anomaly():
        y = a * 2.0
    e = y.grad_fn.next_edges[0]
    assert type(e) is AccumulateGrad        # the entry standing for (AccumulateGrad, 0)


@pytest.mark.parity
@pytest.mark.parametrize("lazy", [True, False])
def test_leaf_that_stopped_requiring_grad_gets_nothing_as_torch(lazy):
    # torch's AccumulateGrad::apply checks the variable when the gradient arrives: requires_grad_(False) between
    # the forward and the backward means no .grad, whether the edge was made at the op or (ember) when first read
    torch = pytest.importorskip("torch")
    out = []
    for mod in (torch, ember):
        x = mod.tensor([1.0, 2.0, 3.0], requires_grad=True)
        w = mod.tensor([0.5, 0.5, 0.5], requires_grad=True)
        y = x * w
        if not lazy:
            y.grad_fn.next_functions      # the edge made before the change
        x.requires_grad_(False)
        y.sum().backward()
        out.append((x.grad, w.grad.tolist()))
    assert out[0] == out[1] == (None, [1.0, 2.0, 3.0])


@pytest.mark.parity
@pytest.mark.parametrize("lazy", [True, False])
def test_leaf_moved_into_the_graph_interior_raises_as_torch(lazy):
    # requires_grad_(False), then an in-place op with an input needing grad: the tensor has a history now, and the
    # gradient recorded for it as a leaf raises torch's error (before, ember accumulated it into .grad)
    torch = pytest.importorskip("torch")
    msgs = []
    for mod in (torch, ember):
        x = mod.tensor([1.0, 2.0, 3.0], requires_grad=True)
        w = mod.tensor([0.5, 0.5, 0.5], requires_grad=True)
        y = x * 2.0
        if not lazy:
            y.grad_fn.next_functions
        x.requires_grad_(False)
        x.mul_(w)
        assert x.grad_fn is not None
        with pytest.raises(RuntimeError) as info:
            y.sum().backward()
        msgs.append(str(info.value))
        assert x._grad is None if mod is ember else True
    assert msgs[0] == msgs[1] == "leaf variable has been moved into the graph interior"


def test_edges_to_output_0_are_entries_without_a_tuple():
    # a recorded op keeps no (fn, 0) tuple per input edge (graph.py's entries): the producer's node alone, a leaf
    # as itself until read, then its AccumulateGrad; an edge to another output keeps (fn, nr)
    a = ember.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = a * 2.0                       # a leaf entry
    e = b.exp()
    c = e + b                         # node entries
    d = c[1] * 3.0                    # a view input: its node's entry too
    g = ember.split(c, 1)[2] * 3.0    # output 2 of a multi-output view op
    lo, hi = ember.aminmax(c)         # two differentiable outputs of one node
    f = hi * lo
    assert b.grad_fn.next_edges[0] is a
    assert c.grad_fn.next_edges == (e.grad_fn, b.grad_fn)
    assert e.grad_fn.next_edges == (b.grad_fn,)
    assert d.grad_fn.next_edges[0].name() == "SelectBackward0"
    assert g.grad_fn.next_edges[0][0].name() == "SplitBackward0" and g.grad_fn.next_edges[0][1] == 2
    assert f.grad_fn.next_edges == ((hi.grad_fn, 1), lo.grad_fn)
    (acc, nr) = b.grad_fn.next_functions[0]      # read: the leaf entry is its AccumulateGrad now
    assert type(acc) is AccumulateGrad and nr == 0 and b.grad_fn.next_edges[0] is acc
    (d.sum() + f + g.sum()).backward()
    assert a.grad is not None


@pytest.mark.parity
def test_next_functions_with_outputs_other_than_0_as_torch():
    torch = pytest.importorskip("torch")

    def names(mod):
        x = mod.tensor([[1.0, 5.0], [3.0, 2.0]], requires_grad=True)
        parts = mod.unbind(x * 1.0)
        y = parts[1] * parts[0] + mod.linalg.eigh(x @ x.t())[1][0].sum()
        out = []
        stack = [y.grad_fn]
        while stack:
            n = stack.pop()
            for f, nr in n.next_functions:
                out.append((n.name(), None if f is None else f.name(), nr))
                if f is not None:
                    stack.append(f)
        y.sum().backward()
        return out, x.grad.tolist()

    (e, ge), (t, gt) = names(ember), names(torch)
    assert e == t
    np.testing.assert_allclose(ge, gt, rtol=1e-5)


def test_tensor_list_leaves_make_no_accumulator_until_read():
    """stack/cat of leaf rows (a Tensor[] argument) keep the leaves as their entries too (autograd._kernel.edges):
    no AccumulateGrad per row per call; next_functions and backward resolve them as torch's."""
    rows = [ember.tensor([float(i), 1.0], requires_grad=True) for i in range(4)]
    gc.collect()
    before = len(_accumulators())
    y = ember.stack(rows)
    z = ember.cat(rows)
    assert len(_accumulators()) == before
    fns = y.grad_fn.next_functions
    assert [type(f).__name__ for f, _ in fns] == ["AccumulateGrad"] * 4 and [n for _, n in fns] == [0] * 4
    assert fns[2][0].variable is rows[2]
    assert z.grad_fn.next_functions[2][0] is fns[2][0]           # one AccumulateGrad per leaf, shared
    (y.sum() * 2 + z.sum()).backward()
    assert [r.grad.tolist() for r in rows] == [[3.0, 3.0]] * 4


@pytest.mark.parity
def test_tensor_list_edges_of_leaves_views_and_results_match_torch():
    torch = pytest.importorskip("torch")

    def run(mod):
        a = mod.tensor([[1.0, -2.0], [3.0, 0.5]], requires_grad=True)
        b = mod.tensor([0.5, 0.25], requires_grad=True)
        c = mod.tensor([4.0, 5.0])
        parts = [a[0], b, c, a[1] * 2, (a.t() * b)[1], b.exp()]
        y = mod.stack(parts) * mod.arange(1.0, 7.0).unsqueeze(1)
        z = mod.cat(parts[::-1])
        stack_node = y.grad_fn.next_functions[0][0]
        names = [None if f is None else (type(f).__name__, n) for f, n in stack_node.next_functions]
        (y.sum() + (z * z).sum()).backward()
        return names, a.grad.numpy(), b.grad.numpy()

    e, t = run(ember), run(torch)
    assert e[0] == t[0]
    np.testing.assert_allclose(e[1], t[1], rtol=1e-6)
    np.testing.assert_allclose(e[2], t[2], rtol=1e-6)
