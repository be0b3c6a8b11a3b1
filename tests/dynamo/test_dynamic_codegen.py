"""The inductor backend with dynamic shapes: one size-parameterised C build serves every size (sizes are run-time
arguments of the kernels, computed by the wrapper from its inputs), forward and backward equal eager; the
per-size fallback is counted and still correct."""
import re

import pytest

import ember
from ember._dynamo.utils import counters
from ember._inductor import codecache, compile_fx, sizevars
from ember._inductor import config as inductor_config
from ember._inductor.sizevars import SizeUnsupported, SymSize, from_sympy
from ember.testing import assert_close

from .models import CNN, GPT, MLP, Block


@pytest.fixture(autouse=True)
def _fresh():
    ember._dynamo.reset()
    codecache.counters.clear()
    with inductor_config.patch(fx_graph_cache=False):
        yield
    ember._dynamo.reset()


def _builds():
    """Libraries built or loaded from the disk cache (a size-parameterised graph needs one per graph)."""
    return codecache.counters["c_compile"] + codecache.counters["c_disk_hit"]


def _grads(m, *extra):
    return [p.grad.clone() for p in m.parameters()] + [e.grad.clone() for e in extra]


def test_pointwise_and_reduction_many_batch_sizes_one_build():
    def f(x, w):
        h = (x @ w).relu() * 2.0 + x.sum(-1, keepdim=True)
        return h.softmax(-1), h.mean()
    cf = ember.compile(f)
    w = ember.randn(8, 8)
    f(ember.randn(3, 8), w)
    for b in (3, 4, 9, 2, 17, 33, 5, 6):
        x = ember.randn(b, 8)
        out, m = cf(x, w)
        ref, rm = f(x, w)
        assert_close(out, ref)
        assert_close(m, rm)
        if b == 4:
            builds = _builds()
    assert _builds() == builds               # sizes after the recompile reuse the one symbolic build
    assert counters["frames"]["ok"] == 2
    assert counters["inductor"]["dynamic_graphs"] == 1
    assert counters["inductor"]["specialized_symbolic_graphs"] == 0


def test_generated_c_takes_the_size_as_a_parameter_and_vectorises(monkeypatch):
    real = compile_fx.compile_to_module
    made = []

    def record(*a, **k):
        out = real(*a, **k)
        made.append(out[2])
        return out
    monkeypatch.setattr(compile_fx, "compile_to_module", record)

    def f(x):
        return (x * 3.0).exp() + x.abs()
    x = ember.randn(5, 37)
    assert_close(ember.compile(f, dynamic=True)(x), f(x))
    mod = made[0]
    src = mod.c_source
    head = re.search(r"static void kernel0\(([^)]*)\)", src).group(1)
    assert "const int64_t s0" in head and "const int64_t s1" in head
    assert re.search(r"x\d < s1; x\d\+\+", src)        # a loop over the run-time bound
    assert "37" not in src.split("static void kernel0", 1)[1]
    assert "s0 = arg0._size[0]" in mod.py_source
    report = codecache.vectorization_report(src)
    line = src[:src.index("static void kernel0")].count("\n") + 1
    assert any(n >= line for n, _ in report), report     # the inner loop over s1 is vectorised


def test_mlp_forward_backward_many_batch_sizes():
    ember.manual_seed(0)
    m = MLP()
    cm = ember.compile(m)
    for b in (4, 7, 2, 11, 5, 30):
        x = ember.randn(b, 6, requires_grad=True)
        m.zero_grad()
        m(x).pow(2).sum().backward()
        ref = _grads(m, x)
        refo = m(x)
        m.zero_grad()
        x.grad = None
        out = cm(x)
        out.pow(2).sum().backward()
        assert_close(out, refo)
        for a, r in zip(_grads(m, x), ref):
            assert_close(a, r)
        if b == 7:
            builds = _builds()
    assert _builds() == builds
    assert counters["frames"]["ok"] == 2
    assert counters["inductor"]["dynamic_graphs"] == 2             # forward and backward
    assert counters["inductor"]["specialized_symbolic_graphs"] == 0


def test_gpt_block_and_model_batch_and_sequence_sizes():
    ember.manual_seed(0)
    m = GPT(block_size=16)
    cm = ember.compile(m)
    for B, T in [(2, 8), (3, 5), (4, 16), (2, 3), (5, 7), (1, 9)]:
        idx = ember.randint(0, 32, (B, T))
        tgt = ember.randint(0, 32, (B, T))
        m.zero_grad()
        logits, loss = m(idx, tgt)
        loss.backward()
        ref = _grads(m)
        m.zero_grad()
        clogits, closs = cm(idx, tgt)
        closs.backward()
        assert_close(clogits, logits, atol=1e-5, rtol=1e-4)
        assert_close(closs, loss, atol=1e-5, rtol=1e-4)
        for a, r in zip(_grads(m), ref):
            assert_close(a, r, atol=1e-5, rtol=1e-4)
        if (B, T) == (3, 5):
            builds = _builds()
    # (1, 9): batch 1 is specialised by the 0/1 rule (a new entry), as torch does
    assert counters["inductor"]["specialized_symbolic_graphs"] == 0
    assert counters["inductor"]["dynamic_graphs"] >= 2
    assert counters["frames"]["ok"] == 3
    blk = Block(16, 2, 16)
    cb = ember.compile(blk, dynamic=True)
    for B, T in [(2, 4), (3, 6), (5, 3)]:
        x = ember.randn(B, T, 16)
        assert_close(cb(x), blk(x), atol=1e-5, rtol=1e-4)
    assert builds <= _builds()


