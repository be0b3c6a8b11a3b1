"""Broadcasting errors as torch words them: "The size of tensor a (3) must match the size of tensor b (4) at
non-singleton dimension 1" (the dimension counted in the right-aligned broadcast shape) for out-of-place ops,
and "output with shape [..] doesn't match the broadcast shape [..]" for in-place ones."""
import pytest

import ember

from _porting import outcome, torch_fixture  # noqa: F401  (the `torch` fixture)

pytestmark = pytest.mark.parity

SHAPES = [((3,), (4,)), ((2, 3), (4,)), ((2, 3, 1), (5, 4)), ((5, 2, 3), (7, 1, 3)), ((2, 3), (2, 4)),
          ((4, 3, 2), (3, 3)), ((1, 3), (4, 1)), ((3,), (2, 3)), ((6, 1, 5), (2, 5))]

OPS = {
    "add": lambda L, a, b: a + b,
    "mul": lambda L, a, b: L.mul(a, b),
    "add_": lambda L, a, b: a.add_(b),
    "mul_": lambda L, a, b: a.mul_(b),
    "sub_alpha_": lambda L, a, b: a.sub_(b, alpha=2),
    "where": lambda L, a, b: L.where(a > 0, a, b),
    "addcmul": lambda L, a, b: L.addcmul(a, a, b),
    "lerp_": lambda L, a, b: a.lerp_(b, 0.5),
    "copy_": lambda L, a, b: a.copy_(b),
    "broadcast_tensors": lambda L, a, b: L.broadcast_tensors(a, b),
    "eq": lambda L, a, b: a == b,
}


@pytest.mark.parametrize("op", sorted(OPS))
def test_broadcast_errors_match_torch(torch, op):
    def shapes(r):
        return [tuple(x.shape) for x in (r if isinstance(r, (tuple, list)) else [r])]

    for sa, sb in SHAPES:
        e = outcome(lambda: shapes(OPS[op](ember, ember.ones(sa), ember.ones(sb))))
        t = outcome(lambda: shapes(OPS[op](torch, torch.ones(sa), torch.ones(sb))))
        assert e == t, (sa, sb)
