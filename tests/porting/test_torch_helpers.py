"""torch-level helpers scripts call outside any op: the constants (pi, e, inf, nan, newaxis), unravel_index,
typename, the tensor predicates (is_nonzero, is_same_size, is_signed, is_inference, isreal), the in-place
function spellings (clamp_min_, negative_, dropout_, ...), set_warn_always, set_anomaly_enabled and the
deprecated set_default_tensor_type; each compared with what real torch returns or raises."""
import math
import warnings

import numpy as np
import pytest

import ember
from _porting import outcome, torch_fixture  # noqa: F401  (the `torch` fixture)


def _plain(v):
    if isinstance(v, tuple):
        return tuple(_plain(x) for x in v)
    if hasattr(v, "numpy"):
        return (str(v.dtype).split(".")[-1], v.numpy().tolist())
    return v


def _same(torch, fn):
    got, want = outcome(lambda: _plain(fn(ember))), outcome(lambda: _plain(fn(torch)))
    if got[0] == "raise":
        got = got[:2] + (got[2].replace("ember.", "torch."),)
    assert got == want


@pytest.mark.parity
def test_constants_match_torch(torch):
    for n in ("pi", "e", "inf"):
        assert getattr(ember, n) == getattr(torch, n)
    assert math.isnan(ember.nan) and ember.newaxis is torch.newaxis is None
    assert ember.ones(3)[ember.newaxis].shape == (1, 3)


UNRAVEL = [
    lambda t: t.unravel_index(t.tensor([4, 7, 0]), (2, 4)),
    lambda t: t.unravel_index(t.tensor(5), 10),
    lambda t: t.unravel_index(t.tensor([[3, 11], [0, 23]], dtype=t.int32), t.Size([2, 3, 4])),
    lambda t: t.unravel_index(t.tensor([-1, 25]), (2, 3, 4)),
    lambda t: t.unravel_index(t.tensor([1.0]), (2,)),
    lambda t: t.unravel_index(t.tensor([True]), (2,)),
    lambda t: t.unravel_index(t.tensor([1]), (2, -1)),
    lambda t: t.unravel_index(t.tensor([1]), (2.0,)),
    lambda t: t.unravel_index(t.tensor([1]), 2.0),
]


@pytest.mark.parity
@pytest.mark.parametrize("i", range(len(UNRAVEL)))
def test_unravel_index_matches_torch(torch, i):
    _same(torch, UNRAVEL[i])


PREDICATES = [
    lambda t: t.is_nonzero(t.tensor([0.5])),
    lambda t: t.is_nonzero(t.tensor(0)),
    lambda t: t.tensor([[False]]).is_nonzero(),
    lambda t: t.is_nonzero(t.ones(2)),
    lambda t: t.is_nonzero(t.ones(0)),
    lambda t: t.is_same_size(t.ones(2), t.ones(2, 1)),
    lambda t: t.ones(2, 3).is_same_size(t.zeros(2, 3)),
    lambda t: t.is_same_size(t.ones(1), 3),
    lambda t: [t.is_signed(t.ones(1, dtype=d)) for d in (t.uint8, t.int8, t.bool, t.float16, t.complex64)],
    lambda t: t.is_signed(3),
    lambda t: t.is_inference(t.ones(1)),
    lambda t: t.isreal(t.tensor([1 + 0j, 1j, -2 - 0j])),
    lambda t: t.isreal(t.tensor([1.0, float("nan")])),
    lambda t: t.tensor([1, 2]).isreal(),
]


@pytest.mark.parity
@pytest.mark.parametrize("i", range(len(PREDICATES)))
def test_predicates_match_torch(torch, i):
    _same(torch, PREDICATES[i])


@pytest.mark.parity
def test_is_inference_inside_inference_mode(torch):
    for t in (ember, torch):
        with t.inference_mode():
            x = t.ones(2)
        assert t.is_inference(x) and not t.is_inference(t.ones(2))


@pytest.mark.parity
def test_typename_matches_torch(torch):
    assert ember.typename(ember.ones(2, dtype=ember.float64)) == "ember.DoubleTensor"
    assert torch.typename(torch.ones(2, dtype=torch.float64)) == "torch.DoubleTensor"
    for obj in (3, "s", None, len, np.float32):
        assert ember.typename(obj) == torch.typename(obj)
    assert ember.typename(ember.nn.Linear(1, 1)) == "ember.nn.modules.linear.Linear"
    assert torch.typename(torch.nn.Linear(1, 1)) == "torch.nn.modules.linear.Linear"


INPLACE = [
    ("clamp_min_", (0.1,)), ("clamp_max_", (0.1,)), ("negative_", ()), ("fix_", ()), ("i0_", ()), ("sinc_", ()),
]


