"""relu and its backward: the C path (csrc/relu.c) against the numpy path and torch, on odd sizes and
special values (NaN, +-inf, -0.0), and the C kernels actually in use."""
import numpy as np
import pytest

import ember
from ember import _cc
from ember.kernels.cpu.runtime import clib
from ember.kernels.cpu import activation

needs_c = pytest.mark.skipif(not _cc.available(), reason="no C compiler")

SPECIAL = [np.nan, -0.0, 0.0, -1.0, 2.0, -np.inf, np.inf, 1e-30, -1e-30]


def _input(rng, shape, dtype):
    x = rng.standard_normal(shape).astype(dtype)
    flat = x.reshape(-1)
    flat[:min(flat.size, len(SPECIAL))] = SPECIAL[:flat.size]
    return x


def _relu_both(x, go):
    out = []
    for on in (True, False):
        with clib.use_c(on):
            ex = ember.tensor(x, requires_grad=True)
            y = ember.relu(ex)
            y.backward(ember.tensor(go))
            out.append((y.detach().numpy(), ex.grad.numpy()))
    return out


@pytest.mark.parity
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(0,), (1,), (7,), (3, 0, 2), (2, 9, 13), (64, 6, 28, 28)])
def test_relu_c_matches_numpy_path_and_torch(dtype, shape):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    x = _input(rng, shape, dtype)
    go = rng.standard_normal(shape).astype(dtype)
    go.reshape(-1)[1::5] = np.nan                     # a NaN grad where relu is off must become 0
    (cy, cg), (ny, ng) = _relu_both(x, go)
    tx = torch.tensor(x, requires_grad=True)
    ty = torch.relu(tx)
    ty.backward(torch.tensor(go))
    for got in ((cy, cg), (ny, ng)):
        np.testing.assert_array_equal(got[0], ty.detach().numpy())
        np.testing.assert_array_equal(np.signbit(got[0]), np.signbit(ty.detach().numpy()))   # relu(-0.0) = -0.0
        np.testing.assert_array_equal(got[1], tx.grad.numpy())      # a NaN result passes its grad on


@pytest.mark.parity
def test_relu_noncontiguous_inplace_and_int_match_torch():
    torch = pytest.importorskip("torch")
    x = _input(np.random.default_rng(1), (5, 6), np.float32)
    for on in (True, False):
        with clib.use_c(on):
            np.testing.assert_array_equal(ember.relu(ember.tensor(x).t()).numpy(), torch.relu(torch.tensor(x).t()).numpy())
            e, t = ember.tensor(x), torch.tensor(x)
            ember.relu_(e[:, ::2])
            torch.relu_(t[:, ::2])
            np.testing.assert_array_equal(e.numpy(), t.numpy())
            i = np.array([-3, 0, 4], np.int64)
            r = ember.relu(ember.tensor(i))
            assert r.dtype == ember.int64 and r.tolist() == torch.relu(torch.tensor(i)).tolist()


def test_relu_double_backward_goes_through_the_graph():
    x = ember.tensor([-1.0, 0.5, 2.0], dtype=ember.float64, requires_grad=True)
    y = ember.relu(x) * x
    (g,) = ember.autograd.grad(y.sum(), x, create_graph=True)
    assert g.grad_fn is not None
    np.testing.assert_allclose(g.detach().numpy(), [0.0, 1.0, 4.0])
    (gg,) = ember.autograd.grad(g.sum(), x)
    np.testing.assert_allclose(gg.numpy(), [0.0, 2.0, 2.0])


@needs_c
def test_relu_kernels_are_used(monkeypatch):
    for sfx in ("f32", "f64"):
        assert clib.kernel("relu", f"relu_{sfx}", "ppl") is not None
        assert clib.kernel("relu", f"relu_backward_{sfx}", "pppl") is not None
    calls = []
    into, bwd = activation.relu_into, activation.relu_backward
    monkeypatch.setattr(activation, "relu_into", lambda *a: calls.append("fwd") or into(*a))
    monkeypatch.setattr(activation, "relu_backward", lambda *a: calls.append("bwd") or bwd(*a))
    x = ember.randn(64, 64, requires_grad=True)     # MIN_ELEMS: a smaller relu is one np.where, not this path
    ember.relu(x).sum().backward()
    assert calls == ["fwd", "bwd"]


@pytest.mark.parity
def test_threshold_grad_passes_nan_inputs_like_torch():
    """threshold_backward: 0 where self <= threshold, else grad (a NaN input keeps its grad)."""
    torch = pytest.importorskip("torch")
    vals = [float("nan"), -1.0, 0.5, 2.0, float("inf")]
    out = []
    for lib in (ember, torch):
        x = lib.tensor(vals, requires_grad=True)
        lib.nn.functional.threshold(x, 0.5, -3.0).backward(lib.tensor([1.0, 2.0, 3.0, 4.0, 5.0]))
        out.append(x.grad.tolist())
    assert out[0] == out[1] == [1.0, 0.0, 0.0, 4.0, 5.0]
