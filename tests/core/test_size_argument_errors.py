"""torch's TypeErrors for non-int sizes in int[] arguments (reshape, view, expand, repeat, new_*, zeros, empty,
sum's dims...): the parser checks a list's first element ("found element of type float at pos 0"), packs
`*size` arguments only when the first is an int ("takes 1 positional argument but 2 were given"), and fails
later elements when it unpacks the list ("failed to unpack the object at pos 2"), for one overload or several."""
import numpy as np
import pytest

import ember

CALLS = {
    "reshape(24, 1.0)": lambda L, x: x.reshape(24, 1.0),
    "reshape(24.0)": lambda L, x: x.reshape(24.0),
    "reshape((24, 1.0))": lambda L, x: x.reshape((24, 1.0)),
    "reshape([2.5, 2])": lambda L, x: x.reshape([2.5, 2]),
    "reshape(2., 12)": lambda L, x: x.reshape(2., 12),
    "reshape(24, 1, 2.)": lambda L, x: x.reshape(24, 1, 2.),
    "reshape(24, np.float64)": lambda L, x: x.reshape(24, np.float64(1)),
    "reshape(np.int64, 1.)": lambda L, x: x.reshape(np.int64(24), 1.),
    "reshape(float tensor)": lambda L, x: x.reshape(L.tensor(24.)),
    "reshape(24, float tensor)": lambda L, x: x.reshape(24, L.tensor(1.)),
    "reshape(shape=(24, 1.))": lambda L, x: x.reshape(shape=(24, 1.)),
    "reshape(shape=(2., 12))": lambda L, x: x.reshape(shape=(2., 12)),
    "torch.reshape(x, (2., 12))": lambda L, x: L.reshape(x, (2., 12)),
    "torch.reshape(x, 2.)": lambda L, x: L.reshape(x, 2.),
    "view(24, 1.0)": lambda L, x: x.view(24, 1.0),
    "view((24, 1.0))": lambda L, x: x.view((24, 1.0)),
    "view(24, 'a')": lambda L, x: x.view(24, "a"),
    "expand(2, 24.)": lambda L, x: x.expand(2, 24.),
    "expand((2., 24))": lambda L, x: x.expand((2., 24)),
    "expand(1, 24, None)": lambda L, x: x.expand(1, 24, None),
    "repeat(2., 1)": lambda L, x: x.repeat(2., 1),
    "repeat((2, 1.))": lambda L, x: x.repeat((2, 1.)),
    "permute(0, 1.)": lambda L, x: x.view(2, 12).permute(0, 1.),
    "new_zeros(2., 3)": lambda L, x: x.new_zeros(2., 3),
    "new_zeros((2, 3.))": lambda L, x: x.new_zeros((2, 3.)),
    "new_empty((2.,))": lambda L, x: x.new_empty((2.,)),
    "new_full((2, 3.), 1)": lambda L, x: x.new_full((2, 3.), 1),
    "zeros(2., 3)": lambda L, x: L.zeros(2., 3),
    "zeros((2., 3))": lambda L, x: L.zeros((2., 3)),
    "zeros([2, 3.])": lambda L, x: L.zeros([2, 3.]),
    "zeros(size=(2, 3.))": lambda L, x: L.zeros(size=(2, 3.)),
    "zeros(2., dtype=)": lambda L, x: L.zeros(2., dtype=L.float64),
    "ones(2, 3.5)": lambda L, x: L.ones(2, 3.5),
    "empty(2., 3)": lambda L, x: L.empty(2., 3),
    "empty((2, 3.))": lambda L, x: L.empty((2, 3.)),
    "empty_strided((2, 3.), (3, 1))": lambda L, x: L.empty_strided((2, 3.), (3, 1)),
    "randn(2, 3.)": lambda L, x: L.randn(2, 3.),
    "sum((0, 1.))": lambda L, x: x.view(2, 12).sum((0, 1.)),
    "flip((0, 1.))": lambda L, x: x.view(2, 12).flip((0, 1.)),
    "tile((2.,))": lambda L, x: x.tile((2.,)),
    "broadcast_to((2., 24))": lambda L, x: x.broadcast_to((2., 24)),
}


