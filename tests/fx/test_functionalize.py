"""Functionalization of make_fx graphs: in-place ops become out-of-place, writes through views scatter into
their base, batch norm's running stats become explicit updates, mutated inputs are returned."""
import pytest

import ember
import ember.nn.functional as F
from ember._functorch.functionalize import functionalize_graph
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


def test_unsupported_write_is_named():
    def f(x):
        y = x.t().clone().t()        # a non-contiguous base
        y[0].add_(1)
        return y

    with pytest.raises(NotImplementedError, match="non-contiguous base"):
        _run(f, ember.randn(3, 3))
