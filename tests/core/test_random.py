"""Random ops: reproducible from ember.manual_seed and explicit Generators; rough statistics; meta."""
import numpy as np
import pytest

import ember

FACTORIES = [
    lambda **k: ember.rand(200, **k),
    lambda **k: ember.randn(200, **k),
    lambda **k: ember.randint(0, 100, (200,), **k),
    lambda **k: ember.randint(100, (200,), **k),
    lambda **k: ember.randperm(200, **k),
    lambda **k: ember.rand_like(ember.zeros(200), **k),
    lambda **k: ember.randn_like(ember.zeros(200), **k),
    lambda **k: ember.randint_like(ember.zeros(200), 100, **k),
    lambda **k: ember.zeros(200).normal_(**k),
    lambda **k: ember.zeros(200).uniform_(**k),
    lambda **k: ember.zeros(200).random_(0, 100, **k),
    lambda **k: ember.zeros(200).random_(**k),
    lambda **k: ember.zeros(200).bernoulli_(0.5, **k),
    lambda **k: ember.bernoulli(ember.full((200,), 0.5), **k),
]


@pytest.mark.parametrize("make", FACTORIES)
def test_manual_seed_reproducible(make):
    ember.manual_seed(123)
    a = make().numpy().copy()
    ember.manual_seed(123)
    b = make().numpy().copy()
    ember.manual_seed(124)
    c = make().numpy().copy()
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)


@pytest.mark.parametrize("make", FACTORIES)
def test_explicit_generator(make):
    g1 = ember.Generator().manual_seed(7)
    g2 = ember.Generator().manual_seed(7)
    a = make(generator=g1).numpy().copy()
    ember.rand(5)   # the default generator's use does not disturb explicit ones
    b = make(generator=g2).numpy().copy()
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, make(generator=g1).numpy())


def test_statistics():
    ember.manual_seed(0)
    u = ember.rand(100000).numpy()
    assert u.min() >= 0 and u.max() < 1 and abs(u.mean() - 0.5) < 0.01
    n = ember.randn(100000).numpy()
    assert abs(n.mean()) < 0.02 and abs(n.std() - 1) < 0.02
    x = ember.empty(100000).normal_(3, 2).numpy()
    assert abs(x.mean() - 3) < 0.05 and abs(x.std() - 2) < 0.05
    x = ember.empty(100000).uniform_(-2, 4).numpy()
    assert x.min() >= -2 and x.max() < 4 and abs(x.mean() - 1) < 0.05
    r = ember.randint(3, 7, (10000,)).numpy()
    assert set(np.unique(r)) == {3, 4, 5, 6}
    assert sorted(ember.randperm(50).numpy().tolist()) == list(range(50))
    b = ember.empty(100000).bernoulli_(0.3).numpy()
    assert set(np.unique(b)) <= {0, 1} and abs(b.mean() - 0.3) < 0.01
    ri = ember.zeros(10000, dtype=ember.int64).random_(5).numpy()
    assert ri.min() == 0 and ri.max() == 4


def test_dtypes():
    assert ember.rand(2).dtype is ember.float32
    assert ember.rand(2, dtype=ember.float64).dtype is ember.float64
    assert ember.randint(5, (2,)).dtype is ember.int64
    assert ember.randint(5, (2,), dtype=ember.int32).dtype is ember.int32
    assert ember.randperm(3).dtype is ember.int64
    assert ember.randint_like(ember.zeros(2, dtype=ember.int32), 5).dtype is ember.int32


def test_errors_and_inplace_unchanged():
    with pytest.raises(NotImplementedError):
        ember.rand(2, dtype=ember.int64)
    with pytest.raises(RuntimeError, match="from=5 >= to=5"):
        ember.randint(5, 5, (2,))
    x = ember.ones(3)
    with pytest.raises(RuntimeError, match="found from=1 > to=0"):
        x.uniform_(1, 0)
    with pytest.raises(RuntimeError):
        x.normal_(0, -1)
    with pytest.raises(RuntimeError):
        x.bernoulli_(1.5)
    assert x.numpy().tolist() == [1, 1, 1]


@pytest.mark.parametrize("make", FACTORIES[:5])
def test_meta(make):
    c, m = make(), make(device="meta")
    assert m.device.type == "meta" and (m.shape, m.dtype, m.stride()) == (c.shape, c.dtype, c.stride())


def test_inplace_on_meta_and_views():
    m = ember.empty(3, 4, device="meta")
    assert m.normal_() is m and m.uniform_() is m
    x = ember.empty_strided((4, 4), (1, 4))   # non-contiguous target
    x.uniform_(5, 6)
    assert (x.numpy() >= 5).all() and x.stride() == (1, 4)


@pytest.mark.parity
def test_parity_dtypes_shapes():
    torch = pytest.importorskip("torch")
    cases = [("rand", (2, 3), {}), ("randn", (4,), {"dtype": "float64"}), ("randperm", (5,), {}),
             ("randint", (3, 9, (2, 2)), {}), ("randint", (9, (3,)), {"dtype": "int16"})]
    for name, args, kw in cases:
        args = args if isinstance(args[-1], tuple) or name != "rand" and name != "randn" else args
        e = getattr(ember, name)(*args, **{k: getattr(ember, v) for k, v in kw.items()})
        t = getattr(torch, name)(*args, **{k: getattr(torch, v) for k, v in kw.items()})
        assert e.shape == tuple(t.shape) and e.stride() == t.stride() and e.dtype.name == str(t.dtype)[6:]
