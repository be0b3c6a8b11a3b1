"""F.linear's direct path (nn/functional/linear.py `_direct`): with nothing for autograd to record it runs the cpu
addmm/mm kernel's computation without the views around it; it must give the general path's result bit for bit
and step aside whenever the dispatcher would do something else (grad, modes, observers, other dtypes)."""
import sys

import numpy as np
import pytest

import ember
import ember.nn.functional as F
from ember import _ops
from ember._dispatch.modes import TorchDispatchMode

L = sys.modules["ember.nn.functional.linear"]
RNG = np.random.default_rng(3)


def _lin(k, n, bias, dtype):
    m = ember.nn.Linear(k, n, bias=bias, dtype=dtype)
    F.linear(ember.ones(2, k, dtype=dtype), m.weight, m.bias)      # fills the dispatch caches
    return m


def _general(monkeypatch, *args):
    with monkeypatch.context() as mp:
        mp.setattr(L, "_direct", lambda *a: None)
        return F.linear(*args)


@pytest.mark.parametrize("dtype", [ember.float32, ember.float64])
@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("shape", [(5, 16), (1, 4, 16), (2, 3, 7, 16), (0, 16), (1, 0, 16)])
def test_direct_path_is_taken_and_bitwise_the_general_path(monkeypatch, dtype, bias, shape):
    m = _lin(16, 24, bias, dtype)
    x = ember.from_numpy(RNG.standard_normal(shape).astype(np.dtype(str(dtype).split(".")[1])))
    with ember.no_grad():
        assert L._direct(x, m.weight, m.bias) is not None
        fast = F.linear(x, m.weight, m.bias)
        ref = _general(monkeypatch, x, m.weight, m.bias)
    assert fast.shape == ref.shape == shape[:-1] + (24,) and fast.dtype is ref.dtype is dtype
    assert not fast.requires_grad and fast.grad_fn is None and fast.is_contiguous()
    np.testing.assert_array_equal(fast.numpy(), ref.numpy())


@pytest.mark.parametrize("dtype", [ember.float32, ember.float64])
@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("shape,n", [((1, 28, 128), 384), ((4, 128), 512), ((1, 48, 512), 128), ((2, 256), 1024),
                                     ((3, 784), 512), ((1, 13, 128), 65), ((49, 128), 128), ((8, 128), 128)])
def test_rows_by_weight_product_is_bitwise_the_general_path(monkeypatch, dtype, bias, shape, n):
    # a few rows against a large weight run as (w @ x^T)^T (`_SWAP_*`): the same sums in the same order; the
    # last two shapes stay on x @ w^T (too many rows, too little work)
    m = _lin(shape[-1], n, bias, dtype)
    x = ember.from_numpy(RNG.standard_normal(shape).astype(np.dtype(str(dtype).split(".")[1])))
    with ember.no_grad():
        fast = F.linear(x, m.weight, m.bias)
        ref = _general(monkeypatch, x, m.weight, m.bias)
    assert fast.shape == ref.shape == shape[:-1] + (n,) and fast.is_contiguous()
    np.testing.assert_array_equal(fast.numpy(), ref.numpy())
    np.testing.assert_array_equal(fast.numpy(), x.numpy() @ m.weight.detach().numpy().T
                                  + (m.bias.detach().numpy() if bias else 0))


def test_direct_path_also_when_nothing_requires_grad():
    m = _lin(8, 3, True, ember.float32)
    m.requires_grad_(False)
    assert L._direct(ember.randn(4, 8), m.weight, m.bias) is not None


def test_grad_mode_with_parameters_takes_the_recorded_path():
    m = _lin(8, 3, True, ember.float32)
    x = ember.randn(2, 5, 8)
    assert L._direct(x, m.weight, m.bias) is None
    y = m(x)
    assert y.requires_grad and type(y.grad_fn).__name__ == "ViewBackward0"
    y.sum().backward()
    assert m.weight.grad.shape == (3, 8)


def test_declines_other_dtypes_layouts_and_shapes():
    m = _lin(8, 3, True, ember.float32)
    with ember.no_grad():
        assert L._direct(ember.randn(8), m.weight, m.bias) is None                     # 1-D input: matmul
        assert L._direct(ember.randn(8, 4).t(), m.weight, m.bias) is None              # not contiguous
        assert L._direct(ember.randn(4, 8).double(), m.weight, m.bias) is None         # mixed dtypes
        assert L._direct(ember.randn(4, 8).half(), m.weight.half(), m.bias.half()) is None
        assert L._direct(ember.randn(4, 8), m.weight, ember.zeros(4, 3)) is None       # 2-D bias
        assert L._direct(ember.randn(4, 5), m.weight, m.bias) is None                  # shapes do not fit
        with pytest.raises(RuntimeError, match="4x5 and 8x3"):
            m(ember.randn(4, 5))


class _Log(TorchDispatchMode):
    def __init__(self):
        self.calls = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.calls.append(str(func))
        return func(*args, **(kwargs or {}))


def test_modes_and_observers_still_see_the_ops():
    m = _lin(8, 3, True, ember.float32)
    x = ember.randn(2, 8)
    with ember.no_grad():
        with _Log() as mode:
            m(x)
        assert "aten.addmm.default" in mode.calls
        seen = []
        _ops.set_dispatch_observer(lambda op: seen.append(str(op)))
        try:
            assert L._direct(x, m.weight, m.bias) is None
            m(x)
        finally:
            _ops.set_dispatch_observer(None)
        assert "aten.addmm.default" in seen


@pytest.mark.parity
@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("shape,n", [((1, 16, 128), 384), ((1, 24, 128), 512), ((1, 32, 512), 128),
                                     ((1, 48, 128), 512), ((40, 128), 384), ((1, 31, 128), 128)])
def test_few_row_product_split_over_the_pool_keeps_the_bits(monkeypatch, bias, shape, n):
    # with two threads the swapped product splits by blocks of rows of w from _SWAP_SPLIT_MACS (gemm.mm_t): the
    # same bits as one thread and as the general path, torch's values
    torch = pytest.importorskip("torch")
    from ember.kernels.cpu.runtime import gemm
    m = _lin(shape[-1], n, bias, ember.float32)
    x = ember.from_numpy(RNG.standard_normal(shape).astype(np.float32))
    old = ember.get_num_threads()
    try:
        ember.set_num_threads(1)
        with ember.no_grad():
            one = F.linear(x, m.weight, m.bias).numpy()
        ember.set_num_threads(2)
        calls = []
        real = gemm.mm_t
        monkeypatch.setattr(gemm, "mm_t", lambda *a, **k: calls.append(real(*a, **k)) or calls[-1])
        with ember.no_grad():
            two = F.linear(x, m.weight, m.bias).numpy()
            ref = _general(monkeypatch, x, m.weight, m.bias).numpy()
    finally:
        ember.set_num_threads(old)
    rows = int(np.prod(shape[:-1]))
    if gemm.available() and rows * n * shape[-1] >= L._SWAP_SPLIT_MACS:
        assert calls and calls[0] is not None          # it did split
    np.testing.assert_array_equal(two, one)
    np.testing.assert_array_equal(two, ref)
    tw = torch.tensor(m.weight.detach().numpy())
    tb = torch.tensor(m.bias.detach().numpy()) if bias else None
    want = torch.nn.functional.linear(torch.tensor(x.numpy()), tw, tb).numpy()
    np.testing.assert_allclose(two, want, rtol=1e-5, atol=1e-5)
