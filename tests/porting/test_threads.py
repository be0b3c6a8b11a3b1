"""set_num_threads / get_num_threads size ember's kernel thread pool and numpy's OpenBLAS; the checks
and messages are torch's."""
import numpy as np
import pytest

import ember
from ember.kernels.cpu.runtime import blas, pool
from _porting import torch_fixture  # noqa: F401  (the `torch` fixture)


def test_set_num_threads_sizes_the_pool_and_blas():
    before = ember.get_num_threads()
    try:
        ember.set_num_threads(1)
        assert ember.get_num_threads() == 1 and pool._pool()._max_workers == 1
        if blas.available():
            assert blas.get_num_threads() == 1
        x, w = ember.randn(4, 8, 32, 32), ember.randn(16, 8, 3, 3)
        one = ember.nn.functional.conv2d(x, w).numpy()
        ember.set_num_threads(2)
        assert ember.get_num_threads() == 2 and pool._pool()._max_workers == 2
        if blas.available():        # OpenBLAS follows, unless ember splits its gemms itself (held at one thread)
            assert blas.get_num_threads() == (1 if blas.held() else 2)
        np.testing.assert_allclose(ember.nn.functional.conv2d(x, w).numpy(), one, rtol=1e-5, atol=1e-5)
    finally:
        ember.set_num_threads(before)


@pytest.mark.parity
@pytest.mark.parametrize("value", [0, -1, 1.5, "2"])
def test_bad_thread_counts_raise_like_torch(torch, value):
    with pytest.raises(RuntimeError) as want:
        torch.set_num_threads(value)
    with pytest.raises(RuntimeError) as got:
        ember.set_num_threads(value)
    assert str(got.value) == str(want.value)


def test_interop_threads_are_recorded():
    ember.set_num_interop_threads(1)
    assert ember.get_num_interop_threads() == 1
    with pytest.raises(RuntimeError):
        ember.set_num_interop_threads(0)


def test_default_thread_count_is_counted_once(monkeypatch):
    """Without set_num_threads the pool's size is one thread per core, at most 8, counted once: os.cpu_count()
    reads /sys on every call (~20 us), and every split-capable gemm asks get_num_threads() twice."""
    import os
    calls = []
    real = os.cpu_count
    monkeypatch.setattr(os, "cpu_count", lambda: calls.append(1) or real())
    monkeypatch.setattr(pool, "_NUM_THREADS", [None])
    monkeypatch.setattr(pool, "_DEFAULT_THREADS", [])
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)     # these size it as they size torch's
    monkeypatch.delenv("MKL_NUM_THREADS", raising=False)
    assert [pool.get_num_threads() for _ in range(5)] == [max(1, min(real() or 1, 8))] * 5
    assert len(calls) == 1
