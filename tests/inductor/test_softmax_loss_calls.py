"""Compiled softmax family and nll_loss_forward as calls to eager's C kernels (codegen/softmax_calls.py,
codegen/loss_calls.py): a compiled cross_entropy gives eager's loss and gradient bit for bit, at 1 and 2 threads;
softmax's and log_softmax's forward and backward too; values against torch."""
import numpy as np
import pytest

import ember
import ember.nn.functional as F
from ember._inductor import config
from ember._inductor.codegen import loss_calls, softmax_calls
from ember.kernels.cpu.runtime import clib

from ._compiled import Compiled, fresh_caches

_fresh = pytest.fixture(autouse=True)(fresh_caches)
pytestmark = pytest.mark.skipif(not clib.enabled(), reason="ember's C kernels are not available")


def _threads(n):
    """ember and the generated code at n threads (restored after)."""
    class _T:
        def __enter__(self):
            self.prev = ember.get_num_threads()
            ember.set_num_threads(n)
            self.patch = config.patch({"cpp.threads": n})
            self.patch.__enter__()

        def __exit__(self, *a):
            self.patch.__exit__(*a)
            ember.set_num_threads(self.prev)
    return _T()


def _run(fn, arrays, compiled, grad_of=(0,), grad=None):
    """fn(*tensors) and the gradients of the tensors at `grad_of` (backward from `grad`, or from the sum when the
    result is not a scalar)."""
    ts = [ember.tensor(a, requires_grad=i in grad_of) if a.dtype.kind == "f" else ember.tensor(a)
          for i, a in enumerate(arrays)]
    c = Compiled(fn) if compiled else None
    out = (c or fn)(*ts)
    if grad is not None:
        out.backward(ember.tensor(grad))
    else:
        (out if out.dim() == 0 else out.sum()).backward()
    return c, out.detach().numpy().copy(), [ts[i].grad.numpy().copy() for i in grad_of]


def _assert_bits(fn, arrays, grad_of=(0,), grad=None):
    c, y, gs = _run(fn, arrays, True, grad_of, grad)
    _, y0, gs0 = _run(fn, arrays, False, grad_of, grad)
    np.testing.assert_array_equal(y, y0)
    assert np.signbit(y).tolist() == np.signbit(y0).tolist()
    for a, b in zip(gs, gs0):
        np.testing.assert_array_equal(a, b)
    return c


_CE_CASES = {
    "mlp": ((128, 10), {}),
    "gpt": ((1024, 65), {}),                                    # benchmarks' GPT: 16 x 64 tokens, 65 classes
    "long_rows": ((7, 300), {}),
    "sum_ignore": ((64, 10), {"reduction": "sum", "ignore_index": 3}),
    "none": ((33, 17), {"reduction": "none"}),
    "weight": ((40, 12), {"weight": True}),
    "one_row": ((9,), {}),
}


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("case", list(_CE_CASES))
def test_cross_entropy_has_eagers_bits(case, dtype, threads):
    """The compiled loss and gradient are eager's bit for bit: log_softmax and its backward run softmax.c, the nll
    forward nll.c (its double sum), the nll backward's generated -(g / total) rounds as nll.c does."""
    shape, kw = _CE_CASES[case][0], dict(_CE_CASES[case][1])
    rng = np.random.default_rng(0)
    x = (rng.standard_normal(shape) * 3).astype(dtype)
    n = shape[0] if len(shape) == 2 else 1
    c = shape[-1]
    t = rng.integers(0, c, n) if len(shape) == 2 else np.array(rng.integers(0, c))
    arrays = [x, t]
    if kw.pop("weight", False):
        arrays.append(rng.random(c).astype(dtype) + 0.5)
        fn = lambda x, t, w: F.cross_entropy(x, t, weight=w, **kw)       # noqa: E731
    else:
        fn = lambda x, t: F.cross_entropy(x, t, **kw)                    # noqa: E731
    with _threads(threads):
        comp = _assert_bits(fn, arrays)
    sfx = "f32" if dtype is np.float32 else "f64"
    fwd, bwd = comp.modules
    assert f"ember_softmax_fwd_{sfx}(" in fwd.c_source and f"ember_nll_fwd_{sfx}(" in fwd.c_source
    assert f"ember_softmax_bwd_{sfx}(" in bwd.c_source
    assert fwd.softmax and fwd.nll and bwd.softmax
    for m in comp.modules:
        assert "# aten." not in m.py_source                  # no Python call between the kernels
    if threads == 2 and case == "gpt":                       # (1024 x 65 elements: rows split as eager's)
        assert ", split */" in fwd.c_source and ", split */" in bwd.c_source


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("log", [False, True])
@pytest.mark.parametrize("shape", [(16, 4, 64, 64), (5, 3, 200), (3, 1)])
def test_softmax_has_eagers_bits(shape, log, threads):
    """(log_)softmax over the last dim and its backward, the input computed by a fused pointwise (attention's
    scale and causal mask, as the plain GPT writes it): eager's bits, at 1 and 2 threads."""
    rng = np.random.default_rng(1)
    x = rng.standard_normal(shape).astype(np.float32)
    mask = np.triu(np.ones(shape[-2:], bool), 1) if len(shape) > 2 else np.zeros(shape, bool)
    g = rng.standard_normal(shape).astype(np.float32)
    sm = F.log_softmax if log else F.softmax

    def fn(x, m):
        return sm((x * 0.125).masked_fill(m, float("-inf")), dim=-1)
    with _threads(threads):
        c = _assert_bits(fn, [x, mask], grad=g)
    fwd, bwd = c.modules
    assert "ember_softmax_fwd_f32(" in fwd.c_source and "ember_softmax_bwd_f32(" in bwd.c_source


