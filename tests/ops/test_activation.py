"""The activation family against torch: softshrink as an op of its own (values, gradients, errors), and
hardshrink's backward as the aten op hardshrink_backward (+ its grad_input out overload)."""
import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")


def _both(fn):
    """fn(lib) in torch and ember: (result or exception type and message) of each."""
    out = []
    for lib in (torch, ember):
        try:
            out.append(fn(lib))
        except Exception as e:  # noqa: BLE001
            out.append((type(e).__name__, str(e)))
    return out


@pytest.mark.parity
@pytest.mark.parametrize("make", [
    lambda L: L.tensor([1, 2]), lambda L: L.tensor([True]), lambda L: L.tensor([1 + 1j]),
], ids=["long", "bool", "complex"])
def test_softshrink_refuses_non_floating_inputs_as_torch(make):
    want, got = _both(lambda L: L.nn.functional.softshrink(make(L)))
    assert got == want and got[0] == "NotImplementedError"


@pytest.mark.parity
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_softshrink_lambda_range_and_out_dtype_as_torch(dtype):
    want, got = _both(lambda L: L.nn.functional.softshrink(L.ones(2, dtype=getattr(L, dtype)), -1.5))
    assert got == want and got[0] == "RuntimeError"
    want, got = _both(lambda L: (L._C._nn if L is torch else L._nn).softshrink(L.ones(2), out=L.empty(2, dtype=L.float64)))
    assert got == want and got[0] == "RuntimeError"


@pytest.mark.parity
@pytest.mark.parametrize("lambd", [0.0, 0.5, 1.2])
def test_softshrink_values_grads_and_node_match_torch(lambd):
    a = np.array([[-2.0, -0.5, -0.3, 0.0, -1.0], [0.3, 0.5, 0.7, 1.2, 3.0]])   # (torch's grad at nan is 0 or 1
    # depending on its vectorised or scalar loop: not compared)
    g = np.random.default_rng(0).standard_normal(a.shape)
    res = []
    for L in (torch, ember):
        x = L.from_numpy(a.copy()).requires_grad_()
        y = L.nn.functional.softshrink(x, lambd)
        (gx,) = L.autograd.grad(y, x, L.from_numpy(g.copy()), create_graph=True)
        (ggx,) = L.autograd.grad((gx * gx).sum(), x, allow_unused=True, materialize_grads=True)
        res.append((y.detach().numpy(), gx.detach().numpy(), ggx.numpy(), type(y.grad_fn).__name__))
    (yt, gt, ggt, nt), (ye, ge, gge, ne) = res
    np.testing.assert_allclose(ye, yt)
    np.testing.assert_allclose(ge, gt)
    np.testing.assert_allclose(gge, ggt)
    assert ne == nt == "SoftshrinkBackward0"


def test_softshrink_gradcheck():
    x = ember.randn(3, 4, dtype=ember.float64, requires_grad=True)
    assert ember.autograd.gradcheck(lambda t: ember.nn.functional.softshrink(t, 0.3), (x,))
    assert ember.autograd.gradgradcheck(lambda t: ember.nn.functional.softshrink(t, 0.3) ** 2, (x,))


@pytest.mark.parity
@pytest.mark.parametrize("lambd", [0.5, 0.0, 1.5])
def test_hardshrink_backward_op_values_nodes_and_double_backward(lambd):
    """hardshrink's derivative calls aten.hardshrink_backward (grad where |x| > lambd or x is nan, else 0), whose
    own node is HardshrinkBackwardBackward0, as in torch. (No nan: torch's result for it depends on whether
    its vectorised loop or the scalar tail loop reaches the element.)"""
    x = np.array([-2.0, -1.5, -0.5, 0.0, 0.5, 0.7, 1.5, 3.0])
    g = np.arange(1.0, 9.0)

    def run(L):
        direct = L.ops.aten.hardshrink_backward(L.tensor(g), L.tensor(x), lambd)
        xt = L.tensor(x, requires_grad=True)
        (gx,) = L.autograd.grad(L.nn.functional.hardshrink(xt, lambd).sum(), [xt], create_graph=True)
        xt2 = L.tensor(x, requires_grad=True)
        (g1,) = L.autograd.grad((L.nn.functional.hardshrink(xt2, lambd) ** 2).sum(), [xt2], create_graph=True)
        (g2,) = L.autograd.grad(g1.sum(), [xt2])
        out = L.empty(0, dtype=L.float64)
        r = L.ops.aten.hardshrink_backward.grad_input(L.tensor(g), L.tensor(x), lambd, grad_input=out)
        assert r is out
        return [direct.numpy(), gx.detach().numpy(), g2.numpy(), out.numpy()], type(gx.grad_fn).__name__

    (want, wn), (got, gn) = run(torch), run(ember)
    for w, e in zip(want, got):
        np.testing.assert_array_equal(e, w)
    assert gn == wn == "HardshrinkBackwardBackward0"


@pytest.mark.parity
@pytest.mark.parametrize("call", [
    lambda L: L.ops.aten.hardshrink_backward(L.tensor([1, 2]), L.tensor([1, 2]), 0.5),
    lambda L: L.ops.aten.hardshrink_backward(L.tensor([1 + 1j]), L.tensor([1 + 0j]), 0.5),
    lambda L: L.ops.aten.hardshrink_backward.grad_input(L.ones(2), L.ones(2), 0.5, grad_input=L.empty(2, dtype=L.int64)),
    lambda L: L.ops.aten.hardshrink_backward(L.ones(2), L.ones(3), 0.5),
    lambda L: L.ops.aten.hardshrink_backward(L.ones(2, dtype=L.float16), L.ones(2), 0.5).dtype,
], ids=["long", "complex", "out-dtype", "broadcast", "promotion"])
def test_hardshrink_backward_dtypes_and_errors_as_torch(call):
    want, got = _both(call)
    if isinstance(want, tuple):
        assert got[0] == want[0] and (got[1] == want[1] or want[0] == "RuntimeError" and "size" in want[1])
    else:
        assert str(got).split(".")[-1] == str(want).split(".")[-1]


@pytest.mark.parity
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_relu_keeps_negative_zero_and_nan_bits_as_torch(dtype):
    # small tensors take np.maximum(0, a) where it is torch's clamp_min bit for bit, else a masked store
    vals = np.array([-0.0, np.nan, -np.nan, 0.0, -1.5, 2.5, -np.inf, np.inf, -3.0, 1e-30, -1e-30] * 7, dtype)
    for off in (0, 1, 5):
        for n in (1, 3, 8, 17, 40, 70):
            part = vals[off:off + n]
            got = ember.relu(ember.from_numpy(vals)[off:off + n]).numpy()
            want = torch.relu(torch.from_numpy(part.copy())).numpy()
            assert got.dtype == want.dtype and got.tobytes() == want.tobytes(), (off, n)
    assert ember.relu(ember.tensor(-0.0, dtype=getattr(ember, dtype))).numpy().tobytes() == \
        torch.relu(torch.tensor(-0.0, dtype=getattr(torch, dtype))).numpy().tobytes()