def _error(L, call):
    try:
        CALLS[call](L, L.zeros(24))
    except TypeError as e:
        return str(e).replace("ember.", "torch.")
    return None


@pytest.mark.parity
@pytest.mark.parametrize("call", sorted(CALLS))
def test_non_int_size_errors_like_torch(call):
    torch = pytest.importorskip("torch")
    want = _error(torch, call)
    assert want is not None
    assert _error(ember, call) == want


# torch's parser takes a bool or a one-element integral tensor anywhere after the first element of an int[] list
# (it tests the first element only, and unpacks the others as any index), and an integral one-element tensor
# first too; a bool first is refused, a one-element bool tensor fails in item<int64_t>().
ACCEPTED = {
    "reshape(24, True)": lambda L, x: x.reshape(24, True),
    "reshape((24, True))": lambda L, x: x.reshape((24, True)),
    "reshape(tensor([24]), 1)": lambda L, x: x.reshape(L.tensor([24]), 1),
    "reshape(24, tensor([1]))": lambda L, x: x.reshape(24, L.tensor([1])),
    "reshape((24, tensor([1])))": lambda L, x: x.reshape((24, L.tensor([1]))),
    "torch.reshape(x, (24, True))": lambda L, x: L.reshape(x, (24, True)),
    "view(24, True)": lambda L, x: x.view(24, True),
    "view(24, tensor([1]))": lambda L, x: x.view(24, L.tensor([1])),
    "expand(2, 24, True)": lambda L, x: x.view(24, 1).expand(2, 24, True),
    "expand(24, tensor([1]))": lambda L, x: x.view(24, 1).expand(24, L.tensor([1])),
    "zeros(2, True)": lambda L, x: L.zeros(2, True),
    "zeros((2, True))": lambda L, x: L.zeros((2, True)),
    "zeros(2, tensor([3]))": lambda L, x: L.zeros(2, L.tensor([3])),
    "zeros(tensor([3]), 2)": lambda L, x: L.zeros(L.tensor([3]), 2),
    "empty(2, True)": lambda L, x: L.empty(2, True),
    "ones(2, True)": lambda L, x: L.ones(2, True),
    "rand(2, True)": lambda L, x: L.rand(2, True),
    "full((2, True), 1.)": lambda L, x: L.full((2, True), 1.),
    "new_zeros(2, True)": lambda L, x: x.new_zeros(2, True),
    "new_zeros((2, True))": lambda L, x: x.new_zeros((2, True)),
    "new_empty(2, tensor([3]))": lambda L, x: x.new_empty(2, L.tensor([3])),
    "new_full((2, True), 1.)": lambda L, x: x.new_full((2, True), 1.),
    "repeat(2, True)": lambda L, x: x.repeat(2, True),
    "permute(0, True)": lambda L, x: x.view(2, 12).permute(0, True),
    "tile((2, True))": lambda L, x: x.tile((2, True)),
    "broadcast_to((2, True))": lambda L, x: L.zeros(1).broadcast_to((2, True)),
    # refused
    "new_ones((True, 2))": lambda L, x: x.new_ones((True, 2)),
    "zeros(True, 2)": lambda L, x: L.zeros(True, 2),
    "reshape(24, tensor([1.]))": lambda L, x: x.reshape(24, L.tensor([1.])),
    "reshape(24, tensor([1, 1]))": lambda L, x: x.reshape(24, L.tensor([1, 1])),
    "reshape(24, tensor([True]))": lambda L, x: x.reshape(24, L.tensor([True])),
    "zeros(2, np.bool_(True))": lambda L, x: L.zeros(2, np.bool_(True)),
}


def _outcome(L, call):
    try:
        r = ACCEPTED[call](L, L.zeros(24))
    except (TypeError, RuntimeError) as e:
        return type(e).__name__, str(e).replace("ember.", "torch.")
    return tuple(r.shape), [type(s).__name__ for s in r.shape], r.stride()


@pytest.mark.parity
@pytest.mark.parametrize("call", sorted(ACCEPTED))
def test_bool_and_tensor_sizes_like_torch(call):
    torch = pytest.importorskip("torch")
    assert _outcome(ember, call) == _outcome(torch, call)
