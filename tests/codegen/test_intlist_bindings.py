"""An unsized int[] argument takes a list or tuple only; a sized one (int[2] stride) also takes a
lone int, which it repeats: torch's python_arg_parser rule, compared call by call with torch."""
import pytest

import ember

CALLS = [
    "L.flip(L.ones(2, 3), 0)",                                                         # int[] dims
    "L.flip(L.ones(2, 3), [0])",
    "L.nn.functional.ctc_loss(L.randn(5, 2, 4).log_softmax(2), L.ones(2, 3, dtype=L.long), 5, 3)",
    "L.nn.functional.ctc_loss(L.randn(5, 2, 4).log_softmax(2), L.ones(2, 3, dtype=L.long), [5, 5], [3, 3])",
    "L.ones(2, 3).sum(1)",                                                             # int[1]? dim
    "L.nn.functional.conv2d(L.ones(1, 1, 4, 4), L.ones(1, 1, 2, 2), stride=2)",          # SymInt[2]
    "L.roll(L.arange(4), 1, 0)",                                                       # int[1] shifts, dims
    "L.ones(2, 3).permute(1, 0)",                                                      # varargs
    "L.ones(2, 3).flip(1)",
    "L.tile(L.ones(2), 3)",
]


@pytest.mark.parity
@pytest.mark.parametrize("code", CALLS)
def test_int_list_arguments_bind_like_torch(code):
    torch = pytest.importorskip("torch")
    outcome = []
    for lib in (torch, ember):
        try:
            r = eval(code, {"L": lib})
            outcome.append(("ok", tuple(r.shape)))
        except TypeError as e:
            outcome.append(("TypeError", str(e).split("\n")[0]))
    assert outcome[0] == outcome[1]


# torch's Python signature spells the C++ default `{}` of an `int[1] dim=[]` parameter as None, so None binds
# there and means the default (every dim for amax/amin/hash_tensor, no dims for roll, stride=kernel for pools);
# a None for a list parameter without that default stays a TypeError
NONE_FOR_EMPTY_LIST = [
    "L.amax(X, dim=None)",
    "L.amax(X, None, True)",
    "L.amin(X, dim=None, keepdim=True)",
    "X.amax(None)",
    "X.amin(dim=None)",
    "L.amax(X, dim=None, out=L.empty(()))",
    "L.hash_tensor(X, dim=None)",
    "L.hash_tensor(X, None, keepdim=True)",
    "X.hash_tensor(dim=None)",
    "L.roll(X, 1, None)",
    "X.roll(1, dims=None)",
    "L.max_pool1d(X[None], 2, None)",
    "L.avg_pool1d(X[None], 2, None)",
    "L.nn.functional.max_pool2d(X[None], 2, None)",
    "L.nn.functional.avg_pool2d(X[None], 2, None)",
    "L.logsumexp(X, None)",
    "L.tile(X, None)",
]


@pytest.mark.parity
@pytest.mark.parametrize("code", NONE_FOR_EMPTY_LIST)
def test_none_binds_the_empty_list_default_like_torch(code):
    torch = pytest.importorskip("torch")
    import numpy as np
    x = np.arange(12, dtype=np.float32).reshape(3, 4) - 5.5
    outcome = []
    for lib in (torch, ember):
        try:
            r = eval(code, {"L": lib, "X": lib.tensor(x)})
            outcome.append(("ok", tuple(r.shape), str(r.dtype).split(".")[1], r.numpy().tolist()))
        except TypeError as e:
            outcome.append(("TypeError", str(e).split("\n")[0].split("(")[0]))
    assert outcome[0] == outcome[1]
