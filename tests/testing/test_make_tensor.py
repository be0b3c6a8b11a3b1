"""torch.testing.make_tensor (ember.testing.make_tensor) against torch: ranges, layout, flags and errors."""
import warnings

import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64",
          "complex64", "complex128", "float8_e4m3fn", "float8_e5m2"]


def _make(lib, *shape, dtype, **kw):
    return lib.testing.make_tensor(*shape, dtype=getattr(lib, dtype), device="cpu", **kw)


def _values(t):
    t = t.detach()
    if t.dtype.is_complex:
        t = lib_view_as_real(t)
    if t.dtype.is_floating_point:
        t = t.float()
    return t.numpy()


def lib_view_as_real(t):
    return (ember if isinstance(t, ember.Tensor) else torch).view_as_real(t)


def _describe(t):
    return (str(t.dtype).split(".")[-1], tuple(t.shape), tuple(t.stride()), t.is_contiguous(), t.requires_grad)


@pytest.mark.parity
@pytest.mark.parametrize("dtype", DTYPES)
def test_default_range_and_layout_match_torch(dtype):
    e, t = _make(ember, 40, 50, dtype=dtype), _make(torch, 40, 50, dtype=dtype)
    assert _describe(e) == _describe(t)
    ev, tv = _values(e), _values(t)
    # both draw from the same interval: same bounds hold, and the sample covers it alike
    assert ev.min() >= min(tv.min(), 0 if dtype == "bool" else -9) and ev.max() <= max(tv.max(), 9)
    lo, hi = {"bool": (0, 1), "uint8": (0, 9)}.get(dtype, (-9, 9))
    assert lo <= ev.min() <= lo + 1 and hi - 1 <= ev.max() <= hi


@pytest.mark.parity
@pytest.mark.parametrize("dtype", ["int8", "float32", "complex64", "int64"])
def test_low_high_clamping_and_rounding(dtype):
    for kw in ({"low": -2.5, "high": 3.5}, {"low": 0, "high": 1}, {"low": -1e30, "high": 2}):
        e, t = _make(ember, 200, dtype=dtype, **kw), _make(torch, 200, dtype=dtype, **kw)
        ev, tv = _values(e), _values(t)
        assert _describe(e) == _describe(t)
        if dtype.startswith("int"):
            # integer bounds are clamped to the dtype, then ceiled: [-2.5, 3.5) -> {-2, ..., 3}
            lo = int(np.ceil(max(kw["low"], np.iinfo(dtype).min)))
            hi = int(np.ceil(kw["high"]))
            for v in (ev, tv):
                assert int(v.min()) >= lo and int(v.max()) < hi
        else:
            assert ev.min() >= kw["low"] and ev.max() < kw["high"]


@pytest.mark.parity
@pytest.mark.parametrize("dtype", ["float32", "int32", "complex128", "bool"])
def test_noncontiguous_memory_format_requires_grad(dtype):
    for shape, kw in [((3, 4), {"noncontiguous": True}), ((1,), {"noncontiguous": True}),
                      ((2, 3, 4, 5), {"memory_format": "channels_last"}), ((2, 3), {"requires_grad": True})]:
        if kw.get("requires_grad") and dtype in ("int32", "bool"):
            continue
        kws = [{k: (getattr(lib, v) if k == "memory_format" else v) for k, v in kw.items()} for lib in (ember, torch)]
        e, t = _make(ember, shape, dtype=dtype, **kws[0]), _make(torch, shape, dtype=dtype, **kws[1])
        assert _describe(e) == _describe(t)
        assert e.is_leaf


@pytest.mark.parity
def test_exclude_zero():
    for dtype, repl in [("int32", 1), ("bool", 1), ("float32", float(np.finfo(np.float32).tiny)),
                        ("complex64", complex(np.finfo(np.float32).tiny, np.finfo(np.float32).tiny))]:
        for lib in (ember, torch):
            t = _make(lib, 500, dtype=dtype, low=0, high=1 if dtype != "bool" else 1, exclude_zero=True) \
                if dtype in ("int32", "bool") else _make(lib, 500, dtype=dtype, exclude_zero=True)
            v = t.numpy()
            assert not (v == 0).any()
            if dtype in ("int32", "bool"):
                assert (v == repl).all()                 # [0, 1) holds only zero: every value replaced


def _error(lib, *shape, dtype, **kw):
    with pytest.raises((ValueError, TypeError)) as e:
        _make(lib, *shape, dtype=dtype, **kw)
    return e.type, str(e.value).replace("torch.", "").replace("ember.", "")


@pytest.mark.parity
def test_errors_match_torch():
    cases = [
        (("int64",), {"requires_grad": True}),
        (("bool",), {"requires_grad": True}),
        (("float32",), {"low": 2, "high": 1}),
        (("int8",), {"low": 3, "high": 3}),
        (("float32",), {"low": float("nan")}),
        (("uint8",), {"low": -20, "high": -10}),
        (("int8",), {"low": 200, "high": 300}),
        (("float32",), {"noncontiguous": True, "memory_format": "contiguous_format"}),
    ]
    for (dtype,), kw in cases:
        kws = [{k: (getattr(lib, v) if k == "memory_format" else v) for k, v in kw.items()} for lib in (ember, torch)]
        assert _error(ember, 3, dtype=dtype, **kws[0]) == _error(torch, 3, dtype=dtype, **kws[1])


@pytest.mark.parity
def test_low_equal_high_warns_for_floats():
    for lib in (ember, torch):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            t = _make(lib, 4, dtype="float64", low=2.0, high=2.0)
        assert [x.category for x in w] == [FutureWarning]
        assert (t.numpy() == 2.0).all()