@pytest.mark.parity
@pytest.mark.parametrize("name,args", INPLACE)
def test_in_place_functions_match_torch(torch, name, args):
    data = np.array([-1.7, -0.2, 0.0, 0.3, 2.5], dtype=np.float32)
    res = []
    for t in (ember, torch):
        x = t.tensor(data)
        r = getattr(t, name)(x, *args)
        assert r is x
        y = t.tensor(data)
        assert getattr(y, name)(*args) is y
        res.append((x.numpy(), y.numpy()))
    np.testing.assert_allclose(res[0][0], res[1][0], rtol=1e-6)
    np.testing.assert_allclose(res[0][1], res[1][1], rtol=1e-6)


@pytest.mark.parity
def test_clamp_min_max_tensor_overloads_and_gradients_match_torch(torch):
    data = np.array([-1.5, 0.0, 0.5, 2.0])
    bound = np.array([0.0, 0.5, 0.5, 1.0])
    res = []
    for t in (ember, torch):
        a = t.tensor(data, requires_grad=True)
        x = a * 1
        t.clamp_min_(x, t.tensor(bound))
        x.clamp_max_(1.5)
        (x * t.arange(4.0)).sum().backward()
        res.append((x.detach().numpy(), a.grad.numpy()))
    np.testing.assert_allclose(res[0][0], res[1][0])
    np.testing.assert_allclose(res[0][1], res[1][1])


@pytest.mark.parity
@pytest.mark.parametrize("name", ["dropout_", "feature_dropout_", "alpha_dropout_", "feature_alpha_dropout_"])
def test_in_place_dropouts_match_torch(torch, name):
    for t in (ember, torch):
        x = t.ones(4, 3, 2)
        assert getattr(t, name)(x, 0.5, False) is x and bool((x == 1).all())      # eval: untouched
        assert getattr(t, name)(x, 0.0, True) is x and bool((x == 1).all())
        out = getattr(t, name)(x, 1.0, True)
        assert out is x
        vals = set(np.round(x.numpy().ravel(), 5).tolist())
        assert vals == set(np.round(getattr(t, name[:-1])(t.ones(4, 3, 2), 1.0, True).numpy().ravel(), 5).tolist())
        with pytest.raises(RuntimeError, match="dropout probability has to be between 0 and 1, but got 1.5"):
            getattr(t, name)(t.ones(2, 2), 1.5, True)


def test_dropout_in_place_keeps_the_expected_mean():
    ember.manual_seed(0)
    x = ember.ones(200, 200)
    ember.dropout_(x, 0.25, True)
    kept = x.numpy() != 0
    assert abs(kept.mean() - 0.75) < 0.01
    np.testing.assert_allclose(x.numpy()[kept], 1 / 0.75, rtol=1e-6)


@pytest.mark.parity
def test_detach_function_matches_torch(torch):
    for t in (ember, torch):
        a = t.ones(2, requires_grad=True)
        b = a * 2
        assert t.detach_(b) is b and not b.requires_grad and b.grad_fn is None


@pytest.mark.parity
def test_warn_always_flag_matches_torch(torch):
    for t in (ember, torch):
        assert t.is_warn_always_enabled() is False
        try:
            t.set_warn_always(True)
            assert t.is_warn_always_enabled() is True
        finally:
            t.set_warn_always(False)
    _same(torch, lambda t: t.set_warn_always(1))


@pytest.mark.parity
def test_set_anomaly_enabled_matches_torch(torch):
    for t in (ember, torch):
        try:
            t.set_anomaly_enabled(True)
            assert t.is_anomaly_enabled() and t.is_anomaly_check_nan_enabled()
            t.set_anomaly_enabled(True, False)
            assert not t.is_anomaly_check_nan_enabled()
        finally:
            t.set_anomaly_enabled(False)
        assert not t.is_anomaly_enabled()
    _same(torch, lambda t: t.set_anomaly_enabled(1))


@pytest.mark.parity
def test_set_default_tensor_type_matches_torch(torch):
    for t in (ember, torch):
        try:
            with pytest.warns(UserWarning, match=r"set_default_tensor_type\(\) is deprecated as of PyTorch 2.1"):
                t.set_default_tensor_type(t.DoubleTensor)
            assert t.get_default_dtype() == t.float64 and t.tensor([1.0]).dtype == t.float64
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                t.set_default_tensor_type("torch.FloatTensor")
                assert t.get_default_dtype() == t.float32
                for bad in (t.LongTensor, 3, t.float64):
                    with pytest.raises(TypeError, match="only floating-point types are supported as the default"):
                        t.set_default_tensor_type(bad)
        finally:
            t.set_default_dtype(t.float32)


