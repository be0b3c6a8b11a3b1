"""Symbolic sizes: ember.SymInt, the ShapeEnv (duck sizing, 0/1 specialisation, value ranges, guards), fake
tensors with symbolic sizes, make_fx(tracing_mode="symbolic") and AOT autograd over symbolic inputs."""
import operator

import pytest

import ember
import ember.nn.functional as F
from ember.fx.experimental.proxy_tensor import make_fx
from ember.fx.experimental.symbolic_shapes import (DimDynamic, ShapeEnv, StatelessSymbolicContext, guard_int,
                                                   statically_known_true)
from ember._subclasses.fake_tensor import FakeTensorMode


def _sym(env, val, name):
    return env.create_symintnode(env.create_symbol(val, name), val)


# ---------------------------------------------------------------- ShapeEnv and SymInt
def test_symint_arithmetic_keeps_expressions():
    env = ShapeEnv()
    s0, s1 = _sym(env, 5, "a"), _sym(env, 7, "b")
    assert isinstance(s0, ember.SymInt)
    assert str(s0 * 2 + s1) == "2*s0 + s1"
    assert str((s0 * 4) // 2) == "2*s0"
    assert (s0 * s1) // s1 is not None and str((s0 * s1) // s1) == "s0"
    assert s0 - s0 == 0 and isinstance(s0 - s0, int)          # a number comes back as a plain int
    assert isinstance(s1 / s0, ember.SymFloat)
    assert str(ember.sym_max(s0, s1)) == "Max(s0, s1)"
    assert env.guards == []                                     # arithmetic never guards
    with pytest.raises(TypeError, match="unhashable"):
        hash(s0)


def test_duck_sizing_and_zero_one_specialisation():
    env = ShapeEnv()
    a = env.create_symbol(5, "x.size()[0]")
    b = env.create_symbol(5, "y.size()[0]")
    c = env.create_symbol(6, "y.size()[1]")
    assert a is b and a is not c                   # same example value: one symbol (duck sizing)
    assert env.create_symbol(1, "z.size()[0]") == 1 and env.create_symbol(0, "z.size()[1]") == 0
    d = env.create_symbol(5, "w.size()[0]", DimDynamic.DYNAMIC)
    assert d is not a                              # DYNAMIC dims get a symbol of their own
    guards = env.produce_guards_expression()
    assert "y.size()[0] == x.size()[0]" in guards
    assert "x.size()[0] >= 2" in guards and "y.size()[1] >= 2" in guards


def test_ranges_decide_comparisons_without_guards():
    env = ShapeEnv()
    s0, s1 = _sym(env, 5, "a"), _sym(env, 3, "b")
    # a symbol's range starts at [2, inf]: comparisons with 0 and 1 are known
    assert (s0 == 1) is False and (s0 != 0) is True and (s0 > 1) is True
    assert bool(48 * s1 < 48 * s0 * s1) is True                # known from the factored form
    assert statically_known_true(s0 >= 2)
    assert env.guards == []


def test_branch_on_a_size_records_a_guard_and_narrows_the_range():
    env = ShapeEnv()
    s0 = _sym(env, 5, "x.size()[0]")
    assert bool(s0 > 4) is True
    assert [str(g) for g in env.guards] == ["s0 > 4"]
    assert env.var_to_range[s0.node.expr].lower == 5
    assert bool(s0 > 3) is True and len(env.guards) == 1      # implied by the range now: no new guard
    assert bool(s0 < 3) is False and len(env.guards) == 1
    assert "x.size()[0] > 4" in env.produce_guards_expression()
    s1 = _sym(env, 3, "y.size()[0]")
    assert bool(s1 > 4) is False
    assert "y.size()[0] <= 4" in env.produce_guards_expression()


def test_int_of_a_symint_specialises():
    env = ShapeEnv()
    s0 = _sym(env, 6, "x.size()[0]")
    s1 = _sym(env, 7, "x.size()[1]")
    assert list(range(s0)) == list(range(6))          # __index__: the example value, and the guard s0 == 6
    assert "Eq(s0, 6)" in [str(g) for g in env.guards]
    assert s0 * 2 == 12 and isinstance(s0 * 2, int)   # s0 is the constant 6 from now on
    assert guard_int(s1 + 1) == 8
    assert "x.size()[0] == 6" in env.produce_guards_expression()


def test_evaluate_expr_guard_text_is_python_over_sources():
    env = ShapeEnv()
    s0 = _sym(env, 10, "L['x'].size()[0]")
    assert bool(s0 % 2 == 0) and bool(s0 // 3 == 3)
    names = env.produce_guards_expression()
    ns = {"L": {"x": ember.empty(10)}}
    for g in names:
        assert eval(g, ns) is True, g
    ns = {"L": {"x": ember.empty(11)}}
    assert not all(eval(g, ns) for g in names)


# ---------------------------------------------------------------- fake tensors
def test_fake_tensor_with_symbolic_sizes():
    env = ShapeEnv()
    mode = FakeTensorMode(shape_env=env)
    x = mode.from_tensor(ember.randn(5, 8), source="x")
    assert [str(s) for s in x.shape] == ["s0", "s1"]
    assert [str(s) for s in x.stride()] == ["s1", "1"]
    assert str(x.numel()) == "s0*s1"
    w = mode.from_tensor(ember.randn(16, 8), static_shapes=True)
    with mode:
        y = F.linear(x, w)
        z = ember.cat([x, x]).view(-1)
        e = x[1:].expand(2, -1, -1)
    assert str(y.shape[0]) == "s0" and y.shape[1] == 16
    assert [str(s) for s in z.shape] == ["16*s0"]                 # s1 == 8 was guarded by the matmul
    assert str(e.shape[1]) == "s0 - 1"
    assert [str(g) for g in env.guards] == ["Eq(s1, 8)"]


def test_fake_tensor_symbolic_context_and_zero_one():
    env = ShapeEnv()
    mode = FakeTensorMode(shape_env=env)
    ctx = StatelessSymbolicContext([DimDynamic.DUCK, DimDynamic.STATIC, DimDynamic.DUCK])
    x = mode.from_tensor(ember.randn(4, 3, 1), symbolic_context=ctx, source="x")
    assert isinstance(x.shape[0], ember.SymInt) and x.shape[1] == 3 and x.shape[2] == 1
    assert type(x.shape[1]) is int and type(x.shape[2]) is int


# ---------------------------------------------------------------- make_fx symbolic
def _mlp_like(x, w):
    B, T, C = x.shape
    y = (x @ w).view(B, T, 2, -1).transpose(1, 2)
    return y.reshape(B * T, -1).relu() + ember.arange(B)[:1, None]


def test_make_fx_symbolic_graph_reads_sizes_and_runs_any_size():
    w = ember.randn(8, 8)
    gm = make_fx(_mlp_like, tracing_mode="symbolic")(ember.randn(3, 5, 8), w)
    sizes = [n for n in gm.graph.nodes if n.target is ember.ops.aten.sym_size.int]
    assert sizes and {(n.args[0].name, n.args[1]) for n in sizes} >= {("x_1", 0), ("x_1", 1)}
    assert any(n.target is operator.mul for n in gm.graph.nodes)
    assert "sym_size_int = ember.ops.aten.sym_size.int(x_1, 0)" in gm.code
    for B, T in [(3, 5), (4, 7), (2, 2), (6, 3)]:
        x = ember.randn(B, T, 8)
        assert ember.equal(gm(x, w), _mlp_like(x, w))


def test_make_fx_symbolic_view_reshape_and_size_output():
    def f(x):
        n = x.shape[0] * x.shape[1]
        return x.reshape(n).view(x.shape[0], -1).sum(1), n
    gm = make_fx(f, tracing_mode="symbolic")(ember.randn(3, 4))
    for shape in [(3, 4), (5, 2), (7, 9)]:
        x = ember.randn(*shape)
        out, n = gm(x)
        assert n == shape[0] * shape[1]
        assert ember.allclose(out, x.sum(1))


def test_make_fx_symbolic_specialises_size_one():
    gm = make_fx(lambda x: x * 2 + x.shape[0], tracing_mode="symbolic")(ember.randn(1, 4))
    reads = [n.args[1] for n in gm.graph.nodes if n.target is ember.ops.aten.sym_size.int]
    assert 0 not in reads                    # dim 0 had size 1: a constant, never read
    assert "+ 1" in gm.code or ", 1)" in gm.code


def test_make_fx_symbolic_branch_is_taken_on_the_example():
    def f(x):
        if x.shape[0] > 4:
            return x * 2
        return x + 1
    gm = make_fx(f, tracing_mode="symbolic")(ember.randn(6, 2))
    assert any(n.target is ember.ops.aten.mul.Tensor for n in gm.graph.nodes)


@pytest.mark.parity
def test_make_fx_symbolic_sym_size_nodes_match_torch():
    torch = pytest.importorskip("torch")
    from torch.fx.experimental.proxy_tensor import make_fx as tmake_fx

    def f(lib):
        def g(x, w):
            B, T, C = x.shape
            y = (x @ w).view(B, T, 2, -1).transpose(1, 2)
            return y.reshape(B * T, -1).relu()
        return g
    tg = tmake_fx(f(torch), tracing_mode="symbolic")(torch.randn(3, 5, 8), torch.randn(8, 6))
    eg = make_fx(f(ember), tracing_mode="symbolic")(ember.randn(3, 5, 8), ember.randn(8, 6))

    def reads(gm, target):
        return {(n.args[0].name, n.args[1]) for n in gm.graph.nodes if n.target is target}
    t_reads = reads(tg, torch.ops.aten.sym_size.int)
    e_reads = reads(eg, ember.ops.aten.sym_size.int)
    # torch reads the batch and sequence sizes of x (and others its matmul decomposition uses)
    assert {("x_1", 0), ("x_1", 1)} <= t_reads and {("x_1", 0), ("x_1", 1)} <= e_reads
    x = ember.randn(4, 6, 8)
    w = ember.randn(8, 6)
    tx, tw = torch.tensor(x.numpy()), torch.tensor(w.numpy())
    assert ember.allclose(eg(x, w), ember.tensor(tg(tx, tw).numpy()), atol=1e-5)


# ---------------------------------------------------------------- AOT autograd over symbolic inputs
def test_aot_module_simplified_traces_once_over_symbolic_inputs():
    from ember._functorch.aot_autograd import aot_module_simplified
    ember.manual_seed(0)
    mod = ember.nn.Sequential(ember.nn.Linear(4, 8), ember.nn.GELU(), ember.nn.Linear(8, 3))
    env = ShapeEnv()
    mode = FakeTensorMode(shape_env=env)
    example = mode.from_tensor(ember.randn(5, 4, requires_grad=True), static_shapes=False, source="x")
    graphs = []

    def compiler(gm, example_inputs):
        graphs.append(gm)
        return gm.forward
    compiled = aot_module_simplified(mod, [example], fw_compiler=compiler, bw_compiler=compiler)
    assert len(graphs) == 2                         # forward and backward, traced once, now
    assert any(n.target is ember.ops.aten.sym_size.int for g in graphs for n in g.graph.nodes)
    for B in (5, 2, 9):
        x = ember.randn(B, 4, requires_grad=True)
        mod.zero_grad()
        ref = mod(x)
        ref.sum().backward()
        ref_grads = [p.grad.clone() for p in mod.parameters()] + [x.grad.clone()]
        mod.zero_grad()
        x.grad = None
        out = compiled(x)
        out.sum().backward()
        assert ember.allclose(out, ref, atol=1e-6)
        for a, b in zip([p.grad for p in mod.parameters()] + [x.grad], ref_grads):
            assert ember.allclose(a, b, atol=1e-5)
    assert len(graphs) == 2                         # no retrace for new sizes


def test_symint_is_not_loaded_by_import_ember():
    import os
    import subprocess
    import sys
    src = os.path.dirname(os.path.dirname(os.path.abspath(ember.__file__)))
    code = "import ember, sys; print('sympy' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={**os.environ, "PYTHONPATH": src})
    assert out.stdout.strip() == "False"


def test_aot_function_dynamic_traces_once_per_guarded_range():
    from ember._functorch.aot_autograd import aot_function
    graphs = []

    def compiler(gm, example_inputs):
        graphs.append(gm)
        return gm.forward

    def f(x, w):
        y = (x @ w).relu()
        if x.shape[0] > 6:
            y = y * 2
        return y.sum(1)
    cf = aot_function(f, compiler, dynamic=True)
    w = ember.randn(4, 3, requires_grad=True)
    for b in (2, 3, 5, 8, 9, 4):
        x = ember.randn(b, 4, requires_grad=True)
        out = cf(x, w)
        out.sum().backward()
        gx, gw = x.grad.clone(), w.grad.clone()
        x.grad = w.grad = None
        ref = f(x, w)
        ref.sum().backward()
        assert ember.allclose(out, ref, atol=1e-6)
        assert ember.allclose(gx, x.grad, atol=1e-5) and ember.allclose(gw, w.grad, atol=1e-5)
        w.grad = None
    assert len(graphs) == 4          # forward + backward for sizes <= 6, and again for sizes > 6
