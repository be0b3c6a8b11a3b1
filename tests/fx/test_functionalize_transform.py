"""torch.func.functionalize (ember.func.functionalize) against torch: values, input mutations, traced graphs."""
import numpy as np
import pytest

import ember
from ember.func import functionalize
from ember.fx.experimental.proxy_tensor import make_fx

torch = pytest.importorskip("torch")

X = np.arange(6.0).reshape(2, 3) / 7 - 0.3
Y = np.array([0.5, -1.5, 2.0])


def f(lib, x, y):
    a = x.clone()
    a.add_(1)
    y.mul_(2)
    v = a.view(-1)
    v[0] = 5
    a.transpose(0, 1)[1].mul_(3)
    return a, {"k": v.sum(), "t": y + 1}


def _run(lib, remove, fn=f):
    x, y = lib.tensor(X), lib.tensor(Y)
    out = lib.func.functionalize(lambda a, b: fn(lib, a, b), remove=remove)(x, y)
    return out, x, y


@pytest.mark.parity
@pytest.mark.parametrize("remove", ["mutations", "mutations_and_views"])
def test_values_and_input_mutations_match_torch(remove):
    (ea, ed), ex, ey = _run(ember, remove)
    (ta, td), tx, ty = _run(torch, remove)
    np.testing.assert_allclose(ea.numpy(), ta.numpy(), rtol=1e-12)
    for k in ("k", "t"):
        np.testing.assert_allclose(ed[k].numpy(), td[k].numpy(), rtol=1e-12)
    np.testing.assert_array_equal(ex.numpy(), tx.numpy())      # x is read only
    np.testing.assert_allclose(ey.numpy(), ty.numpy())          # y's mutation is propagated back
    np.testing.assert_array_equal(ey.numpy(), Y * 2)


@pytest.mark.parity
def test_single_output_and_kwargs():
    def g(lib, x, y):
        x.sub_(y)
        return x * 2

    def call(lib):
        x, y = lib.tensor(X), lib.tensor(Y)
        out = lib.func.functionalize(lambda a, *, b: g(lib, a, b))(x, b=y)
        return out, x
    (eo, ex), (to, tx) = call(ember), call(torch)
    assert isinstance(eo, ember.Tensor)
    np.testing.assert_allclose(eo.numpy(), to.numpy())
    np.testing.assert_allclose(ex.numpy(), tx.numpy())


@pytest.mark.parity
def test_gradients_flow_through():
    def g(lib, x, y):
        a = x * 1
        a.mul_(x)
        return a.sum()

    def grad(lib):
        x = lib.tensor(X, requires_grad=True)
        lib.func.functionalize(lambda a: g(lib, a, None))(x).backward()
        return x.grad
    np.testing.assert_allclose(grad(ember).numpy(), grad(torch).numpy())


def _targets(gm):
    return [str(n.target) for n in gm.graph.nodes if n.op == "call_function"]


def test_traced_graph_has_no_intermediate_mutation():
    x, y = ember.tensor(X), ember.tensor(Y)
    gm = make_fx(functionalize(lambda a, b: f(ember, a, b)))(x, y)
    names = _targets(gm)
    # only the write-back of the mutated input y remains in place (torch's graph ends with the same copy_)
    assert [t for t in names if "_." in t or t.endswith("_")] == ["aten.copy_.default"]
    np.testing.assert_array_equal(x.numpy(), X)        # tracing ran on the inputs without changing x
    gm2 = make_fx(functionalize(lambda a, b: f(ember, a, b), remove="mutations_and_views"))(x, y)
    assert not any(t.startswith(("aten.view.", "aten.select.", "aten.transpose.")) for t in _targets(gm2)[:-2])
    assert any(t.startswith("aten.view_copy") for t in _targets(gm2))


@pytest.mark.parity
def test_bad_remove_raises_as_torch():
    with pytest.raises(RuntimeError) as te:
        torch.func.functionalize(lambda x: x, remove="views")
    with pytest.raises(RuntimeError) as ee:
        functionalize(lambda x: x, remove="views")
    assert str(ee.value) == str(te.value)
