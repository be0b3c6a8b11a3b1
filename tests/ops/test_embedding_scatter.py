"""The row scatter-add of embedding backward, embedding_bag and index_add (kernels/cpu/index.py:
sort + np.add.reduceat) against np.add.at in float64."""
import numpy as np
import pytest

import ember
from ember.kernels.cpu import index
from ember.kernels.cpu.index import add_rows as _scatter_add_rows


@pytest.fixture(params=[1, index.MIN_ROWS], ids=['fast-path-always', 'default'])
def min_rows(request, monkeypatch):
    monkeypatch.setattr(index, 'MIN_ROWS', request.param)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
@pytest.mark.parametrize("n,v", [(0, 3), (1, 3), (2, 1), (7, 3), (1024, 65), (1000, 1000)])
def test_matches_add_at(dtype, n, v, min_rows):
    rng = np.random.default_rng(n + v)
    idx = rng.integers(0, v, n)
    go = rng.standard_normal((n, 5)).astype(dtype)
    ref = np.zeros((v, 5))
    np.add.at(ref, idx, go.astype(np.float64))
    gw = np.zeros((v, 5), dtype)
    _scatter_add_rows(gw, idx, go)
    tol = {np.float16: 1e-2, np.float32: 1e-5, np.float64: 1e-13}[dtype]
    np.testing.assert_allclose(gw, ref, rtol=tol, atol=tol)
    assert (gw[np.setdiff1d(np.arange(v), idx)] == 0).all()


def test_signed_zero_and_special_values(min_rows):
    go = np.array([[-0.0], [-0.0], [1.0], [np.inf], [np.nan], [2.0]], np.float32)
    idx = np.array([0, 0, 1, 2, 3, 3])
    gw = np.zeros((4, 1), np.float32)
    _scatter_add_rows(gw, idx, go)
    assert gw[0, 0] == 0 and not np.signbit(gw[0, 0]) and gw[1, 0] == 1 and gw[2, 0] == np.inf and np.isnan(gw[3, 0])


def test_out_of_range_index_still_raises(min_rows):
    gw = np.zeros((3, 2), np.float32)
    with pytest.raises(IndexError):
        _scatter_add_rows(gw, np.array([0, 5]), np.ones((2, 2), np.float32))
    assert (gw == 0).all()


def test_adds_to_what_is_there_and_negative_indices_alias(min_rows):
    v = np.arange(12, dtype=np.float64).reshape(4, 3)
    ref = v.copy()
    idx = np.array([3, -1, 0, 3, 1, -4])
    s = np.random.default_rng(3).standard_normal((6, 3))
    np.add.at(ref, idx, s)
    _scatter_add_rows(v, idx, s)
    np.testing.assert_allclose(v, ref, rtol=1e-13)


@pytest.mark.parity
def test_embedding_grad_matches_torch():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    w = rng.standard_normal((65, 16)).astype(np.float32)
    idx = rng.integers(0, 65, (16, 64))
    g = rng.standard_normal((16, 64, 16)).astype(np.float32)
    ew = ember.tensor(w, requires_grad=True)
    ember.nn.functional.embedding(ember.tensor(idx), ew).backward(ember.tensor(g))
    tw = torch.tensor(w, requires_grad=True)
    torch.nn.functional.embedding(torch.tensor(idx), tw).backward(torch.tensor(g))
    np.testing.assert_allclose(ew.grad.numpy(), tw.grad.numpy(), rtol=1e-5, atol=1e-5)
