"""ember.testing.assert_close (torch.testing.assert_close): defaults and message."""
import pytest
import ember
from ember.testing import assert_close


def test_assert_close_defaults_and_message():
    assert_close(ember.tensor([1.0, float("nan")]), ember.tensor([1.0 + 1e-7, float("nan")]), equal_nan=True)
    with pytest.raises(AssertionError, match="dtype"):
        assert_close(ember.tensor([1.0]), ember.tensor([1.0], dtype=ember.float64))
    assert_close(ember.tensor([1.0]), ember.tensor([1.0], dtype=ember.float64), check_dtype=False)
    with pytest.raises(AssertionError, match=r"Greatest absolute difference: 0.5 at index \(1,\)"):
        assert_close(ember.tensor([1.0, 2.0, 3.0]), ember.tensor([1.0, 2.5, 3.1]))
