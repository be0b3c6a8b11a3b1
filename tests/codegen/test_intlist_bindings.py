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
