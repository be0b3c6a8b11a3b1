"""AOT autograd: joint graph, partitions and the compiled autograd Function on MLP, CNN, GPT and an LSTM
(outputs, gradients and buffers equal eager), and the special cases: inputs without grad, outputs aliasing
inputs, mutated inputs, tied weights, no_grad regions, inference graphs, double backward refused."""
import copy

import pytest

import ember
from ember._functorch.aot_autograd import aot_function, aot_module_simplified, nop
from ember._functorch.partitioners import default_partition, min_cut_rematerialization_partition, saved_bytes
from ember.testing import assert_close

from ._models import CNN, MLP, LSTMClassifier, TinyGPT

aten = ember.ops.aten
PARTITIONS = [default_partition, min_cut_rematerialization_partition]


def _entry(compiled):
    cache = compiled._aot_cache if hasattr(compiled, "_aot_cache") else compiled._aot_compiled._aot_cache
    (entry,) = cache.values()
    return entry


def _models():
    ember.manual_seed(0)
    return [("mlp", MLP(), lambda: (ember.randn(4, 6),)),
            ("cnn", CNN(), lambda: (ember.randn(3, 2, 8, 8),)),
            ("gpt", TinyGPT(), lambda: (ember.randint(0, 11, (2, 8)), ember.randint(0, 11, (2, 8)))),
            ("lstm", LSTMClassifier(), lambda: (ember.randn(2, 5, 4),))]


MODELS = _models()


@pytest.mark.parametrize("partition", PARTITIONS, ids=lambda p: p.__name__)
@pytest.mark.parametrize("case", MODELS, ids=lambda c: c[0])
def test_models_match_eager(case, partition):
    name, model, make_inputs = case
    ref, m = copy.deepcopy(model), copy.deepcopy(model)
    args = make_inputs()
    fn = aot_module_simplified(m, args, nop, partition_fn=partition)
    for _ in range(2):                       # the second call reuses the compiled graphs
        out, want = fn(*args), ref(*args)
        assert_close(out, want)
        (out.sum() if out.dim() else out).backward()
        (want.sum() if want.dim() else want).backward()
        for (n, p), (_, q) in zip(m.named_parameters(), ref.named_parameters()):
            assert_close(p.grad, q.grad, msg=n)
        for (n, b), (_, c) in zip(m.named_buffers(), ref.named_buffers()):
            assert_close(b, c, msg=n)          # batch norm running stats updated the same way
    e = _entry(fn)
    assert all(isinstance(n.target, type(aten.add.Tensor)) or n.target.__name__ == "getitem"
               for g in (e.fw_graph, e.bw_graph) for n in g.graph.nodes if n.op == "call_function")
    assert not any(n.target._packet.__name__.endswith("_") for g in (e.fw_graph, e.bw_graph)
                   for n in g.graph.nodes if n.op == "call_function" and hasattr(n.target, "_packet"))


@pytest.mark.parametrize("case", MODELS, ids=lambda c: c[0])
def test_min_cut_saves_fewer_bytes(case):
    name, model, make_inputs = case
    args = make_inputs()
    sizes = {}
    for p in PARTITIONS:
        fn = aot_module_simplified(copy.deepcopy(model), args, nop, partition_fn=p)
        fn(*args)
        sizes[p] = saved_bytes(_entry(fn).fw_graph, exclude_inputs=True)
    assert sizes[min_cut_rematerialization_partition] < sizes[default_partition], sizes


def test_min_cut_recomputes_pointwise_not_matmul():
    def f(x, w):
        return ember.tanh(ember.sigmoid(x @ w) * 3).sum()

    x, w = ember.randn(4, 5, requires_grad=True), ember.randn(5, 6, requires_grad=True)
    cf = aot_function(f, nop, partition_fn=min_cut_rematerialization_partition)
    cf(x, w).backward()
    e = _entry(cf)
    saved = [n.target for n in e.bw_graph.graph.nodes if n.op == "placeholder"]
    assert "mm" in saved and "sigmoid" not in saved   # the product (matmul's mm, as torch's) kept, sigmoid recomputed
    bw_ops = {n.target for n in e.bw_graph.graph.nodes if n.op == "call_function"}
    assert aten.sigmoid.default in bw_ops
    gx, gw = x.grad.clone(), w.grad.clone()
    x.grad = w.grad = None
    f(x, w).backward()
    assert_close(gx, x.grad)
    assert_close(gw, w.grad)


