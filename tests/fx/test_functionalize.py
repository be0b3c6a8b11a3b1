"""Functionalization of make_fx graphs: in-place ops become out-of-place, writes through views scatter into
their base, batch norm's running stats become explicit updates, mutated inputs are returned."""
import pytest

import ember
import ember.nn.functional as F
from ember._functorch.aot_autograd import aot_function, nop
from ember._functorch.functionalize import auto_functionalized, functionalize_graph
from ember.fx.experimental.proxy_tensor import make_fx
from ember.testing import assert_close

aten = ember.ops.aten


def _pure(gm):
    return not any(n.op == "call_function" and hasattr(n.target, "_packet") and n.target._packet.__name__.endswith("_")
                   for n in gm.graph.nodes)


def _run(f, *args):
    gm = make_fx(f, tracing_mode="fake")(*[a.clone() for a in args])
    fg = functionalize_graph(gm)
    fg.gm.graph.lint()
    assert _pure(fg.gm)
    return fg


def test_inplace_becomes_out_of_place():
    def f(x):
        y = x * 2
        y.add_(1)
        y.relu_()
        return y

    x = ember.randn(5)
    fg = _run(f, x)
    assert [n.target for n in fg.gm.graph.nodes if n.op == "call_function"] == \
        [aten.mul.Tensor, aten.add.Tensor, aten.relu.default]
    (out,) = fg.gm(x)
    assert_close(out, f(x.clone()))


def test_write_through_a_view_updates_the_base_and_other_views():
    def f(x):
        y = x.clone()
        row = y[1]
        col = y[:, 0]
        row.mul_(10)                 # writes y through a view
        return y, col + 0, row

    x = ember.randn(3, 4)
    fg = _run(f, x)
    got = fg.gm(x)
    want = f(x.clone())
    for g, w in zip(got, want):
        assert_close(g, w)


def test_mutated_inputs_are_returned_for_copy_back():
    def f(x, buf):
        buf.add_(x)
        buf.mul_(0.5)
        return x.sum()

    x, buf = ember.randn(3), ember.ones(3)
    fg = _run(f, x, buf)
    assert fg.mutated_inputs == [1] and fg.num_original_outputs == 1
    out, new_buf = fg.gm(x, buf)
    assert_close(new_buf, (ember.ones(3) + x) * 0.5)
    assert buf.tolist() == [1.0, 1.0, 1.0]          # the graph itself does not write


def test_batch_norm_running_stats():
    x = ember.randn(4, 3, 5)
    w, b = ember.randn(3), ember.randn(3)
    rm, rv = ember.zeros(3), ember.ones(3)

    def f(x, w, b, rm, rv):
        return F.batch_norm(x, rm, rv, w, b, training=True, momentum=0.1, eps=1e-5)

    fg = _run(f, x, w, b, rm, rv)
    assert fg.mutated_inputs == [3, 4]
    out, new_rm, new_rv = fg.gm(x, w, b, rm, rv)
    rm2, rv2 = rm.clone(), rv.clone()
    want = f(x, w, b, rm2, rv2)
    assert_close(out, want)
    assert_close(new_rm, rm2)
    assert_close(new_rv, rv2)


def test_copy_into_slice():
    def f(x, y):
        z = ember.zeros(4, 4)
        z[1:3].copy_(y)
        return z + x

    x, y = ember.randn(4, 4), ember.randn(2, 4)
    fg = _run(f, x, y)
    assert_close(fg.gm(x, y)[0], f(x, y))


def _scatter_ops(fg):
    return {n.target._packet.__name__ for n in fg.gm.graph.nodes
            if n.op == "call_function" and hasattr(n.target, "_packet") and n.target._packet.__name__.endswith("_scatter")}


def _three_ways(f, *args, grad=True):
    """eager vs the functionalized make_fx graph vs aot_function: outputs, updated inputs and gradients."""
    want_in = [a.clone() for a in args]
    want = f(*want_in)
    want = want if isinstance(want, tuple) else (want,)
    fg = _run(f, *args)
    got = fg.gm(*[a.clone() for a in args])
    for g, w in zip(got, want):
        assert_close(g, w)
    for k, i in enumerate(fg.mutated_inputs):
        assert_close(got[fg.num_original_outputs + k], want_in[i])
    aot_in = [a.clone() for a in args]
    got = aot_function(f, nop)(*aot_in)
    got = got if isinstance(got, tuple) else (got,)
    for g, w in zip(got, want):
        assert_close(g, w)
    for a, w in zip(aot_in, want_in):            # the epilogue copied the updates back into the inputs
        assert_close(a, w)
    if grad:
        leaves = [a.clone().requires_grad_() for a in args]
        eager = [a.clone().requires_grad_() for a in args]
        outs = f(*[x * 1 for x in eager])
        outs = outs if isinstance(outs, tuple) else (outs,)
        sum((o * (k + 2)).sum() for k, o in enumerate(outs)).backward()
        cf = aot_function(lambda *t: f(*[x * 1 for x in t]), nop)
        outs = cf(*leaves)
        outs = outs if isinstance(outs, tuple) else (outs,)
        sum((o * (k + 2)).sum() for k, o in enumerate(outs)).backward()
        for a, b in zip(leaves, eager):
            assert_close(a.grad, b.grad)
    return fg


def test_write_through_a_transposed_view():
    def f(x):
        y = x.clone()
        y.t()[0].add_(1)
        return y

    fg = _three_ways(f, ember.randn(3, 4))
    assert "select_scatter" in _scatter_ops(fg)


def test_write_through_a_slice_of_a_non_contiguous_base():
    def f(x):
        y = x.t().clone().t()        # a base with strides (1, 3)
        y[:, 1::2].mul_(2)
        return y, y.sum(0)

    fg = _three_ways(f, ember.randn(3, 4))
    assert "slice_scatter" in _scatter_ops(fg)


