"""torch.where with out= and a number for input or other: only where.self has an out form, so torch refuses the
number ("argument 'other' (position 3) must be Tensor, not float"); without out= the Scalar overloads take it."""
import pytest

import ember

CALLS = {
    "other number, out": lambda L, x: L.where(x > 1, x, 0., out=L.empty(4)),
    "input number, out": lambda L, x: L.where(x > 1, 0., x, out=L.empty(4)),
    "both numbers, out": lambda L, x: L.where(x > 1, 1., 0., out=L.empty(4)),
    "tensors, out": lambda L, x: L.where(x > 1, x, L.tensor(0.), out=L.empty(4)),
    "other number": lambda L, x: L.where(x > 1, x, 0.),
    "both numbers": lambda L, x: L.where(x > 1, 1, 0.),
    # torch's parser lists all five signatures, the Number ones annotated, and counts at most 3 positionals
    "str other": lambda L, x: L.where(x > 1, x, "a"),
    "str input": lambda L, x: L.where(x > 1, "a", x),
    "str both": lambda L, x: L.where(x > 1, "a", "b"),
    "str condition": lambda L, x: L.where("a", x, x),
    "two arguments": lambda L, x: L.where(x > 1, x),
    "four arguments": lambda L, x: L.where(x > 1, x, x, x),
    "four with numbers": lambda L, x: L.where(x > 1, x, 1, 2),
}


def _run(L, call):
    try:
        return CALLS[call](L, L.arange(4.)).tolist()
    except TypeError as e:
        return str(e)


@pytest.mark.parity
@pytest.mark.parametrize("call", sorted(CALLS))
def test_where_numbers_with_out_like_torch(call):
    torch = pytest.importorskip("torch")
    assert _run(ember, call) == _run(torch, call)