def test_cnn_with_batch_norm_dynamic_batch_forward_backward():
    """Batch norm's running-variance factor n / (n - 1) is a float of the sizes: it reaches the C as an
    expression of the batch size (sizevars.SymFloatSize), so the graphs stay size-parameterised."""
    import copy
    ember.manual_seed(0)
    m = CNN()
    eager = copy.deepcopy(m)
    cm = ember.compile(m)
    for b in (2, 3, 5, 7):
        x = ember.randn(b, 1, 8, 8)
        m.zero_grad()
        eager.zero_grad()
        ref = eager(x)
        ref.sum().backward()
        out = cm(x)
        out.sum().backward()
        assert_close(out, ref, atol=1e-5, rtol=1e-4)
        for a, r in zip(_grads(m), _grads(eager)):
            assert_close(a, r, atol=1e-4, rtol=1e-4)
        assert_close(m.bn.running_var, eager.bn.running_var, atol=1e-5, rtol=1e-4)
    assert counters["inductor"]["dynamic_graphs"] == 2
    assert counters["inductor"]["specialized_symbolic_graphs"] == 0
    assert counters["inductor"]["fx_fallback"] == 0


def test_per_size_fallback_is_counted_and_correct(monkeypatch):
    real = compile_fx.compile_to_module

    def refuse(gm, example_inputs=None, size_hints=None, concrete=False):
        if not concrete:
            raise SizeUnsupported("test: a size this lowering cannot express")
        return real(gm, example_inputs, size_hints, concrete)
    monkeypatch.setattr(compile_fx, "compile_to_module", refuse)

    def f(x):
        return (x + 1).relu().sum(0)
    cf = ember.compile(f, dynamic=True)
    for b in (3, 4, 3, 5):
        x = ember.randn(b, 4)
        assert_close(cf(x), f(x))
    assert counters["inductor"]["dynamic_codegen_fallback"] == 1
    assert counters["inductor"]["specialized_symbolic_graphs"] == 3        # sizes 3, 4, 5: one build each


def test_size_dependent_code_falls_back_per_size(monkeypatch):
    """If lowering at other sizes gives other code (a decision depended on the example size), the graph is
    compiled per size."""
    from ember._inductor.codegen import wrapper
    real = wrapper.generate
    calls = []

    def generate(graph, sched):
        mod = real(graph, sched)
        calls.append(mod)
        if len(calls) == 2:                 # the second (check) lowering "differs"
            mod.c_source += "\n/* other */\n"
        return mod
    monkeypatch.setattr(wrapper, "generate", generate)

    def f(x):
        return x * 2
    cf = ember.compile(f, dynamic=True)
    for b in (3, 4):
        x = ember.randn(b, 2)
        assert_close(cf(x), f(x))
    assert counters["inductor"]["dynamic_graphs"] == 0
    assert counters["inductor"]["dynamic_codegen_fallback"] == 1


def test_dynamic_codegen_off_specialises_per_size(monkeypatch):
    def f(x):
        return x.exp().sum(-1)
    monkeypatch.setattr(sizevars, "dynamic_codegen", False)
    cf = ember.compile(f, dynamic=True)
    for b in (3, 4, 5):
        x = ember.randn(b, 3)
        assert_close(cf(x), f(x))
    assert counters["inductor"]["dynamic_graphs"] == 0
    assert counters["inductor"]["specialized_symbolic_graphs"] >= 1


def test_symsize_arithmetic_and_printing():
    sp = pytest.importorskip("sympy")
    s0, s1 = sp.Symbol("s0"), sp.Symbol("s1")
    a = from_sympy(s0 * s1 * 4, {"s0": 3, "s1": 5})
    b = from_sympy(s0, {"s0": 3})
    assert isinstance(a, SymSize) and int(a) == 60 and str(a) == "(4*s0*s1)"
    assert str(b) == "s0" and repr((b, 2)) == "(s0, 2)"
    assert str(a - 4 * b * from_sympy(s1, {"s1": 5})) == "0" and (a - a) == 0
    assert a // 4 == from_sympy(s0 * s1, {"s0": 3, "s1": 5}) and int(a // 4) == 15
    assert a // b == 4 * from_sympy(s1, {"s1": 5})
    assert str(b - 1) == "(s0 - 1)" and str(1 - b) == "(-s0 + 1)" or str(1 - b) == "(1 - s0)"
    assert b != 3 and b == from_sympy(s0, {"s0": 9})        # symbolic equality, never the example value
    half = from_sympy(sp.floor(s0 / 2), {"s0": 7})      # a pooled size: a call that C and Python both have
    assert str(half) == "ember_floordiv_i(s0, 2)" and int(half) == 3 and half == b // 2
    assert (b // 2).symbols() == {"s0"} and str(b % 3) == "ember_mod_i(s0, 3)"
    with pytest.raises(SizeUnsupported):
        b // -2
    helpers = {"ember_floordiv_i": lambda p, q: p // q, "ember_mod_i": lambda p, q: p % q}
    assert eval(repr(a + 3 * b + 2 * half), {"s0": 7, "s1": 2, **helpers}) == 4 * 14 + 21 + 6
