"""index family ops checked directly against torch where the op database's generic samples do not reach:
masked_fill's result dtype, layout and ownership for scalar and 0-dim tensor values."""
import numpy as np
import pytest

import ember

RNG = np.random.default_rng(11)


@pytest.mark.parity
@pytest.mark.parametrize("dt", [np.float32, np.float64, np.int64])
@pytest.mark.parametrize("value", [float("-inf"), float("nan"), 3, "tensor64", "tensor32"])
@pytest.mark.parametrize("shapes", [((1, 4, 5, 5), (5, 5)), ((3, 4), (3, 4)), ((4,), (2, 4)), ((2, 3), ()),
                                    ((2, 3, 4), (4,)), ((2, 3, 4), (1, 4))])
def test_masked_fill_matches_torch(dt, value, shapes):
    torch = pytest.importorskip("torch")
    xs, ms = shapes
    x = (RNG.standard_normal(xs) * 5).astype(dt)
    m = np.asarray(RNG.standard_normal(ms) > 0)
    if dt == np.int64 and isinstance(value, float):
        value = -7
    if isinstance(value, str):
        v = np.array(2.5, np.float64 if value == "tensor64" else np.float32)
        ve, vt = ember.from_numpy(v.copy()), torch.from_numpy(v.copy())
    else:
        ve = vt = value
    xe = ember.from_numpy(x.copy())
    out = xe.masked_fill(ember.from_numpy(m.copy()), ve)
    ref = torch.from_numpy(x.copy()).masked_fill(torch.from_numpy(m.copy()), vt)
    assert tuple(out.shape) == tuple(ref.shape) and str(out.dtype) == str(ref.dtype).replace("torch", "ember")
    assert out.is_contiguous() and out.stride() == ref.stride()
    np.testing.assert_array_equal(out.numpy(), ref.numpy())
    out.view(-1)[0] = 1       # a fresh result: writing it leaves the input alone
    np.testing.assert_array_equal(xe.numpy(), x)


def test_masked_fill_of_a_transposed_input_is_contiguous():
    x = ember.randn(4, 3).t()
    m = ember.tensor([True, False, True, False])
    out = x.masked_fill(m, 0.0)
    assert out.is_contiguous() and out.stride() == (4, 1)
    np.testing.assert_array_equal(out.numpy(), np.where(m.numpy(), 0.0, x.numpy()).astype(np.float32))