SMALL = [
    lambda t: t.positive(t.tensor([1.0, -2.0])),
    lambda t: t.tensor([3, -1]).positive(),
    lambda t: t.positive(t.tensor([True])),
    lambda t: t.dist(t.ones(3), t.tensor([0.0, 2.0, 4.0])),
    lambda t: t.dist(t.ones(2, 3), t.zeros(3), 1),
    lambda t: t.ones(3).dist(t.arange(3.0), float("inf")),
    lambda t: t.ones(3).dist(t.arange(3.0), 0),
    lambda t: t.dist(t.ones(2, dtype=t.long), t.ones(2, dtype=t.long)),
    lambda t: t.real(t.tensor([1 + 2j, 3 - 1j])),
    lambda t: t.real(t.tensor([1.5])),
    lambda t: t.imag(t.tensor([1 + 2j, 3 - 1j])),
    lambda t: t.imag(t.tensor([1.5])),
    lambda t: t.get_device(t.ones(2)),
    lambda t: t.is_storage(t.ones(2).untyped_storage()),
    lambda t: t.is_storage(t.ones(2)),
    lambda t: t.unsafe_split(t.arange(5), 2),
    lambda t: t.arange(6).unsafe_split_with_sizes([1, 5]),
    lambda t: t.unsafe_chunk(t.arange(5), 3),
]


@pytest.mark.parity
@pytest.mark.parametrize("i", range(len(SMALL)))
def test_small_torch_functions_match_torch(torch, i):
    _same(torch, SMALL[i])


@pytest.mark.parity
def test_dist_gradients_match_torch(torch):
    data = np.array([[0.5, -1.0, 2.0], [1.5, 0.0, -0.5]])
    res = []
    for t in (ember, torch):
        a = t.tensor(data, requires_grad=True)
        for p in (2, 1, 3.5):
            a.grad = None
            t.dist(a, t.tensor(data[::-1].copy()), p).backward()
            res.append(a.grad.numpy())
    for e, w in zip(res[:3], res[3:]):
        np.testing.assert_allclose(e, w, rtol=1e-12)


@pytest.mark.parity
@pytest.mark.parametrize("arg", [None, "cpu", "cuda", "cuda:0", "meta", "banana", 3])
def test_get_device_module_matches_torch(torch, arg):
    got = []
    for L in (torch, ember):
        res = outcome(lambda: L.get_device_module(L.device(arg) if arg == "cuda:0" else arg))
        got.append((res[0], res[1].__name__.split(".", 1)[-1]) if res[0] == "ok" else
                   (res[0], res[1], res[2].replace("torch", "T").replace("ember", "T")))
    assert got[0] == got[1]


@pytest.mark.parity
def test_top_level_gradscaler_and_vulkan_answer_as_torch(torch):
    got = []
    for L in (torch, ember):
        s = L.GradScaler("cpu", init_scale=4.0)
        got.append((L.GradScaler is L.amp.GradScaler, s.get_scale(), L.is_vulkan_available()))
    assert got[0] == got[1]


@pytest.mark.parity
@pytest.mark.parametrize("args,kwargs", [
    ((1, 4), {}), ((1, 4, 0.5), {}), ((0, 1, 0.1), {}), ((1, 4), {"dtype": "int64"}), ((4, 1, -1), {}),
    ((1, 4, 0), {}), ((1, 4, -1), {}), ((4,), {}), ((1.5, 4.2), {"dtype": "int32"}), ((-2.5, 1.0, 0.75), {}),
    ((0, 1, 0.3), {"dtype": "float64", "requires_grad": True}), ((1, 4), {"device": "meta"}),
])
def test_deprecated_range_matches_torch(torch, args, kwargs):
    got = []
    for L in (torch, ember):
        kw = {k: getattr(L, v) if k == "dtype" else v for k, v in kwargs.items()}
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            res = outcome(lambda: L.range(*args, **kw))
        if res[0] == "ok":
            r = res[1]
            res = ("ok", str(r.dtype).split(".")[1], tuple(r.shape), r.requires_grad,
                   None if r.is_meta else r.tolist())
        got.append((res, [(c.category, str(c.message)) for c in w]))
    assert got[0] == got[1]


@pytest.mark.parity
def test_deprecated_range_out_matches_torch(torch):
    got = []
    for L in (torch, ember):
        out = L.empty(2, dtype=L.float64)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = L.range(1, 3, 0.5, out=out)
        got.append((r is out, out.tolist(), str(out.dtype).split(".")[1]))
    assert got[0] == got[1]
