"""Reductions vs torch: values, dtypes, shapes, strides, errors; meta agrees with cpu."""
import numpy as np
import pytest

import ember

DTYPES = ["float32", "float64", "float16", "int64", "int32", "uint8", "bool"]
SHAPES = [(2, 3, 4), (5,), (), (0, 3), (3, 0)]

CASES = [
    ("sum", (), {}), ("sum", (0,), {}), ("sum", (-1,), {"keepdim": True}), ("sum", ((0, 2),), {}),
    ("sum", (None,), {}), ("sum", ((),), {}), ("sum", (), {"dtype": "float64"}), ("sum", ((0, 0),), {}),
    ("sum", (1,), {"dtype": "int32"}),
    ("mean", (), {}), ("mean", (1,), {"keepdim": True}), ("mean", ((0, -1),), {}), ("mean", (), {"dtype": "float64"}),
    ("prod", (), {}), ("prod", (0,), {}), ("prod", (-1,), {"keepdim": True}),
    ("amax", (), {}), ("amax", (0,), {}), ("amax", ((0, 1),), {"keepdim": True}),
    ("amin", (), {}), ("amin", (-1,), {}),
    ("max", (), {}), ("max", (0,), {}), ("max", (-1,), {"keepdim": True}),
    ("min", (), {}), ("min", (1,), {}),
    ("argmax", (), {}), ("argmax", (0,), {}), ("argmax", (), {"keepdim": True}), ("argmax", (-1,), {"keepdim": True}),
    ("argmin", (), {}), ("argmin", (1,), {}),
    ("all", (), {}), ("all", (0,), {}), ("all", ((0, 1),), {"keepdim": True}), ("any", (), {}), ("any", (-1,), {}),
    ("any", (None,), {}),
]


@pytest.fixture(scope="module")
def torch():
    return pytest.importorskip("torch")


def _data(shape, dtype):
    rng = np.random.default_rng(abs(hash((shape, dtype))) % 2 ** 32)
    if dtype == "bool":
        return np.asarray(rng.random(shape) < 0.7)
    if dtype in ("uint8",):
        return rng.integers(0, 4, shape).astype(dtype)
    if dtype.startswith("int"):
        return rng.integers(-4, 5, shape).astype(dtype)
    return np.asarray(rng.integers(-8, 9, shape) / 4, dtype=dtype)


def _conv(mod, kw):
    return {k: getattr(mod, v) if k == "dtype" else v for k, v in kw.items()}


def _run(fn):
    try:
        return fn(), None
    except Exception as e:   # noqa: BLE001
        return None, type(e)


def _flat(r):
    return list(r) if isinstance(r, tuple) else [r]


@pytest.mark.parity
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0]}{c[1]}{c[2]}")
def test_parity(torch, case, dtype, shape):
    name, args, kw = case
    a = _data(shape, dtype)
    t_res, t_err = _run(lambda: getattr(torch.from_numpy(a.copy()), name)(*args, **_conv(torch, kw)))
    x = ember.from_numpy(a.copy())
    e_res, e_err = _run(lambda: getattr(x, name)(*args, **_conv(ember, kw)))
    m_res, m_err = _run(lambda: getattr(ember.empty(shape, dtype=x.dtype, device="meta"), name)(*args, **_conv(ember, kw)))
    if t_err is not None:
        assert e_err is t_err, f"torch raised {t_err.__name__}, ember {e_err}"
        assert m_err is t_err
        return
    assert e_err is None and m_err is None, (e_err, m_err)
    assert type(e_res) is not tuple or e_res._fields == t_res._fields
    for e, t, m in zip(_flat(e_res), _flat(t_res), _flat(m_res)):
        assert e.shape == tuple(t.shape) == m.shape
        assert e.dtype.name == str(t.dtype)[6:] == m.dtype.name
        assert e.stride() == t.stride() == m.stride()
        assert m.device.type == "meta"
        np.testing.assert_allclose(e.numpy().astype(np.float64), t.numpy().astype(np.float64), rtol=2e-3, equal_nan=True)


