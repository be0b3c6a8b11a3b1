"""Deprecated torch.testing.assert_allclose (ember.testing.assert_allclose) against torch: tolerances, NaN, dtypes."""
import warnings

import pytest

import ember

torch = pytest.importorskip("torch")

CASES = [
    # (actual, expected, kwargs, dtype of actual)
    ([1.0, 2.0], [1.00005, 2.0], {}, "float32"),            # inside float32's (1e-4, 1e-5)
    ([1.0, 2.0], [1.0005, 2.0], {}, "float32"),             # outside
    ([1.0, 2.0], [1.000005, 2.0], {}, "float64"),           # inside float64's (1e-5, 1e-8)
    ([1.0, 2.0], [1.00005, 2.0], {}, "float64"),            # outside
    ([1.0, float("nan")], [1.0, float("nan")], {}, "float32"),             # NaNs equal by default
    ([1.0, float("nan")], [1.0, float("nan")], {"equal_nan": False}, "float32"),
    ([1, 2], [1, 3], {}, "int64"),                          # exact for integers
    ([1.0, 2.0], [1.1, 2.0], {"rtol": 0.2, "atol": 0.0}, "float32"),
    ([1.0, 2.0], [1.1, 2.0], {"msg": "custom"}, "float32"),
]


def _outcome(lib, actual, expected, kw, dtype, expected_as_tensor):
    a = lib.tensor(actual, dtype=getattr(lib, dtype))
    e = lib.tensor(expected, dtype=lib.float64) if expected_as_tensor else expected
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        try:
            lib.testing.assert_allclose(a, e, **kw)
            ok = True
        except AssertionError as err:
            ok = ("custom" in str(err)) if kw.get("msg") else False
    assert [x.category for x in w] == [FutureWarning]
    assert "assert_allclose()` is deprecated" in str(w[0].message)
    return ok


@pytest.mark.parity
@pytest.mark.parametrize("case", range(len(CASES)))
@pytest.mark.parametrize("expected_as_tensor", [False, True])
def test_outcome_matches_torch(case, expected_as_tensor):
    actual, expected, kw, dtype = CASES[case]
    assert _outcome(ember, actual, expected, kw, dtype, expected_as_tensor) == \
        _outcome(torch, actual, expected, kw, dtype, expected_as_tensor)


@pytest.mark.parity
def test_plain_python_inputs_and_shape_mismatch():
    for lib in (ember, torch):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            lib.testing.assert_allclose(1.0, 1.0)
            lib.testing.assert_allclose([1.0, 2.0], (1.0, 2.0))
            with pytest.raises(AssertionError, match="shape"):
                lib.testing.assert_allclose(lib.zeros(2), lib.zeros(3))