def test_inputs_without_grad_get_none():
    def f(x, y):
        return (x * y).sum()

    x = ember.randn(3, requires_grad=True)
    y = ember.randn(3)
    cf = aot_function(f, nop)
    cf(x, y).backward()
    assert_close(x.grad, y)
    assert y.grad is None
    e = _entry(cf)
    assert len(next(n for n in e.bw_graph.graph.nodes if n.op == "output").args[0]) == 1


def test_outputs_aliasing_inputs():
    def f(x, y):
        return x, y.view(-1), (x * 2)

    x, y = ember.randn(2, 2, requires_grad=True), ember.randn(2, 2)
    cf = aot_function(f, nop)
    a, b, c = cf(x, y)
    assert a is x
    assert b.data_ptr() == y.data_ptr()              # still a view of y
    c.sum().backward()
    assert_close(x.grad, ember.full((2, 2), 2.0))


def test_mutated_input_is_copied_back():
    def f(x, buf):
        buf.add_(1)                       # optimizer-style update of a buffer
        return (x * buf).sum()

    x, buf = ember.randn(3, requires_grad=True), ember.zeros(3)
    cf = aot_function(f, nop)
    out = cf(x, buf)
    assert buf.tolist() == [1.0, 1.0, 1.0]
    out.backward()
    assert_close(x.grad, ember.ones(3))
    e = _entry(cf)
    assert e.mutated == [1]
    assert aten.add_.Tensor not in {n.target for n in e.fw_graph.graph.nodes}


def test_tied_weights_enter_once():
    ember.manual_seed(0)
    m = TinyGPT()
    assert m.wte.weight is m.lm_head.weight
    args = (ember.randint(0, 11, (2, 8)), ember.randint(0, 11, (2, 8)))
    ref = copy.deepcopy(m)
    fn = aot_module_simplified(m, args, nop)
    fn(*args).backward()
    ref(*args).backward()
    assert_close(m.wte.weight.grad, ref.wte.weight.grad)
    n_params = len(list(m.named_parameters(remove_duplicate=False)))
    primals = [n for n in _entry(fn).joint_graph.graph.nodes if n.op == "placeholder"
               and n.target.startswith("primals")]
    distinct = len({id(p) for _, p in m.named_parameters(remove_duplicate=False)})
    assert distinct == n_params - 1 and len(primals) == distinct + 2


def test_no_grad_region_inside():
    def f(x):
        with ember.no_grad():
            scale = x.abs().max()
        return (x * scale).sum()

    x = ember.randn(4, requires_grad=True)
    cf = aot_function(f, nop)
    cf(x).backward()
    g = x.grad.clone()
    x.grad = None
    f(x).backward()
    assert_close(g, x.grad)


def test_inference_graph_when_no_grad():
    def f(x, w):
        return ember.relu(x @ w)

    x, w = ember.randn(2, 3), ember.randn(3, 4, requires_grad=True)
    cf = aot_function(f, nop)
    with ember.no_grad():
        out = cf(x, w)
    assert out.grad_fn is None
    e = _entry(cf)
    assert not e.needs_autograd and not hasattr(e, "bw_graph")
    assert_close(out, f(x, w).detach())


def test_double_backward_refused():
    def f(x):
        return (x ** 3).sum()

    x = ember.randn(3, requires_grad=True)
    cf = aot_function(f, nop)
    (g,) = ember.autograd.grad(cf(x), [x], create_graph=True)
    assert_close(g, 3 * x.detach() ** 2)
    assert type(g.grad_fn).__name__ == "CompiledFunctionBackwardBackward"
    with pytest.raises(RuntimeError, match="with aot_autograd does not currently support double backward"):
        g.sum().backward()


