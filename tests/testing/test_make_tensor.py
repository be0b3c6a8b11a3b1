"""torch.testing.make_tensor and the deprecated assert_allclose against torch: dtypes, shapes, value ranges (for
any draw), contiguity, requires_grad, exclude_zero, and the argument errors and warnings."""
import warnings

import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.parity

_DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64",
           "complex64", "complex128"]


def _facts(L, t, low, high):
    v = t.detach()
    parts = [v.real, v.imag] if v.is_complex() else [v]
    arrs = [p.double().numpy() if p.dtype != L.bool else p.numpy().astype(float) for p in parts]
    in_range = all(bool(np.all((a >= low) & (a < high))) if low is not None else True for a in arrs)
    return (str(t.dtype).split(".")[1], tuple(t.shape), t.is_contiguous(), t.requires_grad, in_range)


@pytest.mark.parametrize("dtype", _DTYPES)
@pytest.mark.parametrize("kwargs", [{}, {"low": -2, "high": 3}, {"noncontiguous": True},
                                    {"exclude_zero": True, "low": 0, "high": 2}],
                         ids=["defaults", "range", "noncontiguous", "exclude-zero"])
def test_make_tensor_matches_torch(dtype, kwargs):
    got = []
    for L in (torch, ember):
        t = L.testing.make_tensor((40, 25), dtype=getattr(L, dtype), device="cpu", **kwargs)
        low = kwargs.get("low", 0 if dtype in ("bool", "uint8") else -9)
        high = kwargs.get("high", 2 if dtype == "bool" else 10)
        facts = _facts(L, t, low, high)
        if kwargs.get("exclude_zero"):
            facts += (bool((t != 0).all()),)
        if dtype not in ("bool",):
            facts += (len(np.unique(t.detach().double().numpy() if not t.is_complex() else t.numpy())) > 1,)
        got.append(facts)
    assert got[0] == got[1]


def test_make_tensor_forms_and_requires_grad_match_torch():
    got = []
    for L in (torch, ember):
        a = L.testing.make_tensor(2, 3, dtype=L.float32, device="cpu", requires_grad=True)
        b = L.testing.make_tensor([4], dtype=L.int64, device="cpu")
        c = L.testing.make_tensor((), dtype=L.float64, device="cpu", low=1, high=1.5)
        d = L.testing.make_tensor((3,), dtype=L.uint8, device="cpu", low=-100, high=300)
        got.append([(tuple(t.shape), t.requires_grad, t.is_leaf) for t in (a, b, c)] +
                   [bool(((d >= 0) & (d <= 255)).all()), 1 <= c.item() < 1.5])
    assert got[0] == got[1]


@pytest.mark.parametrize("kwargs", [
    {"dtype": "int32", "requires_grad": True}, {"dtype": "float32", "low": 3, "high": 2},
    {"dtype": "float32", "low": float("nan")}, {"dtype": "int8", "low": 200, "high": 300},
    {"dtype": "float32", "noncontiguous": True, "memory_format": "contiguous_format"},
    {"dtype": "float32", "low": 1.0, "high": 1.0},
], ids=["int-grad", "order", "nan", "outside", "exclusive", "low-eq-high"])
def test_make_tensor_errors_and_warnings_match_torch(kwargs):
    got = []
    for L in (torch, ember):
        kw = dict(kwargs, dtype=getattr(L, kwargs["dtype"]))
        if "memory_format" in kw:
            kw["memory_format"] = getattr(L, kw["memory_format"])
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            try:
                L.testing.make_tensor((2, 2), device="cpu", **kw)
                res = "ok"
            except ValueError as e:
                res = str(e).replace("torch.", "").replace("ember.", "")
        got.append((res, [(c.category, str(c.message)) for c in w]))
    assert got[0] == got[1]


@pytest.mark.parametrize("actual,expected,kwargs", [
    ([1.0, 2.0], [1.0, 2.00001], {}), ([1.0, 2.0], [1.0, 2.01], {}), ([1.0, float("nan")], [1.0, float("nan")], {}),
    ([1.0, 2.0], [1.0, 2.1], {"rtol": 0.1, "atol": 0}), ([1, 2], [1.0, 2.0], {}),
], ids=["close", "far", "nan", "tolerance", "dtypes"])
def test_assert_allclose_matches_torch(actual, expected, kwargs):
    got = []
    for L in (torch, ember):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            try:
                L.testing.assert_allclose(L.tensor(actual), expected, **kwargs)
                res = "ok"
            except AssertionError:
                res = "AssertionError"
        got.append((res, [(c.category, str(c.message)) for c in w]))
    assert got[0] == got[1]
