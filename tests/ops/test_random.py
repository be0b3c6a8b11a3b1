"""Random ops: distribution statistics, reproducibility from ember.manual_seed and explicit Generators,
meta shapes, and torch's errors. Streams differ from torch's by design."""
import warnings

import numpy as np
import pytest

import ember

N = 200_000


def test_normal_overloads_statistics_and_shapes():
    ember.manual_seed(0)
    x = ember.normal(2.0, 3.0, (N,))
    assert x.dtype == ember.float32 and abs(x.mean().item() - 2) < 0.05 and abs(x.std().item() - 3) < 0.05
    m = ember.tensor([0., 10., -5.])
    y = ember.normal(m.expand(N, 3), 0.5)
    np.testing.assert_allclose(y.numpy().mean(0), [0, 10, -5], atol=0.02)
    z = ember.normal(0.0, ember.tensor([1., 4.], dtype=ember.float64).expand(N, 2))
    assert z.dtype == ember.float64
    np.testing.assert_allclose(z.numpy().std(0), [1, 4], rtol=0.02)
    assert ember.normal(ember.zeros(2, 3), ember.ones(3)).shape == (2, 3)
    out = ember.empty(0)
    assert ember.normal(ember.zeros(4), ember.ones(4), out=out) is out and out.shape == (4,)
    assert ember.normal(0., 1., (2, 2), dtype=ember.float64).dtype == ember.float64


def test_multinomial_statistics():
    ember.manual_seed(1)
    p = ember.tensor([[0.2, 0.0, 0.8], [1.0, 1.0, 2.0]])
    s = ember.multinomial(p, 50_000, replacement=True)
    assert s.shape == (2, 50_000) and s.dtype == ember.int64
    counts = np.stack([np.bincount(r, minlength=3) for r in s.numpy()]) / 50_000
    np.testing.assert_allclose(counts, [[0.2, 0.0, 0.8], [0.25, 0.25, 0.5]], atol=0.01)
    w = ember.multinomial(ember.ones(1000, 5), 5)               # without replacement: permutations
    assert (np.sort(w.numpy(), -1) == np.arange(5)).all()
    first = np.bincount(ember.multinomial(ember.tensor([1., 3.]).expand(20_000, 2), 1).numpy()[:, 0], minlength=2)
    np.testing.assert_allclose(first / 20_000, [0.25, 0.75], atol=0.015)
    assert ember.multinomial(ember.tensor([1., 0., 0.]), 2).tolist()[0] == 0


@pytest.mark.parametrize("name,args,mean,var", [
    ("exponential_", (2.0,), 0.5, 0.25), ("geometric_", (0.25,), 4.0, 12.0),
    ("log_normal_", (0.0, 0.5), np.exp(0.125), (np.exp(0.25) - 1) * np.exp(0.25)),
])
def test_inplace_distributions(name, args, mean, var):
    ember.manual_seed(2)
    x = ember.empty(N, dtype=ember.float64)
    assert getattr(x, name)(*args) is x
    a = x.numpy()
    assert abs(a.mean() - mean) < 0.02 * max(1, mean) and abs(a.var() - var) < 0.05 * max(1, var)


def test_cauchy_and_poisson():
    ember.manual_seed(3)
    c = ember.empty(N).cauchy_(1.0, 2.0).numpy()
    assert abs(np.median(c) - 1.0) < 0.05 and abs(np.percentile(c, 75) - 3.0) < 0.1
    rates = ember.tensor([0.5, 4.0, 30.0]).expand(N, 3)
    p = ember.poisson(rates)
    assert p.dtype == ember.float32
    np.testing.assert_allclose(p.numpy().mean(0), [0.5, 4, 30], rtol=0.02)
    assert (p.numpy() == np.round(p.numpy())).all()