def test_leaf_inplace_refused():
    def f(x):
        x.mul_(2)
        return x.sum()

    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        aot_function(f, nop)(ember.randn(3, requires_grad=True))


def test_compilers_receive_graphs():
    seen = []

    def compiler(gm, example_inputs):
        seen.append((len(list(gm.graph.nodes)), len(example_inputs)))
        return gm

    x = ember.randn(3, requires_grad=True)
    cf = aot_function(lambda t: (t.sin() * t).sum(), compiler)
    cf(x).backward()
    assert len(seen) == 2                          # forward and backward


def test_recompiles_on_new_shapes():
    cf = aot_function(lambda t: (t * 2).sum(), nop)
    cf(ember.randn(3, requires_grad=True))
    cf(ember.randn(3, requires_grad=True))
    assert len(cf._aot_cache) == 1
    cf(ember.randn(4, requires_grad=True))
    assert len(cf._aot_cache) == 2


def test_outputs_aliasing_each_other():
    def f(x):
        y = x * 2
        return y, y.view(-1)

    x = ember.randn(2, 2, requires_grad=True)
    a, b = aot_function(f, nop)(x)
    assert b.data_ptr() == a.data_ptr() and b._base is a
    (a.sum() + (b * 3).sum()).backward()
    assert_close(x.grad, ember.full((2, 2), 8.0))


@pytest.mark.parametrize("keep", [False, True])
def test_keep_inference_input_mutations(keep):
    def f(x, buf):
        buf.mul_(2)
        return x + buf

    x, buf = ember.randn(3), ember.ones(3)
    cf = aot_function(f, nop, keep_inference_input_mutations=keep)
    assert_close(cf(x, buf), x + 2)
    assert buf.tolist() == [2.0, 2.0, 2.0]
    e = _entry(cf)
    copies = [n for n in e.graph.graph.nodes if n.target is aten.copy_.default]
    # True: the inference graph writes the input back itself; False: the runtime wrapper does
    assert (len(copies), e.mutated) == ((1, []) if keep else (0, [1]))
    assert_close(cf(x, buf), x + 4)


@pytest.mark.parametrize("values", [[1.0, 3.0, 3.0, -2.0], [1.0, float("nan"), 3.0, float("nan")]])
def test_full_max_backward_traces(values):
    """max()'s backward (evenly_distribute_backward) splits the grad over the tied maxima (or the NaNs) without
    reading values, so the joint graph traces on fake tensors."""
    x = ember.tensor(values, requires_grad=True)

    def f(x):
        return x.max() * 2 + x.min()
    got = aot_function(f, nop)(x)
    want = f(x)
    assert_close(got, want, equal_nan=True)
    g, = ember.autograd.grad(got, [x])
    w, = ember.autograd.grad(want, [x])
    assert_close(g, w, equal_nan=True)
    if values[1] == values[1]:
        assert g.tolist() == [0.0, 1.0, 1.0, 1.0]      # 2 split over the two maxima; the minimum's 1


@pytest.mark.parametrize("mode", ["bilinear", "bicubic", "nearest"])
@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
def test_grid_sample_backward_traces_like_eager(mode, padding_mode):
    """grid_sampler_2d's backward computes its tap geometry in ops when traced (numpy in eager): both agree,
    for every padding mode, with grid points outside the input."""
    import ember.nn.functional as F
    ember.manual_seed(0)
    x = ember.randn(2, 3, 5, 6, requires_grad=True)
    g = (ember.rand(2, 4, 3, 2) * 2.6 - 1.3).requires_grad_()
    for align in (True, False):
        def f(x, g):
            return F.grid_sample(x, g, mode=mode, padding_mode=padding_mode, align_corners=align)
        got = ember.autograd.grad(aot_function(f, nop)(x, g).sum(), [x, g])
        want = ember.autograd.grad(f(x, g).sum(), [x, g])
        for a, b in zip(got, want):
            assert_close(a, b, atol=1e-5, rtol=1e-5)
