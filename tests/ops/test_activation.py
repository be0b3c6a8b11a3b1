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


# ------------------------------------------------------------------ rrelu (rrelu_with_noise and its backward)
_RX = np.array([[-2.0, -1.0, 0.0], [0.5, 2.0, -0.25]])


@pytest.mark.parity
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("form", ["rrelu", "rrelu_", "F.rrelu", "F.rrelu-inplace", "F.rrelu_", "RReLU"])
def test_rrelu_eval_values_grads_and_nodes_match_torch(form, dtype):
    out = []
    for L in (torch, ember):
        x = L.tensor(_RX, dtype=getattr(L, dtype), requires_grad=True)
        y = x * 1.0
        call = {"rrelu": lambda t: L.rrelu(t, 0.1, 0.3),
                "rrelu_": lambda t: L.rrelu_(t, 0.1, 0.3),
                "F.rrelu": lambda t: L.nn.functional.rrelu(t, 0.1, 0.3),
                "F.rrelu-inplace": lambda t: L.nn.functional.rrelu(t, 0.1, 0.3, inplace=True),
                "F.rrelu_": lambda t: L.nn.functional.rrelu_(t, 0.1, 0.3),
                "RReLU": lambda t: L.nn.RReLU(0.1, 0.3).eval()(t)}[form]
        r = call(y)
        (r * L.arange(6.0, dtype=r.dtype).reshape(2, 3)).sum().backward()
        out.append((r.detach().numpy().tolist(), str(r.dtype).split(".")[1], type(r.grad_fn).__name__,
                    x.grad.numpy().tolist(), form.endswith("_") == (r is y) or not form.endswith("_")))
    assert out[0] == out[1]


def _train_facts(L, x, r, lower, upper, tol):
    """What holds for any draw: positives pass, each element <= 0 is scaled by its own slope in [lower, upper]
    (up to the dtype's rounding of the slope), and the gradient is that slope (1 for positives)."""
    xs, rs, g = x.detach().double().numpy(), r.detach().double().numpy(), x.grad.double().numpy()
    pos = xs > 0
    slope_ok = bool(np.all((g[~pos] >= lower - tol) & (g[~pos] <= upper + tol)))
    return (type(r.grad_fn).__name__, str(r.dtype).split(".")[1], bool(np.all(rs[pos] == xs[pos])),
            bool(np.all(g[pos] == 1)), slope_ok, bool(np.allclose(rs[~pos], xs[~pos] * g[~pos], rtol=tol * 4)))


@pytest.mark.parity
@pytest.mark.parametrize("dtype", ["float32", "float64", "bfloat16"])
@pytest.mark.parametrize("inplace", [False, True])
def test_rrelu_training_draws_a_slope_per_nonpositive_element_as_torch(dtype, inplace):
    data = np.random.default_rng(0).standard_normal((40, 50))
    data[0, :5] = 0.0
    facts = []
    for L in (torch, ember):
        x = L.tensor(data, dtype=getattr(L, dtype), requires_grad=True)
        y = x * 1.0
        r = L.nn.functional.rrelu(y, 0.2, 0.4, training=True, inplace=inplace)
        r.sum().backward()
        facts.append(_train_facts(L, x, r, 0.2, 0.4, 4e-3 if dtype == "bfloat16" else 1e-6))
        slopes = x.grad.double().numpy()[data <= 0]
        assert len(np.unique(slopes)) > len(slopes) // 4 if dtype != "bfloat16" else len(np.unique(slopes)) > 10
        assert abs(slopes.mean() - 0.3) < 0.01 and slopes.std() > 0.05     # U(0.2, 0.4): mean 0.3, std 0.058
        assert np.all(x.grad.double().numpy()[0, :5] != 1)      # zero counts as non-positive
    assert facts[0] == facts[1]


def test_rrelu_training_is_reproducible_from_the_seed_and_a_generator():
    x = ember.tensor(-np.ones((3, 4)), dtype=ember.float32)
    ember.manual_seed(3)
    a = ember.rrelu(x, training=True)
    ember.manual_seed(3)
    b = ember.nn.RReLU()(x)
    assert ember.equal(a, b) and not ember.equal(a, ember.rrelu(x, training=True))
    g1, g2 = ember.Generator().manual_seed(7), ember.Generator().manual_seed(7)
    assert ember.equal(ember.rrelu(x, training=True, generator=g1), ember.rrelu(x, training=True, generator=g2))


@pytest.mark.parity
def test_rrelu_with_noise_op_writes_the_noise_as_torch():
    out = []
    for L in (torch, ember):
        x = L.tensor(_RX, dtype=L.float32)
        noise = L.full((2, 3), 7.0)
        r = L.ops.aten.rrelu_with_noise.default(x, noise, 0.25, 0.25, True)
        noise2 = L.full((2, 3), 7.0)
        e = L.ops.aten.rrelu_with_noise.default(x, noise2, 0.1, 0.3, False)
        y = x.clone()
        noise3 = L.full((2, 3), 7.0)
        s = L.ops.aten.rrelu_with_noise_.default(y, noise3, 0.5, 0.5, True)
        out.append((r.tolist(), noise.tolist(), e.tolist(), noise2.tolist(), s is y, y.tolist(), noise3.tolist(),
                    # the noise is written without a version bump (only the returned self is bumped)
                    noise._version, noise2._version, noise3._version, y._version))
    assert out[0] == out[1]


