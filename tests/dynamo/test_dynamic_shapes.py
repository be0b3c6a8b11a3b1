"""ember.compile with dynamic shapes: automatic dynamic at the recompile, mark_dynamic, dynamic=True/False,
shape guards in the entry's check (branches on sizes, 0/1 specialisation, duck sizing), symbolic graphs run by
the "eager", "aot_eager" and "inductor" backends, forward and backward equal to eager."""
import warnings

import pytest

import ember
from ember._dynamo import config
from ember._dynamo.eval_frame import _STATES
from ember._dynamo.utils import counters
from ember.fx.experimental import proxy_tensor  # noqa: F401  (defines aten.sym_size)
from ember.testing import assert_close

from .models import GPT, MLP


def _entries():
    return [e for st in _STATES.values() for e in st.entries]


def _sym_reads(gm):
    return [n for n in gm.graph.nodes if n.target is ember.ops.aten.sym_size.int]


@pytest.mark.parametrize("backend", ["eager", "aot_eager", "inductor"])
def test_ten_batch_sizes_compile_at_most_twice(backend):
    def f(x, w):
        B, T, C = x.shape
        y = (x @ w).view(B, T, 2, -1).transpose(1, 2)
        return y.reshape(B * T, -1).relu(), B * T
    cf = ember.compile(f, backend=backend)
    w = ember.randn(8, 8)
    for B in range(2, 12):
        x = ember.randn(B, 5, 8)
        out, n = cf(x, w)
        ref, rn = f(x, w)
        assert_close(out, ref)
        assert n == rn and type(n) is int
    assert counters["frames"]["ok"] == 2
    assert sum(counters["recompiles"].values()) == 1
    gm = _entries()[-1].gm
    assert [(n.args[0].name, n.args[1]) for n in _sym_reads(gm)] == [("L_0", 0)]


def test_automatic_dynamic_marks_only_the_changed_dim():
    def f(x):
        return x.sum(0) * x.shape[1]
    cf = ember.compile(f, backend="eager")
    for B in (3, 4, 5):
        x = ember.randn(B, 6)
        assert_close(cf(x), f(x))
    assert sum(counters["recompiles"].values()) == 1
    cf(ember.randn(5, 7))                       # dim 1 stayed static: a new size there recompiles
    assert sum(counters["recompiles"].values()) == 2
    check = _entries()[1].check.source
    assert "._size[1] == 6" in check and "._size[0] >= 2" in check


def test_mark_dynamic_compiles_once():
    def f(x):
        b, t = x.shape
        return x.reshape(b * t).sum(0) + x.view(b, t, 1).sum(0).sum(0)
    cf = ember.compile(f, backend="aot_eager")
    for b in (4, 6, 9):
        x = ember.randn(b, 3)
        ember._dynamo.mark_dynamic(x, 0)
        assert_close(cf(x), f(x))
    assert counters["frames"]["ok"] == 1 and not counters["recompiles"]
    assert _sym_reads(_entries()[0].gm)


def test_branch_on_a_size_guards_both_sides():
    def f(x):
        if x.shape[0] > 4:
            return x * 2
        return x + 1
    cf = ember.compile(f, backend="eager")
    sizes = [2, 3, 5, 6, 3, 7, 4, 8]
    for b in sizes:
        x = ember.randn(b, 4)
        assert_close(cf(x), f(x))
    # static 2, then dynamic with s0 <= 4, then dynamic with s0 > 4 (torch: three graphs as well)
    assert counters["stats"]["unique_graphs"] == 3
    checks = [e.check.source for e in _entries()]
    assert any("._size[0] <= 4" in c for c in checks)
    assert any("._size[0] > 4" in c for c in checks)
    small = next(e for e in _entries() if "._size[0] <= 4" in e.check.source)
    big = next(e for e in _entries() if "._size[0] > 4" in e.check.source)
    assert any(n.target is ember.ops.aten.add.Tensor or "add" in str(n.target) for n in small.gm.graph.nodes)
    assert any("mul" in str(n.target) for n in big.gm.graph.nodes)


