"""ember.tensor's dtype inference from Python data holding numpy scalars: each leaf has a dtype (a numpy
scalar keeps its own) and the result is their promotion, as torch.tensor does."""
import numpy as np
import pytest

import ember

CASES = [np.float64(1.5), np.float32(1.5), np.int32(3), np.uint8(7), np.bool_(True), np.float16(1), np.complex64(1 + 2j),
         [np.float64(1.5), np.float64(2)], [np.float32(1.5), 2.0], [np.int32(1), 2], [np.int32(1), np.int32(2)],
         [np.bool_(True), False], [1, np.float64(2.0)], [np.float64(1.0), np.float32(2.0)], [True, 1], [1, 1j],
         [[np.int16(1), np.int16(2)], [np.int16(3), np.int8(4)]], []]


@pytest.mark.parametrize("data", CASES, ids=repr)
def test_numpy_scalars_keep_their_dtype(data):
    t = ember.tensor(data)
    expect = np.asarray(data).dtype if not isinstance(data, list) or not data else None
    if expect is not None and not isinstance(data, list):
        assert t.dtype == ember._core.dtype.from_numpy_dtype(expect)
    np.testing.assert_array_equal(t.numpy(), np.asarray(data, dtype=t.numpy().dtype))


@pytest.mark.parity
@pytest.mark.parametrize("data", CASES, ids=repr)
def test_dtype_matches_torch(data):
    torch = pytest.importorskip("torch")
    assert str(ember.tensor(data).dtype).split(".")[-1] == str(torch.tensor(data).dtype).split(".")[-1]


@pytest.mark.parity
def test_default_dtype_float64_matches_torch():
    torch = pytest.importorskip("torch")
    old_e, old_t = ember.get_default_dtype(), torch.get_default_dtype()
    ember.set_default_dtype(ember.float64)
    torch.set_default_dtype(torch.float64)
    try:
        for data in ([np.float32(1), 2.0], [1, 1j], 2.5):
            assert str(ember.tensor(data).dtype).split(".")[-1] == str(torch.tensor(data).dtype).split(".")[-1]
    finally:
        ember.set_default_dtype(old_e)
        torch.set_default_dtype(old_t)


_ODD_DATA = [[None], None, [1, None], ["a"], [[1, 2], [3, "a"]], [object()], {1: 2}, {1, 2}, [[1, 2], [3]],
             [1, [2]], [[1], 2], [1.5, [2]], [[1.5], 2], [[1, 2], [3, 4, 5]], [[[1, 2]], [[3]]],
             [(1, 2), [3, 4, 5]], [[], [1]], [[1], []], [1, "a"], [b"x"]]


@pytest.mark.parity
@pytest.mark.parametrize("i", range(len(_ODD_DATA)))
def test_tensor_of_ragged_or_odd_data_raises_as_torch(i):
    """tensor() of ragged or non-numeric Python data: torch's exception type and message (tensor_new.cpp's
    compute_sizes / infer_scalar_type / recursive_store), not numpy's "inhomogeneous shape"; data holding
    no element ([[], [1]]) is an empty tensor of the first elements' shape."""
    torch = pytest.importorskip("torch")

    def run(L):
        try:
            r = L.tensor(_ODD_DATA[i])
        except Exception as e:      # noqa: BLE001 - the exception type and message are what is compared
            return type(e).__name__, str(e)
        return "ok", tuple(r.shape), str(r.dtype).split(".")[-1]
    assert run(ember) == run(torch)