def test_not_last_dim_and_strided_input():
    """softmax over another dim keeps the generated row kernel; a transposed (strided) input of a last-dim
    softmax is copied to contiguous scratch and then takes eager's kernel: eager's bits for that copy."""
    rng = np.random.default_rng(2)
    x = rng.standard_normal((6, 9)).astype(np.float32)
    c, y, _ = _run(lambda x: F.softmax(x, dim=0), [x], True)
    np.testing.assert_allclose(y, F.softmax(ember.tensor(x), dim=0).numpy(), rtol=1e-6)
    assert "ember_softmax_fwd_f32(" not in c.source()
    g = rng.standard_normal((9, 6)).astype(np.float32)
    c, y, (gx,) = _run(lambda x: F.log_softmax(x.t(), dim=1), [x], True, grad=g)
    # (eager runs numpy's loops on a strided input: the compiled call matches eager on the contiguous copy)
    _, y0, (gx0,) = _run(lambda x: F.log_softmax(x.t().contiguous(), dim=1), [x], False, grad=g)
    np.testing.assert_array_equal(y, y0)
    np.testing.assert_array_equal(gx, gx0)
    assert "ember_softmax_fwd_f32(" in c.source() and "x_c = (float*)malloc(" in c.source()


def test_switches_keep_the_generated_kernels(monkeypatch):
    """SOFTMAX_IN_C / NLL_IN_C off: the generated loops again (values within rounding of eager's)."""
    monkeypatch.setattr(softmax_calls, "SOFTMAX_IN_C", False)
    monkeypatch.setattr(loss_calls, "NLL_IN_C", False)
    rng = np.random.default_rng(3)
    x, t = rng.standard_normal((64, 10)).astype(np.float32), rng.integers(0, 10, 64)
    c, y, (g,) = _run(lambda x, t: F.cross_entropy(x, t), [x, t], True)
    _, y0, (g0,) = _run(lambda x, t: F.cross_entropy(x, t), [x, t], False)
    src = c.source()
    assert "ember_softmax_fwd_f32(" not in src and "ember_nll_fwd_f32(" not in src
    np.testing.assert_allclose(y, y0, rtol=1e-6)
    np.testing.assert_allclose(g, g0, rtol=1e-5, atol=1e-8)


def test_target_out_of_range_raises_index_error():
    x = ember.tensor(np.zeros((4, 3), np.float32))
    t = ember.tensor(np.array([0, 1, 3, 2]))
    c = Compiled(lambda x, t: F.cross_entropy(x, t))
    with pytest.raises(IndexError):
        c(x, t)
    with pytest.raises(IndexError):
        F.cross_entropy(x, t)


@pytest.mark.parity
@pytest.mark.parametrize("case", ["mlp", "sum_ignore", "none", "weight"])
def test_cross_entropy_parity_with_torch(case):
    torch = pytest.importorskip("torch")
    kw = dict(_CE_CASES[case][1])
    shape = _CE_CASES[case][0]
    rng = np.random.default_rng(4)
    x = rng.standard_normal(shape).astype(np.float32)
    t = rng.integers(0, shape[-1], shape[0])
    w = rng.random(shape[-1]).astype(np.float32) + 0.5 if kw.pop("weight", False) else None
    sides = []
    for lib, compiled in ((ember, True), (torch, False)):
        xt = lib.tensor(x, requires_grad=True)
        f = lambda x: lib.nn.functional.cross_entropy(x, lib.tensor(t), weight=None if w is None else  # noqa: E731
                                                      lib.tensor(w), **kw)
        out = (Compiled(f) if compiled else f)(xt)
        (out if out.dim() == 0 else out.sum()).backward()
        sides.append((out.detach().numpy(), xt.grad.numpy()))
    (y, g), (yt, gt) = sides
    np.testing.assert_allclose(y, yt, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(g, gt, rtol=1e-5, atol=1e-7)


def test_same_graph_lowered_twice_gives_the_same_c():
    """The extern calls' helper names come from the buffer names alone (they once carried a per-process graph
    count): the same graph lowered again is the same C source, so the C build cache and max-autotune's stored
    choice (keyed by the source) find it."""
    x = ember.tensor(np.random.default_rng(5).standard_normal((64, 1, 12, 12)).astype(np.float32))
    t = ember.tensor(np.arange(64) % 10)
    conv = ember.nn.Conv2d(1, 4, 3)
    head = ember.nn.Linear(100, 10)

    def f(x):
        return F.cross_entropy(head(F.max_pool2d(conv(x), 2).flatten(1)), t)
    sources = []
    for _ in range(2):
        ember._dynamo.reset()
        c = Compiled(f)
        c(x)
        sources.append(c.source())
    assert "ember_max_pool2d_f32(" in sources[0] and "ember_softmax_fwd_f32(" in sources[0]
    assert sources[0] == sources[1]
