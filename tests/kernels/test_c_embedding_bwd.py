"""embedding's weight gradient (embedding_dense_backward) of float32/float64 grads runs csrc/embedding_bwd.c:
each weight row's gradient the sum of its grad rows in their order from 0, torch's own bits (its serial
index_add_ loop); out-of-range indices, C off and scale_grad_by_freq / padding_idx keep their behaviour."""
import numpy as np
import pytest

import ember
from ember import _cc
from ember.kernels.cpu import embedding as E
from ember.kernels.cpu.runtime import clib

needs_cc = pytest.mark.skipif(not _cc.available(), reason="no C compiler (or EMBER_DISABLE_C set)")
CASES = [((16, 64), 65, 128), ((64,), 64, 128), ((3000,), 7, 33), ((10, 10), 1000, 1), ((4096,), 50, 256)]


@needs_cc
@pytest.mark.parity
@pytest.mark.parametrize("dt", [np.float32, np.float64])
@pytest.mark.parametrize("ishape,num,k", CASES)
@pytest.mark.parametrize("threads", [1, 2])
def test_embedding_weight_gradient_has_torchs_bits(monkeypatch, dt, ishape, num, k, threads):
    torch = pytest.importorskip("torch")
    seen = []
    real = E._c_add_rows
    monkeypatch.setattr(E, "_c_add_rows", lambda *a: seen.append(real(*a)) or seen[-1])
    old, told = ember.get_num_threads(), torch.get_num_threads()
    ember.set_num_threads(threads)
    torch.set_num_threads(threads)
    try:
        rng = np.random.default_rng(0)
        idx = rng.integers(0, num, ishape)
        go = rng.standard_normal(ishape + (k,)).astype(dt)
        go.reshape(-1, k)[::7] = -0.0
        grads = []
        for lib in (ember, torch):
            w = lib.tensor(rng.standard_normal((num, k)).astype(dt), requires_grad=True)
            lib.nn.functional.embedding(lib.tensor(idx), w).backward(lib.tensor(go))
            grads.append(w.grad.numpy())
        assert grads[0].dtype == grads[1].dtype
        np.testing.assert_array_equal(grads[0].view(np.uint8), grads[1].view(np.uint8))
        assert seen == [True]
    finally:
        ember.set_num_threads(old)
        torch.set_num_threads(told)


@needs_cc
def test_out_of_range_writes_nothing_and_other_paths():
    gw = np.zeros((5, 3), np.float32)
    assert not E._c_add_rows(gw, np.array([0, 5], np.int64), np.ones((2, 3), np.float32))
    assert not gw.any()
    assert not E._c_add_rows(gw, np.array([-1], np.int64), np.ones((1, 3), np.float32))
    assert not gw.any()
    idx = ember.tensor([[1, 2, 1, 0]])
    go = ember.ones(1, 4, 3)
    with clib.use_c(False):
        off = ember.ops.aten.embedding_dense_backward(go, idx, 4, -1, False).numpy()
    on = ember.ops.aten.embedding_dense_backward(go, idx, 4, -1, False).numpy()
    np.testing.assert_array_equal(on, off)
    np.testing.assert_array_equal(on, [[1, 1, 1], [2, 2, 2], [1, 1, 1], [0, 0, 0]])
    pad = ember.ops.aten.embedding_dense_backward(go, idx, 4, 1, True).numpy()     # padding row 0, counts
    np.testing.assert_array_equal(pad, [[1, 1, 1], [0, 0, 0], [1, 1, 1], [0, 0, 0]])