def test_write_through_a_row_of_a_non_contiguous_base():
    def f(x):
        y = x.t().clone().t()
        y[0].add_(1)
        return y

    _three_ways(f, ember.randn(3, 3))


def test_zero_the_diagonal():
    def f(x):
        y = x * 1
        y.diagonal().zero_()
        return y

    fg = _three_ways(f, ember.randn(4, 4))
    assert "diagonal_scatter" in _scatter_ops(fg)


def test_two_views_one_mutated_the_other_read_later():
    def f(x):
        y = x.clone()
        a = y[1:, :2]
        b = y[:, 1]                   # overlaps a in y[1:, 1]
        a.mul_(3)
        return b * 1, a + 0

    _three_ways(f, ember.randn(3, 4))


def test_chain_of_views():
    def f(x):
        y = x.clone()
        v = y.view(4, 6)[1:3].t()
        v[2].add_(5)
        return y, v * 1

    _three_ways(f, ember.randn(4, 3, 2))


def test_split_and_unbind_items():
    def f(x):
        y = x.clone()
        first, second = y.split(2, 0)
        second.sub_(1)
        rows = y.unbind(1)
        rows[0].mul_(4)
        return y, first + 0

    _three_ways(f, ember.randn(4, 3), grad=False)     # autograd forbids writing a multi-view output


def test_write_through_an_input_view():
    def f(x, buf):
        buf[1:].add_(x)
        return buf.sum()

    x, buf = ember.randn(2, 3), ember.randn(3, 3)
    fg = _three_ways(f, x, buf, grad=False)
    assert fg.mutated_inputs == [1]


def test_inplace_keeps_self_dtype():
    def f(x, y):
        z = x * 1
        z.add_(y)                     # float32 += float64 stays float32
        z[0].mul_(y[1])
        return z

    x, y = ember.randn(3), ember.randn(3, dtype=ember.float64)
    fg = _run(f, x, y)
    (got,) = fg.gm(x, y)
    want = f(x, y)
    assert got.dtype == want.dtype == ember.float32
    assert_close(got, want)


def test_write_through_unfold_falls_back_to_as_strided_scatter():
    def f(x):
        y = x * 1
        y.unfold(0, 2, 3)[1].mul_(3)   # windows [0:2] and [3:5]; the second is written
        return y

    fg = _three_ways(f, ember.randn(6))
    assert "as_strided_scatter" in _scatter_ops(fg)


def test_out_variant():
    def f(a, b, c):
        ember.add(a, b, out=c)
        return c * 2

    a, b, c = ember.randn(3), ember.randn(3), ember.zeros(3)
    fg = _three_ways(f, a, b, c, grad=False)
    assert fg.mutated_inputs == [2]
    assert aten.add.Tensor in [n.target for n in fg.gm.graph.nodes]


def test_out_variant_resizes_out():
    def f(a, c):
        ember.mul(a, 2, out=c)
        return c + 1

    a = ember.randn(3)
    c_eager, c_aot = ember.empty(0), ember.empty(0)
    want = f(a, c_eager)                 # an empty out is resized without a warning
    got = aot_function(f, nop)(a, c_aot)
    assert_close(got, want)
    assert_close(c_aot, c_eager)


def test_out_variant_into_a_view_and_a_dtype():
    def f(a, b):
        c = ember.zeros(2, 3, dtype=ember.float64)
        ember.mul(a, b, out=c[1])
        return c

    _three_ways(f, ember.randn(3), ember.randn(3), grad=False)


_lib = ember.library.Library("fntest", "DEF")
_lib.define("scale_into(Tensor x, Tensor(a!) dst, float alpha) -> ()")


def _scale_into(x, dst, alpha):
    dst.copy_(x * alpha)


_lib.impl("scale_into", _scale_into, "CompositeExplicitAutograd")


def test_op_writing_a_non_self_argument():
    def f(x, buf):
        y = buf.clone()
        ember.ops.fntest.scale_into(x, y[0], 3.0)
        ember.ops.fntest.scale_into(x, buf, 2.0)
        return y

    x, buf = ember.randn(4), ember.randn(2, 4)
    gm = make_fx(f, tracing_mode="fake")(x.clone(), buf.clone())
    assert any(n.target is ember.ops.fntest.scale_into.default for n in gm.graph.nodes)
    fg = functionalize_graph(gm)
    assert any(n.target is auto_functionalized for n in fg.gm.graph.nodes)
    assert fg.mutated_inputs == [1]
    buf2 = buf.clone()
    want = f(x, buf2)
    got, new_buf = fg.gm(x, buf.clone())
    assert_close(got, want)
    assert_close(new_buf, buf2)
    buf3 = buf.clone()
    assert_close(aot_function(f, nop)(x, buf3), want)
    assert_close(buf3, buf2)


def test_write_through_a_dtype_view():
    """view.dtype reinterprets the bits: the write is read back as the parent's dtype (torch's too)."""
    def f(x):
        y = x.clone()
        ember.ops.aten.view.dtype(y, ember.int32).add_(1)
        return y

    _three_ways(f, ember.randn(4, 3), grad=False)


def test_write_through_real_and_imag_of_an_input():
    """x.real / x.imag are selects of view_as_real: the writes scatter back through view_as_complex."""
    def f(z, w):
        z.real.mul_(2)
        z.imag.add_(w)
        return z.abs()

    z = ember.complex(ember.randn(3, 4), ember.randn(3, 4))
    fg = _three_ways(f, z, ember.randn(3, 4), grad=False)
    assert fg.mutated_inputs == [0]