def test_reshape_and_view_with_symbolic_sizes():
    def f(x):
        B, T, C = x.shape
        h = x.view(B * T, C).t().reshape(C, B, T)
        return h.permute(1, 2, 0).contiguous().view(B, -1) + x.flatten(1)
    cf = ember.compile(f, backend="aot_eager", dynamic=True)
    for B, T in [(2, 3), (4, 5), (3, 7)]:
        x = ember.randn(B, T, 4)
        assert_close(cf(x), f(x))
    assert counters["frames"]["ok"] == 1


def test_zero_one_specialisation():
    def f(x):
        return x * x.shape[0]
    cf = ember.compile(f, backend="eager", dynamic=True)
    cf(ember.ones(1, 3))
    (entry,) = _entries()
    assert "._size[0] == 1" in entry.check.source and "._size[1] >= 2" in entry.check.source   # 1: static
    assert not any(n.target is ember.ops.aten.sym_size.int and n.args[1] == 0 for n in entry.gm.graph.nodes)
    assert_close(cf(ember.ones(4, 3)), ember.ones(4, 3) * 4)
    assert_close(cf(ember.ones(5, 3)), ember.ones(5, 3) * 5)
    assert counters["frames"]["ok"] == 2                      # 4 and 5 share the symbolic entry
    assert_close(cf(ember.ones(1, 3)), ember.ones(1, 3))      # back to the static size-1 entry
    assert counters["frames"]["ok"] == 2


def test_duck_sizing_equality_guard():
    def f(x, y):
        return x.sum(1) + y.sum(1)
    cf = ember.compile(f, backend="eager", dynamic=True)
    cf(ember.randn(3, 2), ember.randn(3, 5))
    assert "___v1._size[0] == ___v0._size[0]" in _entries()[0].check.source      # (L[1] and L[0])
    x, y = ember.randn(6, 2), ember.randn(6, 5)
    assert_close(cf(x, y), f(x, y))
    assert counters["frames"]["ok"] == 1


def test_dynamic_false_and_recompile_limit_unchanged():
    def f(x):
        return x * 2
    cf = ember.compile(f, dynamic=False, backend="eager")
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        for n in range(2, 2 + config.recompile_limit + 1):
            x = ember.ones(n)
            assert_close(cf(x), x * 2)
    assert counters["stats"]["unique_graphs"] == config.recompile_limit
    assert sum("recompile_limit" in str(m.message) for m in w) == 1


def test_returned_size_and_size_arithmetic():
    def f(x):
        n = x.shape[0] * 2 + 1
        return x.new_zeros(n), n, x.size()
    cf = ember.compile(f, backend="eager", dynamic=True)
    for b in (3, 6):
        out, n, size = cf(ember.randn(b, 2))
        assert out.shape == (2 * b + 1,) and n == 2 * b + 1 and type(n) is int
        assert size == ember.Size([b, 2])
    assert counters["frames"]["ok"] == 1


@pytest.mark.parametrize("backend", ["eager", "aot_eager"])
def test_mlp_dynamic_batch_forward_backward(backend):
    ember.manual_seed(0)
    m = MLP()
    cm = ember.compile(m, backend=backend, dynamic=True)
    for b in (2, 5, 3, 8):
        x = ember.randn(b, 6, requires_grad=True)
        m.zero_grad()
        ref = m(x)
        ref.sum().backward()
        ref_g = [p.grad.clone() for p in m.parameters()] + [x.grad.clone()]
        m.zero_grad()
        x.grad = None
        out = cm(x)
        out.sum().backward()
        assert_close(out, ref)
        for a, r in zip([p.grad for p in m.parameters()] + [x.grad], ref_g):
            assert_close(a, r)
    assert counters["frames"]["ok"] == 1