@pytest.mark.parity
@pytest.mark.parametrize("name", ["sum", "mean", "amax", "amin", "max", "min", "argmax", "argmin", "prod"])
def test_parity_noncontiguous_and_nan(torch, name):
    a = np.array([[1.0, np.nan, 3.0], [4.0, 5.0, -1.0], [0.5, 2.0, 2.0]], np.float32)
    for arr in (a, a.T, a[:, ::2]):
        for args in ((), (0,), (1,)):
            t = getattr(torch.from_numpy(arr.copy()), name)(*args)
            e = getattr(ember.from_numpy(arr), name)(*args)
            for ee, tt in zip(_flat(e), _flat(t)):
                assert ee.shape == tuple(tt.shape) and ee.stride() == tt.stride()
                np.testing.assert_allclose(ee.numpy(), tt.numpy(), rtol=1e-6, equal_nan=True)


def test_errors():
    with pytest.raises(RuntimeError, match=r"mean\(\): could not infer output dtype.*Got: Long"):
        ember.tensor([1, 2]).mean()
    with pytest.raises(IndexError, match=r"max\(\): Expected reduction dim 0 to have non-zero size"):
        ember.zeros(0, 3).max(0)
    with pytest.raises(RuntimeError, match=r"Expected reduction dim to be specified for input.numel\(\) == 0"):
        ember.zeros(0, 3).amax()
    with pytest.raises(IndexError, match="Dimension out of range"):
        ember.zeros(2).sum(2)
    with pytest.raises(RuntimeError, match="dim 0 appears multiple times"):
        ember.zeros(2, 2).sum((0, -2))
    assert ember.zeros(0, 3).sum().item() == 0


def test_named_tuple_and_function_forms():
    x = ember.tensor([[1.0, 5.0], [7.0, 2.0]])
    r = ember.max(x, 1)
    assert r.values.numpy().tolist() == [5, 7] and r.indices.numpy().tolist() == [1, 0]
    v, i = x.min(dim=0, keepdim=True)
    assert v.shape == (1, 2) and i.dtype is ember.int64
    assert ember.sum(x, dim=[0, 1]).item() == 15
    assert ember.tensor([True, True]).sum().dtype is ember.int64
    assert ember.tensor([1.0, float("nan")]).max().item() != ember.tensor([1.0, float("nan")]).max().item()


@pytest.mark.parity
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("values", [[1.0, 5.0, 5.0, 2.0], [-0.0, 0.0], [0.0, -0.0], [-1.0, -0.0, 0.0, -0.0],
                                    [1.0, float("nan"), 3.0], [float("-inf"), float("-inf")], [float("inf"), 1.0],
                                    [-3.5], [2.0, -7.0, 0.5, -7.0, 2.0]])
def test_full_max_min_of_a_row_match_torch_bits(values, dtype):
    """max()/min() of a 1-d float tensor (the argmax/argmin path): torch's value to the bit, signed zeros
    included (torch keeps the last of equal zeros), NaN when there is one."""
    torch = pytest.importorskip("torch")
    x = np.array(values, dtype=dtype)
    for name in ("max", "min"):
        e = getattr(ember.tensor(x), name)()
        t = getattr(torch.tensor(x), name)()
        assert e.dtype == getattr(ember, dtype) and tuple(e.shape) == () and e.is_contiguous()
        if np.isnan(t.item()):
            assert np.isnan(e.item())
        else:
            assert e.numpy().tobytes() == t.numpy().tobytes(), (name, values)
        e.add_(1.0)         # a fresh result: writing it leaves the input alone
    np.testing.assert_array_equal(ember.tensor(x).numpy(), x)
    # a row view at an offset, with grad: the value and the gradient (evenly split among equal extrema)
    base = np.stack([x[::-1], x]).astype(dtype)
    for lib in (ember, torch):
        b = lib.tensor(base, requires_grad=True)
        y = b[1].max()
        if not np.isnan(y.item()):
            y.backward()
        if lib is ember:
            eg = None if b.grad is None else b.grad.numpy().copy()
            ey = y.item()
        else:
            tg = None if b.grad is None else b.grad.numpy().copy()
            ty = y.item()
    assert (np.isnan(ey) and np.isnan(ty)) or ey == ty
    if tg is not None:
        np.testing.assert_array_equal(eg, tg)
