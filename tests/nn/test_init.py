import math
import warnings

import numpy as np
import pytest

import ember
import ember.nn as nn
from ember.nn import init


def empty(*shape, dtype=np.float32):
    return ember.tensor(np.zeros(shape, dtype))


@pytest.mark.parametrize("nl,param", [("linear", None), ("conv2d", None), ("sigmoid", None), ("tanh", None),
                                      ("relu", None), ("leaky_relu", None), ("leaky_relu", 0.2), ("selu", None),
                                      ("leaky_relu", 3)])
def test_calculate_gain_matches_torch(torch, nl, param):
    assert init.calculate_gain(nl, param) == torch.nn.init.calculate_gain(nl, param)


def test_calculate_gain_errors(torch):
    for args in [("foo",), ("leaky_relu", True), ("leaky_relu", "x")]:
        with pytest.raises(ValueError) as e1:
            init.calculate_gain(*args)
        with pytest.raises(ValueError) as e2:
            torch.nn.init.calculate_gain(*args)
        assert str(e1.value) == str(e2.value)


@pytest.mark.parametrize("shape", [(5, 3), (4, 3, 2), (6, 2, 3, 3), (3, 1, 2, 2, 2)])
def test_fans_match_torch(torch, shape):
    from torch.nn.init import _calculate_fan_in_and_fan_out as tf
    assert init._calculate_fan_in_and_fan_out(empty(*shape)) == tf(torch.empty(shape))
    with pytest.raises(ValueError, match="Fan in and fan out can not be computed"):
        init._calculate_fan_in_and_fan_out(empty(3))
    with pytest.raises(ValueError, match="Mode fan_avg not supported, please use one of"):
        init.kaiming_uniform_(empty(*shape), mode="fan_avg")


def _stats(t):
    a = t.numpy(force=True).astype(np.float64)
    return a.min(), a.max(), a.mean(), a.std()


def test_uniform_normal_constant_in_place():
    t = nn.Parameter(empty(200, 100))
    storage = t.untyped_storage()
    v = t._version
    assert init.uniform_(t, -2, 3) is t
    assert t.untyped_storage() is storage and t._version > v and t.requires_grad
    lo, hi, mean, _ = _stats(t)
    assert -2 <= lo and hi <= 3 and abs(mean - 0.5) < 0.05
    init.normal_(t, 1.0, 2.0)
    _, _, mean, std = _stats(t)
    assert abs(mean - 1) < 0.05 and abs(std - 2) < 0.05
    init.constant_(t, 0.25)
    assert (t.numpy(force=True) == 0.25).all()
    init.ones_(t)
    assert (t.numpy(force=True) == 1).all()
    init.zeros_(t)
    assert not t.numpy(force=True).any()
    assert t.grad_fn is None


def test_generator_reproducible():
    g = ember.Generator().manual_seed(3)
    a = init.normal_(empty(10), generator=g).tolist()
    b = init.normal_(empty(10), generator=ember.Generator().manual_seed(3)).tolist()
    assert a == b
    ember.manual_seed(5)
    x = init.kaiming_uniform_(empty(4, 4)).tolist()
    ember.manual_seed(5)
    assert init.kaiming_uniform_(empty(4, 4)).tolist() == x


@pytest.mark.parametrize("fn,kwargs,shape", [
    ("xavier_uniform_", {}, (300, 200)), ("xavier_uniform_", {"gain": 2.0}, (64, 32, 3, 3)),
    ("xavier_normal_", {}, (300, 200)), ("kaiming_uniform_", {"a": math.sqrt(5)}, (300, 200)),
    ("kaiming_uniform_", {"mode": "fan_out", "nonlinearity": "relu"}, (64, 32, 3, 3)),
    ("kaiming_normal_", {}, (300, 200)), ("kaiming_normal_", {"mode": "fan_out", "nonlinearity": "relu"}, (64, 32, 3)),
    ("trunc_normal_", {"mean": 0.5, "std": 0.3, "a": 0.0, "b": 1.0}, (300, 200)),
    ("trunc_normal_", {}, (300, 200)),
])
def test_distribution_matches_torch(torch, fn, kwargs, shape):
    e = getattr(init, fn)(empty(*shape), **kwargs)
    torch.manual_seed(0)
    t = getattr(torch.nn.init, fn)(torch.empty(shape), **kwargs)
    es, ts = _stats(e), np.array([t.min().item(), t.max().item(), t.mean().item(), t.std().item()])
    scale = ts[3]
    assert abs(es[2] - ts[2]) < 0.05 * scale + 1e-3
    assert abs(es[3] - ts[3]) < 0.05 * scale
    if "uniform" in fn or "trunc" in fn:
        assert abs(es[0] - ts[0]) < 0.05 * scale and abs(es[1] - ts[1]) < 0.05 * scale


