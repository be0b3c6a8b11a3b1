"""subgraph_rewriter.replace_pattern: matches, replacement, rejection of matches used outside themselves."""
import ember
from ember import fx
from ember.fx import subgraph_rewriter
from ember.testing import assert_close


def test_replace_pattern_everywhere():
    def f(x, y):
        a = ember.sigmoid(x) * x
        b = ember.sigmoid(y) * y
        return a + b

    def pattern(t):
        return ember.sigmoid(t) * t

    def replacement(t):
        return ember.nn.functional.silu(t)

    gm = fx.symbolic_trace(f)
    matches = subgraph_rewriter.replace_pattern(gm, pattern, replacement)
    assert len(matches) == 2
    gm.graph.lint()
    targets = [n.target for n in gm.graph.nodes if n.op == "call_function"]
    assert targets.count(ember.nn.functional.silu) == 2 and ember.sigmoid not in targets
    x, y = ember.randn(4), ember.randn(4)
    assert_close(gm(x, y), f(x, y))


def test_match_with_outside_user_is_rejected():
    def f(x):
        s = ember.sigmoid(x)
        return s * x, s          # s is also returned: replacing would lose it

    gm = fx.symbolic_trace(f)
    matches = fx.replace_pattern(gm, lambda t: ember.sigmoid(t) * t, lambda t: ember.nn.functional.silu(t))
    assert matches == []


def test_replacement_with_two_inputs_and_literal_arguments():
    def f(a, b):
        return ember.add(a, b, alpha=2).relu() + ember.add(a, b, alpha=3).relu()

    def pattern(a, b):
        return ember.add(a, b, alpha=2).relu()

    def replacement(a, b):
        return ember.clamp(a + 2 * b, min=0)

    gm = fx.symbolic_trace(f)
    matches = fx.replace_pattern(gm, pattern, replacement)
    assert len(matches) == 1          # alpha=3 does not match
    a, b = ember.randn(6), ember.randn(6)
    assert_close(gm(a, b), f(a, b))