@pytest.mark.parametrize("fn", [
    lambda g: ember.normal(ember.zeros(5), 1.0, generator=g),
    lambda g: ember.normal(0.0, 1.0, (5,), generator=g),
    lambda g: ember.multinomial(ember.ones(3, 6), 4, generator=g),
    lambda g: ember.multinomial(ember.ones(6), 9, True, generator=g),
    lambda g: ember.empty(5).exponential_(generator=g),
    lambda g: ember.empty(5).geometric_(0.5, generator=g),
    lambda g: ember.empty(5).log_normal_(generator=g),
    lambda g: ember.empty(5).cauchy_(generator=g),
    lambda g: ember.poisson(ember.ones(5), generator=g),
])
def test_reproducible(fn):
    ember.manual_seed(7)
    a = fn(None).numpy()
    ember.manual_seed(7)
    b = fn(None).numpy()
    np.testing.assert_array_equal(a, b)
    g = ember.Generator().manual_seed(11)
    c = fn(g).numpy()
    g.manual_seed(11)
    np.testing.assert_array_equal(c, fn(g).numpy())
    assert not np.array_equal(fn(g).numpy(), c) or c.size == 0 or fn is None


def test_meta():
    m = ember.empty(4, 3, device="meta")
    assert ember.normal(m, 1.0).device.type == "meta"
    assert ember.normal(0.0, 1.0, (2, 3), device="meta").shape == (2, 3)
    assert ember.multinomial(m, 2).shape == (4, 2)
    for op in ("exponential_", "log_normal_", "cauchy_"):
        assert getattr(m, op)() is m
    assert m.geometric_(0.5) is m
    assert ember.poisson(m).shape == (4, 3)


ERRORS = {
    "normal_neg_std": lambda m: m.normal(0., -1., (2,)),
    "normal_tensor_neg_std": lambda m: m.normal(m.zeros(2), m.tensor([1., -1.])),
    "normal_tf_neg": lambda m: m.normal(m.zeros(2), -1.),
    "normal_shapes": lambda m: m.normal(m.zeros(2), m.ones(3)),
    "normal_int_mean": lambda m: m.normal(m.zeros(2, dtype=m.int64), 1.),
    "normal_ff_int": lambda m: m.normal(0., 1., (2,), dtype=m.int64),
    "mn_3d": lambda m: m.multinomial(m.ones(2, 2, 2), 1),
    "mn_too_many": lambda m: m.multinomial(m.ones(3), 4),
    "mn_neg": lambda m: m.multinomial(m.tensor([1., -1.]), 1),
    "mn_zero": lambda m: m.multinomial(m.zeros(3), 1),
    "mn_int": lambda m: m.multinomial(m.ones(3, dtype=m.int64), 1),
    "mn_n0": lambda m: m.multinomial(m.ones(3), 0),
    "exp_lam0": lambda m: m.ones(2).exponential_(0),
    "exp_int": lambda m: m.ones(2, dtype=m.int64).exponential_(),
    "geo_p1": lambda m: m.ones(2).geometric_(1),
    "lognormal_std0": lambda m: m.ones(2).log_normal_(1, 0),
    "lognormal_int": lambda m: m.ones(2, dtype=m.int64).log_normal_(),
    "cauchy_int": lambda m: m.ones(2, dtype=m.int64).cauchy_(),
    "cauchy_sigma0": lambda m: m.ones(2).cauchy_(0, 0),
    "poisson_neg": lambda m: m.poisson(m.tensor([-1.])),
    "poisson_int": lambda m: m.poisson(m.tensor([1])),
}


@pytest.mark.parity
@pytest.mark.parametrize("name", list(ERRORS))
def test_error_matches_torch(name):
    torch = pytest.importorskip("torch")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(Exception) as te:
            ERRORS[name](torch)
        with pytest.raises(Exception) as ee:
            ERRORS[name](ember)
    assert type(ee.value) is type(te.value), (ee.value, te.value)
    assert str(ee.value).splitlines()[0] == str(te.value).splitlines()[0]


def test_failed_inplace_leaves_self_unchanged():
    x = ember.ones(3)
    for f in (lambda: x.exponential_(-1), lambda: x.geometric_(2), lambda: x.log_normal_(0, -1), lambda: x.cauchy_(0, 0)):
        with pytest.raises(RuntimeError):
            f()
        assert x.tolist() == [1., 1., 1.]
