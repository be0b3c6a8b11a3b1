"""ember.fx Graph and Node: construction, use-def chains, code generation, lint, dead code, copy and pickle."""
import copy
import math
import operator
import pickle

import pytest

import ember
from ember import fx


def _add_relu_graph():
    g = fx.Graph()
    x = g.placeholder("x")
    y = g.placeholder("y")
    s = g.call_function(operator.add, (x, y))
    r = g.call_function(ember.relu, (s,))
    m = g.call_method("sum", (r,), {"dim": 0})
    g.output(m)
    return g, (x, y, s, r, m)


def test_construction_users_and_args():
    g, (x, y, s, r, m) = _add_relu_graph()
    assert [n.op for n in g.nodes] == ["placeholder", "placeholder", "call_function", "call_function",
                                       "call_method", "output"]
    assert list(x.users) == [s] and list(s.users) == [r]
    assert s.all_input_nodes == [x, y]
    s.args = (x, x)
    assert y.users == {} and list(x.users) == [s]
    assert len(g.nodes) == 6 and [n.name for n in reversed(g.nodes)][0] == "output"


def test_node_rejects_bad_op_and_target():
    g = fx.Graph()
    with pytest.raises(ValueError, match="op must be one of"):
        g.create_node("call_everything", ember.relu)
    with pytest.raises(ValueError, match="Callable is expected"):
        g.create_node("call_function", "relu")


def test_codegen_is_readable_and_frees_values():
    g, _ = _add_relu_graph()
    gm = fx.GraphModule(ember.nn.Module(), g)
    assert "add = x + y;  x = y = None" in gm.code
    assert "relu = ember.relu(add);  add = None" in gm.code
    assert "sum_1 = relu.sum(dim = 0);  relu = None" in gm.code
    assert gm.code.strip().endswith("return sum_1")
    a, b = ember.randn(3, 4), ember.randn(3, 4)
    ember.testing.assert_close(gm(a, b), ember.relu(a + b).sum(dim=0))


def test_codegen_literals_slices_and_inf():
    g = fx.Graph()
    x = g.placeholder("x")
    i = g.call_function(operator.getitem, (x, (slice(None, 2), Ellipsis, None)))
    c = g.call_function(ember.clamp, (i,), {"min": -math.inf, "max": 0.5})
    t = g.call_method("to", (c,), {"dtype": ember.float64})
    g.output((t, [c]))
    gm = fx.GraphModule({}, g)
    assert "x[:2, ..., None]" in gm.code and "min = -inf" in gm.code and "ember.float64" in gm.code
    a = ember.randn(3, 4)
    out, (out_c,) = gm(a)
    assert out.dtype == ember.float64 and tuple(out.shape) == (2, 4, 1)
    ember.testing.assert_close(out_c, ember.clamp(a[:2, ..., None], max=0.5))


def test_names_are_unique_and_avoid_builtins():
    g = fx.Graph()
    x = g.placeholder("x")
    a = g.call_function(ember.sum, (x,))
    b = g.call_function(ember.sum, (a,))
    c = g.call_function(max, (b, x))
    g.output(c)
    assert [a.name, b.name] == ["sum_1", "sum_2"]
    assert c.name == "max_1"
    fx.GraphModule({}, g)


def test_erase_node_with_users_raises_and_dce():
    g, (x, y, s, r, m) = _add_relu_graph()
    with pytest.raises(RuntimeError, match="still had 1 users"):
        g.erase_node(s)
    with g.inserting_after(s):
        dead = g.call_function(ember.exp, (s,))
    assert dead.prev is s and dead.next is r
    assert g.eliminate_dead_code()
    assert dead not in list(g.nodes)
    assert not g.eliminate_dead_code()


def test_dce_keeps_inplace_ops():
    g = fx.Graph()
    x = g.placeholder("x")
    g.call_function(ember.ops.aten.add_.Tensor, (x, x))
    g.call_function(ember.ops.aten.add.Tensor, (x, x))
    g.output(x)
    g.eliminate_dead_code()
    assert [n.target for n in g.nodes if n.op == "call_function"] == [ember.ops.aten.add_.Tensor]


def test_lint_catches_use_before_definition():
    g, (x, y, s, r, m) = _add_relu_graph()
    g.lint()
    m.prepend(r)      # fine: r still after s
    g.lint()
    x.prepend(r)      # r now before its input
    with pytest.raises(RuntimeError, match="used before it has been defined"):
        g.lint()