def test_trunc_normal_bounds_and_warning():
    t = init.trunc_normal_(empty(1000), mean=0.0, std=1.0, a=-0.5, b=0.1)
    a = t.numpy()
    assert a.min() >= -0.5 and a.max() <= 0.1 and np.isfinite(a).all()
    with pytest.warns(UserWarning, match="mean is more than 2 std from"):
        init.trunc_normal_(empty(10), mean=10.0, std=1.0)


def test_eye_dirac(torch):
    assert init.eye_(empty(3, 5)).tolist() == torch.nn.init.eye_(torch.empty(3, 5)).tolist()
    with pytest.raises(ValueError, match="Only tensors with 2 dimensions are supported"):
        init.eye_(empty(3))
    for shape, groups in [((4, 2, 3), 1), ((6, 3, 3, 3), 2), ((2, 2, 3, 3, 3), 1)]:
        assert init.dirac_(empty(*shape), groups).tolist() == \
            torch.nn.init.dirac_(torch.empty(shape), groups).tolist()
    with pytest.raises(ValueError, match="dim 0 must be divisible by groups"):
        init.dirac_(empty(3, 2, 3), 2)


@pytest.mark.parametrize("shape", [(6, 4), (4, 6), (5, 2, 3)])
def test_orthogonal(shape):
    t = init.orthogonal_(empty(*shape), gain=2.0)
    a = t.numpy().reshape(shape[0], -1).astype(np.float64)
    if a.shape[0] <= a.shape[1]:
        np.testing.assert_allclose(a @ a.T, 4 * np.eye(a.shape[0]), atol=1e-5)
    else:
        np.testing.assert_allclose(a.T @ a, 4 * np.eye(a.shape[1]), atol=1e-5)
    with pytest.raises(ValueError, match="Only tensors with 2 or more dimensions are supported"):
        init.orthogonal_(empty(3))


def test_zero_element_warning_and_half_dtypes():
    with pytest.warns(UserWarning, match="Initializing zero-element tensors is a no-op"):
        init.kaiming_uniform_(empty(0, 3))
    for dt in (np.float16, np.float64):
        t = init.xavier_uniform_(empty(10, 10, dtype=dt))
        assert t.numpy().dtype == dt and np.abs(t.numpy()).max() > 0
    t = ember.tensor(np.zeros((4, 4), np.float32)).to(ember.bfloat16) if hasattr(ember.Tensor, "to") else None
    if t is not None:
        init.normal_(t)
        assert t.dtype is ember.bfloat16


def test_deprecated_aliases():
    with pytest.warns(FutureWarning, match="`nn.init.uniform` is now deprecated in favor of `nn.init.uniform_`"):
        init.uniform(empty(3))


@pytest.mark.parity
@pytest.mark.parametrize("name,shape", [("eye", (3, 4)), ("dirac", (4, 2, 3))])
def test_deprecated_eye_and_dirac_warn_as_torch(name, shape):
    torch = pytest.importorskip("torch")
    res = []
    for lib in (ember, torch):
        t = lib.empty(*shape)
        with pytest.warns(FutureWarning, match=f"`nn.init.{name}` is now deprecated in favor of `nn.init.{name}_`"):
            out = getattr(lib.nn.init, name)(t)
        assert out is t
        res.append(t.numpy())
    np.testing.assert_array_equal(res[0], res[1])