@pytest.mark.parity
@pytest.mark.parametrize("training", [False, True])
@pytest.mark.parametrize("inplace", [False, True])
def test_rrelu_bumps_the_version_of_its_input_only_in_place_as_torch(training, inplace):
    out = []
    for L in (torch, ember):
        x = L.tensor(_RX, dtype=L.float32)
        y = L.nn.functional.rrelu(x, training=training, inplace=inplace)
        m = L.nn.RReLU(inplace=inplace).train(training)
        x2 = L.tensor(_RX, dtype=L.float32)
        y2 = m(x2)
        x3 = L.tensor(_RX, dtype=L.float32)
        L.rrelu_(x3, training=training)
        out.append((x._version, y._version, y is x, x2._version, y2._version, y2 is x2, x3._version))
    assert out[0] == out[1]


@pytest.mark.parity
@pytest.mark.parametrize("training", [False, True])
@pytest.mark.parametrize("self_is_result", [False, True])
def test_rrelu_with_noise_backward_op_matches_torch(training, self_is_result):
    out = []
    for L in (torch, ember):
        g = L.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
        x = L.tensor(_RX, dtype=L.float32, requires_grad=True)
        noise = L.tensor([[0.2, 0.3, 0.25], [1.0, 1.0, 0.15]])
        r = L.ops.aten.rrelu_with_noise_backward.default(g, x, noise, 0.1, 0.3, training, self_is_result)
        r.sum().backward()
        out.append((r.tolist(), g.grad.tolist(), None if x.grad is None else x.grad.tolist()))
    assert out[0] == out[1]


@pytest.mark.parity
@pytest.mark.parametrize("call", [
    lambda L: L.rrelu(L.arange(3), training=True), lambda L: L.rrelu(L.arange(3)),
    lambda L: L.rrelu(L.ones(2), 0.5, 0.1), lambda L: L.rrelu(L.ones(2), 0.5, 0.1, True),
    lambda L: L.rrelu_(L.ones(2), 0.5, 0.1), lambda L: L.nn.functional.rrelu(L.ones(2), 0.5, 0.1, True),
    lambda L: L.ops.aten.rrelu_with_noise.default(-L.ones(2), L.ones(2), 0.5, 0.1, True),
    lambda L: L.ops.aten.rrelu_with_noise.default(L.ones(2), L.ones(3), 0.1, 0.3, True),
    lambda L: L.ops.aten.rrelu_with_noise.default(L.ones(2), L.ones(2, dtype=L.float64), 0.1, 0.3, True),
    lambda L: L.rrelu(L.ones(2, dtype=L.complex64)),
], ids=["long-train", "long-eval", "bounds-eval", "bounds-train", "bounds-inplace", "bounds-F", "bounds-op",
        "noise-shape", "noise-dtype", "complex"])
def test_rrelu_errors_match_torch(call):
    want, got = _both(call)
    assert isinstance(want, tuple) and got == want


@pytest.mark.parity
def test_rrelu_inplace_negative_slope_backward_errors_as_torch():
    def run(L, training):
        x = L.tensor(_RX, requires_grad=True)
        L.rrelu_(x * 1.0, -0.3, -0.1, training).sum().backward()
        return x.grad.tolist() if not training else "ok"
    assert _both(lambda L: run(L, False))[0] == _both(lambda L: run(L, False))[1]
    assert _both(lambda L: run(L, True)) == ["ok", "ok"]


@pytest.mark.parity
def test_rrelu_with_noise_checks_its_bounds_only_when_it_draws_as_torch():
    want, got = _both(lambda L: L.ops.aten.rrelu_with_noise.default(L.ones(2), L.ones(2), 0.5, 0.1, True).tolist())
    assert got == want == [1.0, 1.0]


def test_rrelu_gradcheck_eval_and_training():
    x = ember.tensor(_RX + 0.01, dtype=ember.float64, requires_grad=True)
    assert ember.autograd.gradcheck(lambda t: ember.rrelu(t, 0.1, 0.3), (x,))
    # with lower == upper every draw is the same slope, so the training path is deterministic
    assert ember.autograd.gradcheck(lambda t: ember.rrelu(t, 0.2, 0.2, training=True), (x,))
    assert ember.autograd.gradgradcheck(lambda t: ember.rrelu(t, 0.1, 0.3) ** 2, (x,))
    g = ember.ones(2, 3, dtype=ember.float64, requires_grad=True)
    noise = ember.full((2, 3), 0.25, dtype=ember.float64)
    for training in (False, True):
        assert ember.autograd.gradcheck(
            lambda a, b: ember.ops.aten.rrelu_with_noise_backward.default(a, b, noise, 0.1, 0.3, training, False),
            (g, x), check_forward_ad=True)
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
