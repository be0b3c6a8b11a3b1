"""make_fx: aten-level graphs with OpOverload targets; decompositions, in-place ops, views, factories, RNG,
closed-over tensors, fake tracing."""
import operator

import ember
import ember.nn.functional as F
from ember.fx.experimental.proxy_tensor import make_fx
from ember.testing import assert_close

from ._models import MLP

aten = ember.ops.aten
OpOverload = type(aten.add.Tensor)


def _targets(gm):
    return [n.target for n in gm.graph.nodes if n.op == "call_function"]


def test_aten_graph_with_overload_targets():
    def f(x, y):
        return ember.relu(x + y).sum()

    x, y = ember.randn(3), ember.randn(3)
    gm = make_fx(f)(x, y)
    assert _targets(gm) == [aten.add.Tensor, aten.relu.default, aten.sum.default]
    assert [n.name for n in gm.graph.nodes if n.op == "placeholder"] == ["x_1", "y_1"]   # torch's names
    assert "ember.ops.aten.relu.default(add)" in gm.code
    assert_close(gm(x, y), f(x, y))


def test_composite_implicit_ops_are_decomposed():
    # aten.linear is CompositeImplicitAutograd: the graph holds what it decomposes into
    gm = make_fx(lambda x, w: F.linear(x, w))(ember.randn(2, 3), ember.randn(4, 3))
    assert aten.linear.default not in _targets(gm)
    assert aten.t.default in _targets(gm)


def test_decomposition_table_replaces_an_op():
    def silu_decomp(x):
        return x * ember.sigmoid(x)

    x = ember.randn(5)
    gm = make_fx(lambda t: F.silu(t), decomposition_table={aten.silu.default: silu_decomp})(x)
    assert _targets(gm) == [aten.sigmoid.default, aten.mul.Tensor]
    assert_close(gm(x), F.silu(x))


def test_inplace_ops_and_views():
    def f(x):
        y = x.clone()
        v = y.view(2, 3)
        v.add_(1)          # writes y through a view
        return y.mul_(2), v

    x = ember.randn(6)
    gm = make_fx(f)(x)
    ts = _targets(gm)
    assert aten.add_.Tensor in ts and aten.mul_.Tensor in ts and aten.view.default in ts
    got, got_v = gm(x)
    want, want_v = f(x)
    assert_close(got, want)
    assert_close(got_v, want_v)
    assert got_v._base is not None            # the graph output is still a view
    # the in-place node feeds later uses
    mul_ = next(n for n in gm.graph.nodes if n.target is aten.mul_.Tensor)
    assert mul_.args[0].target is aten.clone.default


def test_mutating_an_input():
    def f(x):
        x.add_(1)
        return x * 2

    x = ember.zeros(3)
    gm = make_fx(f)(x.clone())
    gm(x)
    assert x.tolist() == [1.0, 1.0, 1.0]


def test_factories_and_rng_are_kept():
    def f(x):
        noise = ember.randn(3)
        return x + noise + ember.ones(3)

    x = ember.zeros(3)
    ember.manual_seed(7)
    gm = make_fx(f)(x)
    assert aten.randn.default in _targets(gm) and aten.ones.default in _targets(gm)
    gm.graph.eliminate_dead_code()
    ember.manual_seed(1)
    a = gm(x)
    ember.manual_seed(1)
    assert_close(a, f(x))
    b = gm(x)
    assert (a != b).any().item()               # a fresh draw per call, not a baked-in constant


def test_dead_random_op_survives_dce():
    def f(x):
        ember.rand(2)
        return x * 2

    gm = make_fx(f)(ember.ones(2))
    gm.graph.eliminate_dead_code()
    assert aten.rand.default in _targets(gm)


def test_closed_over_parameters_become_attributes():
    ember.manual_seed(0)
    m = MLP()
    x = ember.randn(4, 6)
    gm = make_fx(lambda t: m(t))(x)
    consts = [n.target for n in gm.graph.nodes if n.op == "get_attr"]
    assert len(consts) == 4 and all(c.startswith("_tensor_constant") for c in consts)
    assert_close(gm(x), m(x))


def test_tuple_outputs_use_getitem():
    def f(x):
        vals, idx = ember.sort(x)
        return vals * 2, idx

    x = ember.randn(5)
    gm = make_fx(f)(x)
    assert operator.getitem in _targets(gm)
    got = gm(x)
    want = f(x)
    assert_close(got[0], want[0]) and assert_close(got[1], want[1])


def test_fake_tracing_records_fake_values():
    from ember._subclasses.fake_tensor import FakeTensor

    def f(x, w):
        return (x @ w).softmax(-1)

    x, w = ember.randn(2, 3), ember.randn(3, 4)
    gm = make_fx(f, tracing_mode="fake")(x, w)
    vals = [n.meta["val"] for n in gm.graph.nodes if n.op == "call_function"]
    assert all(isinstance(v, FakeTensor) for v in vals)
    assert tuple(vals[-1].shape) == (2, 4)
    assert_close(gm(x, w), f(x, w))


def test_backward_is_traced():
    def f(x):
        y = (x.sin() * x).sum()
        (g,) = ember.autograd.grad(y, [x])
        return g

    x = ember.randn(4, requires_grad=True)
    gm = make_fx(f)(x)
    assert aten.cos.default in _targets(gm)
    assert_close(gm(x), x.detach().sin() + x.detach() * x.detach().cos())


def test_nested_inputs_are_flattened():
    def f(pair, scale):
        a, b = pair
        return a * scale + b

    a, b = ember.randn(3), ember.randn(3)
    gm = make_fx(f)((a, b), 2.0)
    assert [n.name for n in gm.graph.nodes if n.op == "placeholder"] == ["pair_1", "pair_2", "scale_1"]
    assert [n.name for n in make_fx(lambda *a: a[0] + a[1])(a, b).graph.nodes if n.op == "placeholder"] == \
        ["arg0_1", "arg1_1"]
    assert_close(gm(a, b, 2.0), a * 2 + b)


def test_stack_trace_of_aten_nodes():
    def f(x):
        return x.exp()          # this line

    gm = make_fx(f, record_stack_traces=True)(ember.ones(2))
    n = next(n for n in gm.graph.nodes if n.op == "call_function")
    assert "test_make_fx.py" in n.stack_trace and "return x.exp()" in n.stack_trace
    assert "# File:" in gm.code and "test_make_fx.py" in gm.code


def test_stack_traces_off_by_default():
    # as torch's make_fx (record_stack_traces=False): no per-op stack walk, no `# File:` comments
    gm = make_fx(lambda x: x.exp() + 1)(ember.ones(2))
    assert all(n.stack_trace is None for n in gm.graph.nodes)
    assert "# File:" not in gm.code


def test_aten_graph_with_constants_survives_pickle_and_deepcopy():
    import copy
    import pickle
    w = ember.randn(3, 3)
    gm = make_fx(lambda x: (x @ w).relu(), tracing_mode="fake", _allow_non_fake_inputs=True)(ember.randn(2, 3))
    x = ember.randn(2, 3)
    for g in (copy.deepcopy(gm), pickle.loads(pickle.dumps(gm))):
        assert_close(g(x), (x @ w).relu())
        assert _targets(g) == _targets(gm)
