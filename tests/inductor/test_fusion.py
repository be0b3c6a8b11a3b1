"""Scheduling and fusion: kernel counts for known patterns, the cycle check, memory planning."""
import re

import pytest

import ember
import ember.nn.functional as F
from ember._inductor.ir import ComputedBuffer, Layout, Pointwise, Reduction
from ember._inductor.scheduler import Scheduler, plan_memory
from ember._inductor.virtualized import ops
from ember.testing import assert_close

from ._compiled import Compiled, fresh_caches

_fresh = pytest.fixture(autouse=True)(fresh_caches)


def _run(fn, *args, rtol=1e-5, atol=1e-6):
    c = Compiled(fn)
    got = c(*args)
    want = fn(*args)
    if isinstance(want, tuple):
        for g, w in zip(got, want):
            assert_close(g, w, rtol=rtol, atol=atol)
    else:
        assert_close(got, want, rtol=rtol, atol=atol)
    return c


def test_chain_of_ten_pointwise_ops_is_one_kernel():
    def chain(x):
        for i in range(10):
            x = (x * 1.01 + 0.5).tanh() if i % 2 else x.sin() - 0.1
        return x
    c = _run(chain, ember.randn(64, 128))
    assert c.kernels() == [1]
    assert len(re.findall(r"static void kernel\d+\(", c.source())) == 1      # (kernel0_task: its split, 64k elements)


@pytest.mark.parametrize("fn", [lambda x: F.softmax(x, -1), lambda x: F.log_softmax(x, -1)])
def test_softmax_is_one_kernel_with_sections_per_row(fn, monkeypatch):
    """The generated row kernel (what a softmax takes where eager's softmax.c is not called:
    codegen/softmax_calls.py, switched off here)."""
    from ember._inductor.codegen import softmax_calls
    monkeypatch.setattr(softmax_calls, "SOFTMAX_IN_C", False)
    c = _run(fn, ember.randn(32, 50))
    assert c.kernels() == [1]
    src = c.source()
    assert src.count(": max */") == 1 and src.count(": sum */") == 1


def test_softmax_over_a_non_last_dim_fuses_too():
    c = _run(lambda x: F.softmax(x, 0), ember.randn(30, 7))
    assert c.kernels()[0] <= 2


def test_layer_norm_forward_is_one_kernel():
    w, b = ember.randn(64), ember.randn(64)
    c = _run(lambda x: F.layer_norm(x, (64,), w, b), ember.randn(8, 16, 64), atol=1e-5)
    assert c.kernels() == [1]


def test_reduction_with_prologue_and_epilogue_is_one_kernel():
    c = _run(lambda x: (x.exp() * 2).sum(-1).sqrt() + 1, ember.randn(20, 33))
    assert c.kernels() == [1]


def test_horizontal_fusion_of_independent_loops_over_the_same_ranges():
    c = _run(lambda x: (x.sin(), x.cos(), x.amax(-1)), ember.randn(16, 40))
    assert c.kernels() == [1]


def test_cross_entropy_forward_is_at_most_two_kernels():
    c = _run(lambda x, t: F.cross_entropy(x, t), ember.randn(12, 9), ember.randint(0, 9, (12,)))
    assert c.kernels()[0] <= 2


def test_transposed_read_of_a_fused_buffer_is_not_fused_into_its_producer_row():
    # y = x.exp() realized (two readers), then y.t() read row-wise: the read is not row-local
    def f(x):
        y = (x.exp() * 3).sum(0, keepdim=True) + x
        return y.t().sum(-1), y.sum(-1), y * 2
    _run(f, ember.randn(6, 6))


def test_cycle_check_keeps_a_kernel_out_of_a_group_through_an_extern():
    # a = rowsum(x); m = extern(a); c = rowsum(x * m): a and c share x and outer ranges, but fusing them
    # would put the extern both before and after the group
    w = ember.randn(1, 1)

    def f(x):
        a = x.sum(-1, keepdim=True)
        m = a @ w
        return (x * m).sum(-1)
    c = _run(f, ember.randn(10, 12), atol=1e-5)
    assert c.kernels() == [2]


def _buf(name, size, inner, reduction=None):
    dtype = ember.float32
    if reduction:
        data = Reduction(size, reduction, "sum", inner, dtype)
    else:
        data = Pointwise(size, dtype, inner)
    return ComputedBuffer(name, Layout.contiguous(size, dtype), data)


def test_scheduler_fuses_by_memory_score_and_orders_topologically():
    a = _buf("a", (4, 8), lambda idx: ops.load("in0", idx[0] * 8 + idx[1]))
    s = _buf("s", (4,), lambda idx, r: ops.load("a", idx[0] * 8 + r[0]), reduction=(8,))
    b = _buf("b", (4, 8), lambda idx: ops.add(ops.load("a", idx[0] * 8 + idx[1]), ops.load("s", idx[0])))
    sched = Scheduler([a, s, b], lambda n: 128)
    groups = sched.kernel_groups()
    assert len(groups) == 1
    assert [n.buf.name for n in groups[0].nodes] == ["a", "s", "b"]
    assert groups[0].outer == (4,)


def test_memory_plan_reuses_dead_buffers_of_the_same_size():
    w = ember.randn(32, 32)

    def f(x):
        a = x.sin() @ w
        b = (a.cos() + 1) @ w
        return (b.tanh() * 2) @ w
    c = _run(f, ember.randn(32, 32), atol=1e-4, rtol=1e-4)
    py = c.modules[0].py_source
    assert py.count("np.empty(") < 3          # sin, cos and tanh buffers share storage