@pytest.mark.parametrize("backend", ["aot_eager", "inductor"])
def test_gpt_dynamic_batch_and_sequence_forward_backward(backend):
    ember.manual_seed(0)
    m = GPT(block_size=16)
    cm = ember.compile(m, backend=backend, dynamic=None)
    shapes = [(2, 8), (3, 5), (4, 16), (2, 3), (5, 7)]
    for B, T in shapes:
        idx = ember.randint(0, 32, (B, T))
        tgt = ember.randint(0, 32, (B, T))
        m.zero_grad()
        logits, loss = m(idx, tgt)
        loss.backward()
        ref_g = [p.grad.clone() for p in m.parameters()]
        m.zero_grad()
        clogits, closs = cm(idx, tgt)
        closs.backward()
        assert_close(clogits, logits, atol=1e-5, rtol=1e-4)
        assert_close(closs, loss, atol=1e-5, rtol=1e-4)
        for p, r in zip(m.parameters(), ref_g):
            assert_close(p.grad, r, atol=1e-5, rtol=1e-4)
    assert counters["frames"]["ok"] == 2          # static (2, 8), then one symbolic entry for the rest
    check = _entries()[-1].check.source
    assert "._size[1] <= 16" in check               # the model's `assert t <= self.block_size`


def test_explain_lists_shape_guards():
    def f(x):
        if x.shape[0] > 4:
            return x * 2
        return x + 1
    ember._dynamo.mark_dynamic(x := ember.randn(6, 3), 0)
    report = ember._dynamo.explain(f)(x)
    text = str(report)
    assert "_size[0] > 4" in text or "size()[0] > 4" in text


@pytest.mark.parity
def test_recompile_counts_match_torch():
    torch = pytest.importorskip("torch")
    from torch._dynamo.utils import counters as tcounters

    def program(lib):
        def g(x):
            if x.shape[0] > 4:
                return x * 2
            return x + 1
        return g
    seqs = [[2, 3, 5, 6, 3, 7, 4], [1, 2, 3, 1, 0, 5], list(range(2, 12))]
    for seq in seqs:
        torch._dynamo.reset()
        tcounters.clear()
        tg = torch.compile(program(torch), backend="eager")
        for b in seq:
            tg(torch.randn(b, 4))
        ember._dynamo.reset()
        counters.clear()
        eg = ember.compile(program(ember), backend="eager")
        for b in seq:
            eg(ember.randn(b, 4))
        assert counters["stats"]["unique_graphs"] == tcounters["stats"]["unique_graphs"], seq


def test_size_held_across_a_graph_break():
    def f(x):
        n = x.shape[0]
        y = x * 2
        ember._dynamo.graph_break()
        return y.sum(0) * n, n + 1
    cf = ember.compile(f, backend="aot_eager", dynamic=True)
    for b in (3, 5, 8):
        x = ember.randn(b, 2)
        out, m = cf(x)
        ref, rm = f(x)
        assert_close(out, ref)
        assert m == rm and type(m) is int
    # the resume function gets `n` as an int equal to y's dynamic size: one symbol, no recompile per size
    assert not counters["recompiles"]
    resume = next(e for st in _STATES.values() if "resume" in st.name for e in st.entries)
    assert "== ___v" in resume.check.source or "._size[0]" in resume.check.source


def test_mark_dynamic_range_and_constraint_violation():
    from ember.fx.experimental.symbolic_shapes import ConstraintViolationError

    def f(x):
        return x * 2
    cf = ember.compile(f, backend="eager")
    x = ember.randn(5, 3)
    ember._dynamo.mark_dynamic(x, 0, min=3, max=8)
    assert_close(cf(x), x * 2)
    check = _entries()[0].check.source
    assert "._size[0] >= 3" in check and "._size[0] <= 8" in check
    y = ember.randn(8, 3)
    assert_close(cf(y), y * 2)
    assert counters["frames"]["ok"] == 1
    cf(ember.randn(9, 3))                            # outside the declared range: a new entry
    assert counters["frames"]["ok"] == 2

    def g(x):
        return x.view(12)                            # forces the marked size to be 6
    cg = ember.compile(g, backend="eager")
    z = ember.randn(6, 2)
    ember._dynamo.mark_dynamic(z, 0)
    with pytest.raises(ConstraintViolationError, match=r"inferred to be a constant \(6\)"):
        cg(z)


def test_assume_static_by_default_false_is_dynamic_from_the_start(monkeypatch):
    monkeypatch.setattr(config, "assume_static_by_default", False)

    def f(x):
        return x.sum(0) * x.shape[0]
    cf = ember.compile(f, backend="eager")
    for b in (3, 4, 7):
        x = ember.randn(b, 2)
        assert_close(cf(x), f(x))
    assert counters["frames"]["ok"] == 1 and not counters["recompiles"]