def test_lint_checks_targets_of_owning_module():
    g = fx.Graph()
    x = g.placeholder("x")
    g.output(g.call_module("missing", (x,)))
    with pytest.raises(RuntimeError, match="was not provided in ``root``"):
        fx.GraphModule({}, g)


def test_str_and_print_tabular(capsys):
    g, _ = _add_relu_graph()
    text = str(g)
    assert text.startswith("graph(x, y):")
    assert "%add : [num_users=1] = call_function[target=operator.add](args = (%x, %y), kwargs = {})" in text
    g.print_tabular()
    out = capsys.readouterr().out
    assert out.splitlines()[0].split() == ["opcode", "name", "target", "args", "kwargs"]
    assert "ember.relu" in out


def test_graph_copy_and_deepcopy():
    g, _ = _add_relu_graph()
    g2 = copy.deepcopy(g)
    assert [n.name for n in g2.nodes] == [n.name for n in g.nodes]
    assert all(n.graph is g2 for n in g2.nodes)
    g2.lint()


def test_graph_module_deepcopy_and_pickle_roundtrip():
    from .test_symbolic_trace import _model_and_input
    m, x = _model_and_input()
    gm = fx.symbolic_trace(m)
    gm.extra = "kept"
    for other in (copy.deepcopy(gm), pickle.loads(pickle.dumps(gm))):
        assert other.code == gm.code
        ember.testing.assert_close(other(x), m(x))
        assert other.extra == "kept"
        # parameters are copies, not shared
        p = dict(other.named_parameters())["fc1.weight"]
        assert p is not dict(gm.named_parameters())["fc1.weight"]


def test_pickle_aten_graph():
    g = fx.Graph()
    x = g.placeholder("x")
    g.output(g.call_function(ember.ops.aten.mul.Tensor, (x, x)))
    gm = pickle.loads(pickle.dumps(fx.GraphModule({}, g)))
    n = [n for n in gm.graph.nodes if n.op == "call_function"][0]
    assert n.target is ember.ops.aten.mul.Tensor
    assert "ember.ops.aten.mul.Tensor(x, x)" in gm.code


def test_recompile_after_graph_edit():
    g, (x, y, s, r, m) = _add_relu_graph()
    gm = fx.GraphModule({}, g)
    r.target = ember.sigmoid
    gm.recompile()
    a, b = ember.randn(2, 2), ember.randn(2, 2)
    ember.testing.assert_close(gm(a, b), ember.sigmoid(a + b).sum(dim=0))
    assert "ember.sigmoid" in gm.code


def test_error_in_generated_code_points_at_line(capsys):
    g = fx.Graph()
    x = g.placeholder("x")
    g.output(g.call_method("view", (x, 7)))
    gm = fx.GraphModule({}, g)
    with pytest.raises(RuntimeError):
        gm(ember.randn(3))
    assert "--> " in capsys.readouterr().err


def test_lazy_graph_module_generates_code_when_first_needed():
    import ember.fx.graph_module as gm_mod
    from ember.fx import symbolic_trace

    def f(x):
        return ember.relu(x) * 2

    calls = []
    orig = gm_mod.GraphModule.recompile

    def counting(self):
        calls.append(self)
        return orig(self)
    gm_mod.GraphModule.recompile = counting
    try:
        eager_gm = symbolic_trace(f)
        graph = eager_gm.graph
        assert len(calls) == 1
        with gm_mod._use_lazy_graph_module():
            lazy = gm_mod.GraphModule(ember.nn.Module(), graph)
        assert len(calls) == 1                        # nothing generated yet
        x = ember.randn(4)
        assert ember.equal(lazy(x), ember.relu(x) * 2)
        assert len(calls) == 2                        # generated at the first call, once
        lazy(x)
        assert len(calls) == 2
        with gm_mod._use_lazy_graph_module():
            lazy2 = gm_mod.GraphModule(ember.nn.Module(), graph)
        assert "relu" in lazy2.code and len(calls) == 3
        assert ember.equal(lazy2(x), ember.relu(x) * 2) and len(calls) == 3
    finally:
        gm_mod.GraphModule.recompile = orig
    assert not gm_mod._lazy_recompile[0]