def test_plan_memory_keeps_outputs_apart():
    a = _buf("a", (4,), lambda idx: ops.constant(1.0, ember.float32))
    b = _buf("b", (4,), lambda idx: ops.load("a", idx[0]))
    c = _buf("c", (4,), lambda idx: ops.load("b", idx[0]))

    class G:
        def __init__(self, buf, reads):
            self.nodes = [type("N", (), {"buf": buf, "reads": reads})()]
    groups = [G(a, set()), G(b, {"a"}), G(c, {"b"})]
    assign, slots = plan_memory(groups, [a, b, c], keep={"c"})
    assert assign["a"] != assign["b"]          # b is written while a is read
    assert assign["c"] not in (assign["a"], assign["b"])   # an output never shares storage
    assign2, slots2 = plan_memory(groups, [a, b, c], keep=set())
    assert assign2["c"] == assign2["a"] and len(slots2) == 2


def test_gpt_block_training_kernel_counts_stay_small():
    from tests.dynamo.models import Block
    m = Block(32, 4, 16)
    c = Compiled(m)
    x = ember.randn(2, 16, 32)
    c(x).sum().backward()
    fw, bw = c.kernels()
    # a block is ~10 pointwise/reduction regions around 6 matmuls: fusion keeps each region one kernel
    assert fw <= 12 and bw <= 20, (fw, bw)


def test_each_output_has_its_own_storage():
    c = _run(lambda x: (x.sin(), x.amax(-1), x * 2), ember.randn(8, 16))
    outs = c(ember.randn(8, 16))
    bases = [o._np.base if o._np.base is not None else o._np for o in outs]
    assert len({id(b) for b in bases}) == 3


def test_a_value_realized_twice_is_one_buffer():
    """An MLP's gelu feeds the second matmul (an extern call realizes it) and is saved for the backward (a graph
    output realizes it): one buffer, computed once, not two with the same contents."""
    ember.manual_seed(0)
    fc1, fc2 = ember.nn.Linear(16, 64), ember.nn.Linear(64, 16)

    def mlp(x):
        return fc2(F.gelu(fc1(x)))
    c = Compiled(mlp)
    x = ember.randn(8, 16)
    c(x).sum().backward()
    grads = [p.grad.clone() for p in (*fc1.parameters(), *fc2.parameters())]
    for p in (*fc1.parameters(), *fc2.parameters()):
        p.grad = None
    mlp(x).sum().backward()
    for g, p in zip(grads, (*fc1.parameters(), *fc2.parameters())):
        assert_close(g, p.grad, rtol=1e-5, atol=1e-6)
    forward = c.modules[0]
    assert forward.c_source.count("ember_phi_f(tmp") == 1, forward.c_source.split("static void kernel0")[1]
    stored = [ln for ln in forward.c_source.splitlines() if ln.strip().startswith("out_buf")]
    assert len(stored) == 3             # gelu, gelu' (saved for the backward), fc2's bias add


def test_a_reused_value_reading_many_buffers_is_stored_once():
    # a residual stream: each later norm would otherwise recompute every add from the first input on
    def stream(a, b, c, d, e, f):
        x = a + b + c + d + e + f
        y = F.layer_norm(x, (16,))
        return y * x
    args = [ember.randn(8, 16) for _ in range(6)]
    c = _run(stream, *args)
    src = c.source()
    # each input is loaded by the one kernel section that stores x, not again by the norm's mean, variance,
    # normalisation and the product
    for i in range(6):
        assert src.count(f"in_arg{i}[") == 1, i


def _kernels_source(c):
    """The generated kernels and entries (the source after the shared preamble)."""
    return "static void kernel0" + c.source().split("static void kernel0", 1)[1]


@pytest.mark.parametrize("returns", ["product", "input"])
def test_in_place_op_is_computed_once_into_its_input(returns):
    """`t.sin_()` then reading t (or returning it): sin is computed once, stored once into t's storage, and the
    later reads load it back (one kernel), instead of a kernel computing sin for the output and another
    computing it again for the in-place write. (A returned t is the input itself: AOT hands it out.)"""
    def f(t):
        t.sin_()
        return t * 2 if returns == "product" else t
    x = ember.randn(1000)
    y = x.clone()
    c = Compiled(f)
    got = c(x)
    want = f(y)
    assert_close(got, want)
    assert_close(x, y)                              # the input was updated in place
    if returns == "input":
        assert got is x
    src = _kernels_source(c)
    assert c.kernels() == [1]
    assert src.count("sinf(") == 1, src
    assert src.count("in_buf0[x0] = ") == 1, src     # one store into the input's storage


def test_in_place_op_after_a_read_of_the_old_value():
    """A value read before the in-place op keeps the old value (the write waits for every reader of it), an input
    that other outputs never read is written where it is computed."""
    def f(t, u):
        a = t * 3
        t.sin_()
        return a + t, u.cos_() + 1, u
    x, v = ember.randn(500), ember.randn(500)
    y, w = x.clone(), v.clone()
    c = Compiled(f)
    got = c(x, v)
    want = f(y, w)
    for g, e in zip(got, want):
        assert_close(g, e)
    assert_close(x, y)
    assert_close(v, w)
    assert _kernels_source(c).count("cosf(") == 1
