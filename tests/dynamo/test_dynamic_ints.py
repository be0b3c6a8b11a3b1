"""ember.compile with int arguments that change between calls: as torch's automatic dynamic (specialize_int=False),
the first capture specialises the int, the recompile makes it a SymInt graph input, and later values reuse that
entry (every backend: eager, aot_eager, inductor)."""
import pytest

import ember
from ember._core.symint import SymInt
from ember._dynamo import config
from ember._dynamo.eval_frame import _STATES
from ember._dynamo.utils import counters
from ember.testing import assert_close


def _entries():
    return [e for st in _STATES.values() for e in st.entries]


@pytest.mark.parametrize("backend", ["eager", "aot_eager", "inductor"])
def test_changing_int_becomes_a_symint_input(backend):
    def f(x, n):
        return (x * n + n).sum(0) + x.new_ones(n).sum()
    cf = ember.compile(f, backend=backend)
    x = ember.randn(4, 3, requires_grad=True)
    for n in (2, 3, 5, 7, 9, 3):
        out = cf(x, n)
        assert_close(out, f(x, n))
        (g,) = ember.autograd.grad(out.sum(), x)
        (rg,) = ember.autograd.grad(f(x, n).sum(), x)
        assert_close(g, rg)
    assert counters["frames"]["ok"] == 2
    gm = _entries()[-1].gm
    phs = [n for n in gm.graph.nodes if n.op == "placeholder"]
    assert any(isinstance(p.meta.get("val"), SymInt) for p in phs)
    if backend == "inductor":
        assert counters["inductor"]["specialized_symbolic_graphs"] == 0
        assert counters["inductor"]["dynamic_graphs"] == 2          # forward and backward, once


def test_int_used_as_a_size_and_in_python_arithmetic():
    def f(x, k):
        y = x.reshape(k, -1)
        return y.sum(1) * (k + 1), k * 2
    cf = ember.compile(f, backend="inductor")
    for k in (2, 4, 3, 6):
        x = ember.randn(12)
        (out, m), (ref, rm) = cf(x, k), f(x, k)
        assert_close(out, ref)
        assert m == rm and type(m) is int
    assert counters["frames"]["ok"] == 2


def test_dynamic_true_makes_ints_symbolic_at_once_and_false_specialises():
    def f(x, n):
        return x + n
    cf = ember.compile(f, backend="eager", dynamic=True)
    for n in (2, 3, 4):
        assert_close(cf(ember.ones(2), n), ember.ones(2) + n)
    assert counters["frames"]["ok"] == 1
    ember._dynamo.reset()
    cf = ember.compile(f, backend="eager", dynamic=False)
    for n in (2, 3, 4):
        assert_close(cf(ember.ones(2), n), ember.ones(2) + n)
    assert counters["frames"]["ok"] == 3


def test_zero_and_one_stay_specialised_and_specialize_int(monkeypatch):
    def f(x, n):
        return x * n
    cf = ember.compile(f, backend="eager")
    for n in (2, 3, 0, 1, 5):
        assert_close(cf(ember.ones(2), n), ember.ones(2) * n)
    assert counters["frames"]["ok"] == 4                   # 2; symbolic n (3, 5); 0; 1
    ember._dynamo.reset()
    monkeypatch.setattr(config, "specialize_int", True)
    cf = ember.compile(f, backend="eager")
    for n in (2, 3, 4):
        assert_close(cf(ember.ones(2), n), ember.ones(2) * n)
    assert counters["frames"]["ok"] == 3


def test_guard_on_a_branch_over_the_int():
    def f(x, n):
        if n > 4:
            return x + n
        return x - n
    cf = ember.compile(f, backend="eager")
    for n in (2, 3, 6, 7, 3):
        assert_close(cf(ember.ones(2), n), f(ember.ones(2), n))
    assert counters["frames"]["ok"] == 3                   # 2; symbolic n <= 4; symbolic n > 4
