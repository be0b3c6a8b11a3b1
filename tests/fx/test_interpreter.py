"""Interpreter (values freed after last use, per-opcode overrides), Transformer, and ShapeProp."""
import gc
import operator
import weakref

import ember
from ember import fx
from ember.fx.passes.shape_prop import ShapeProp
from ember.testing import assert_close

from ._models import CNN, Block


def test_interpreter_equals_eager_on_cnn():
    ember.manual_seed(0)
    m = CNN().eval()
    gm = fx.symbolic_trace(m)
    x = ember.randn(2, 2, 8, 8)
    assert_close(fx.Interpreter(gm).run(x), m(x))


def test_values_freed_after_last_use():
    def f(x):
        a = x * 2
        b = a + 1
        return b.relu()

    gm = fx.symbolic_trace(f)
    seen = []

    class Watch(fx.Interpreter):
        def run_node(self, n):
            out = super().run_node(n)
            if n.name == "mul":
                seen.append(weakref.ref(out))
            if n.name == "relu":
                gc.collect()
                seen.append(seen[0]() is None)     # `a` is gone once `b` is computed
            return out

    Watch(gm).run(ember.randn(4))
    assert seen[-1] is True
    interp = fx.Interpreter(gm)
    assert [n.name for n in interp.user_to_last_uses[next(n for n in gm.graph.nodes if n.name == "add")]] == ["mul"]


def test_override_call_function():
    def f(x):
        return ember.sigmoid(x) + ember.neg(x)

    gm = fx.symbolic_trace(f)

    class NegToSigmoid(fx.Interpreter):
        def call_function(self, target, args, kwargs):
            if target is ember.neg:
                target = ember.sigmoid
            return super().call_function(target, args, kwargs)

    x = ember.randn(3)
    assert_close(NegToSigmoid(gm).run(x), ember.sigmoid(x) * 2)


def test_boxed_run_clears_inputs():
    gm = fx.symbolic_trace(lambda x: x + 1)
    args = [ember.ones(2)]
    out = fx.Interpreter(gm).boxed_run(args)
    assert args == [] and out.tolist() == [2.0, 2.0]


def test_missing_argument_message():
    gm = fx.symbolic_trace(lambda x, y: x + y)
    import pytest
    with pytest.raises(RuntimeError, match="Expected positional argument for parameter y"):
        fx.Interpreter(gm).run(ember.ones(1))


def test_transformer_rewrites_and_keeps_stack_trace():
    def f(x):
        return ember.relu(x) + x

    gm = fx.symbolic_trace(f)

    class ReluToGelu(fx.Transformer):
        def call_function(self, target, args, kwargs):
            if target is ember.relu:
                target = ember.nn.functional.gelu
            return super().call_function(target, args, kwargs)

    new = ReluToGelu(gm).transform()
    x = ember.randn(5)
    assert_close(new(x), ember.nn.functional.gelu(x) + x)
    gelu = next(n for n in new.graph.nodes if n.op == "call_function" and n.target is not operator.add)
    assert "test_interpreter.py" in gelu.stack_trace and "return ember.relu(x) + x" in gelu.stack_trace


def test_shape_prop_records_metadata():
    ember.manual_seed(0)
    m = Block()
    gm = fx.symbolic_trace(m)
    ShapeProp(gm).propagate(ember.randn(2, 8, 16))
    for n in gm.graph.nodes:
        if n.op == "call_module" and n.target == "attn.c_attn":
            tm = n.meta["tensor_meta"]
            assert tuple(tm.shape) == (2, 8, 48) and tm.dtype == ember.float32
            assert tm.stride == (384, 48, 1) and tm.memory_format is ember.contiguous_format
    split = next(n for n in gm.graph.nodes if n.op == "call_method" and n.target == "split")
    assert len(split.meta["tensor_meta"]) == 3 and split.meta["type"] is tuple
