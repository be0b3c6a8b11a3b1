"""symbolic_trace on ember's own nn modules and user modules: graph output equals eager; leaf modules,
concrete_args, wrap, stack traces, and the control-flow errors."""
import pytest

import ember
import ember.nn.functional as F
from ember import fx, nn
from ember.testing import assert_close

from ._models import CNN, MLP, Block, LSTMClassifier


def _model_and_input():
    ember.manual_seed(0)
    return MLP(), ember.randn(5, 6)


def _ops(gm):
    return [(n.op, n.target if isinstance(n.target, str) else n.target.__name__) for n in gm.graph.nodes]


def test_mlp():
    m, x = _model_and_input()
    gm = fx.symbolic_trace(m)
    assert _ops(gm) == [("placeholder", "x"), ("call_module", "fc1"), ("call_function", "tanh"),
                        ("call_module", "fc2"), ("output", "output")]
    assert_close(gm(x), m(x))


def test_cnn_train_and_eval():
    ember.manual_seed(0)
    m = CNN()
    gm = fx.symbolic_trace(m)
    x = ember.randn(3, 2, 8, 8)
    assert_close(gm(x), m(x))        # batch norm in train mode; both update the same running stats
    m.eval()
    gm.eval()
    assert_close(gm(x), m(x))
    assert gm.bn is m.bn             # submodules are shared with the root, as in torch


def test_gpt_block():
    ember.manual_seed(0)
    m = Block()
    gm = fx.symbolic_trace(m)
    x = ember.randn(2, 8, 16)
    assert_close(gm(x), m(x))
    targets = {n.target for n in gm.graph.nodes if n.op == "call_function"}
    assert F.scaled_dot_product_attention in targets and F.gelu in targets
    assert "attn.c_attn" in {n.target for n in gm.graph.nodes if n.op == "call_module"}


def test_lstm_leaf_and_tuple_unpack():
    ember.manual_seed(0)
    m = LSTMClassifier()
    gm = fx.symbolic_trace(m)
    x = ember.randn(2, 5, 4)
    assert_close(gm(x), m(x))
    assert any(n.op == "call_module" and n.target == "lstm" for n in gm.graph.nodes)


def test_sequential_is_traced_through():
    seq = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))
    gm = fx.symbolic_trace(seq)
    assert [n.target for n in gm.graph.nodes if n.op == "call_module"] == ["0", "1", "2"]
    assert 'getattr(self, "0")(input_1)' in gm.code and "input_1 = input" in gm.code
    x = ember.randn(2, 3)
    assert_close(gm(x), seq(x))


def test_parameters_become_get_attr_and_tensor_constants():
    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.w = nn.Parameter(ember.randn(3))
            self.register_buffer("scale", ember.full((3,), 2.0))

        def forward(self, x):
            return (x * self.w).sum(-1) + (x * self.scale).mean()

    m = M()
    gm = fx.symbolic_trace(m)
    assert sorted(n.target for n in gm.graph.nodes if n.op == "get_attr") == ["scale", "w"]
    x = ember.randn(2, 3)
    assert_close(gm(x), m(x))


def test_custom_leaf_module():
    class Inner(nn.Module):
        def forward(self, x):
            return x.relu() + 1

    class Outer(nn.Module):
        def __init__(self):
            super().__init__()
            self.inner = Inner()

        def forward(self, x):
            return self.inner(x) * 2

    class LeafTracer(fx.Tracer):
        def is_leaf_module(self, m, qualname):
            return isinstance(m, Inner) or super().is_leaf_module(m, qualname)

    m = Outer()
    g = LeafTracer().trace(m)
    assert [n.op for n in g.nodes] == ["placeholder", "call_module", "call_function", "output"]
    g2 = fx.Tracer().trace(m)
    assert [n.op for n in g2.nodes] == ["placeholder", "call_method", "call_function", "call_function", "output"]
    x = ember.randn(4)
    assert_close(fx.GraphModule(m, g)(x), m(x))
    assert g2.find_nodes(op="call_function")[0].meta["nn_module_stack"]["inner"][1] is Inner


def test_control_flow_raises_trace_error():
    def f(x):
        if x.sum() > 0:
            return x
        return -x

    with pytest.raises(fx.TraceError, match="control flow"):
        fx.symbolic_trace(f)


def test_concrete_args_specialise():
    def f(x, flag):
        if flag:
            return x + 1
        return x - 1

    gm = fx.symbolic_trace(f, concrete_args={"flag": True})
    x = ember.randn(3)
    assert_close(gm(x), x + 1)
    assert not any(n.target is __import__("operator").sub for n in gm.graph.nodes)


def _user_helper(x, n):
    # data-dependent Python loop: would fail under tracing unless wrapped
    for _ in range(int(n)):
        x = x * 2
    return x


fx.wrap("_user_helper")


def test_wrap_makes_a_leaf_function():
    def f(x):
        return _user_helper(x.relu(), 3)

    gm = fx.symbolic_trace(f)
    calls = [n.target for n in gm.graph.nodes if n.op == "call_function"]
    assert calls == [_user_helper]
    x = ember.randn(4)
    assert_close(gm(x), x.relu() * 8)


def test_functions_and_tensor_methods_are_recorded():
    def f(x, y):
        z = ember.cat([x, y], dim=0)
        a, b = z.chunk(2)
        return F.softmax(a @ b.t(), dim=-1), z.shape[0]

    gm = fx.symbolic_trace(f)
    x, y = ember.randn(2, 3), ember.randn(2, 3)
    out, n = gm(x, y)
    ref, n_ref = f(x, y)
    assert_close(out, ref)
    assert n == n_ref == 4


def test_stack_trace_points_at_user_line():
    m, _ = _model_and_input()
    gm = fx.symbolic_trace(m)
    tanh = next(n for n in gm.graph.nodes if n.op == "call_function")
    assert "_models.py" in tanh.stack_trace
    assert "return self.fc2(ember.tanh(self.fc1(x)))" in tanh.stack_trace
    assert "# File: " in gm.code and "_models.py" in gm.code


def test_len_and_iteration_errors():
    with pytest.raises(RuntimeError, match="'len' is not supported"):
        fx.symbolic_trace(lambda x: x + len(x))
    with pytest.raises(fx.TraceError, match="cannot be iterated"):
        fx.symbolic_trace(lambda x: [t for t in x])


def test_a_binding_not_used_before_the_trace_is_a_leaf():
    """ember's generated bindings load on first access (ember/_bindings.py): a trace in a fresh interpreter whose
    code names a binding nothing has touched yet still records it as a call_function leaf (the autowrap table
    loads every binding before it looks through ember's namespace)."""
    import os
    import subprocess
    import sys
    src = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "src")
    code = ("import sys; sys.path.insert(0, %r); import ember\n"
            "class M(ember.nn.Module):\n"
            "    def forward(self, x):\n"
            "        return ember.addcmul(x, x, x, value=2) + ember.logaddexp(x, x)\n"
            "had = 'addcmul' in vars(ember)\n"
            "g = ember.fx.symbolic_trace(M())\n"
            "print(had, [n.target.__name__ for n in g.graph.nodes if n.op == 'call_function'])" % src)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "False ['addcmul', 'logaddexp', 'add']"
