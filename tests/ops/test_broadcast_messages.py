"""Broadcasting errors carry torch's exact messages: binary ops name the two sizes and the dim;
broadcast_shapes names the argument that does not fit the shape grown so far."""
import pytest

import ember

CASES = [
    "L.ones(2, 3) + L.ones(2, 4)",
    "L.ones(2, 3) * L.ones(4)",
    "L.ones(5, 1, 3) - L.ones(2, 4, 1)",
    "L.where(L.ones(2, 3) > 0, L.ones(3), L.ones(2, 2))",
    "L.broadcast_shapes((2, 3), (4,))",
    "L.broadcast_shapes((2, 3), (3, 2))",
    "L.broadcast_shapes((5, 1, 3), (2, 4, 1))",
    "L.broadcast_shapes((3, 1), (2, 1, 5), (4,))",
    "L.broadcast_shapes((2, 3), 5)",
    "L.ones(4, 2, 12) + L.ones(4, 4)",                  # two mismatches: torch names the last one
    "L.ones(4, 2, 12).add_(L.ones(4, 4))",
    "L.where(L.ones(3) > 0, L.ones(2), L.ones(5, 1, 1))",   # the dim counted in the pair's own rank
    "L.ones(3, 1) + L.ones(2, 4, 5)",
]


@pytest.mark.parity
@pytest.mark.parametrize("code", CASES)
def test_broadcast_error_messages_match_torch(code):
    torch = pytest.importorskip("torch")
    with pytest.raises(RuntimeError) as t:
        eval(code, {"L": torch})
    with pytest.raises(RuntimeError) as e:
        eval(code, {"L": ember})
    assert str(e.value) == str(t.value)


def test_broadcast_shapes_results_and_negative_sizes():
    assert ember.broadcast_shapes((3, 1), (2, 1, 5), (1,)) == (2, 3, 5)
    assert ember.broadcast_shapes(3, (2, 1)) == (2, 3)
    assert ember.broadcast_shapes() == ()
    with pytest.raises(ValueError, match="negative length"):
        ember.broadcast_shapes((2, -1), (2, 3))
