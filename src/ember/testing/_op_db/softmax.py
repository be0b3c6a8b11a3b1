"""OpInfo entries of the softmax / log_softmax (torch's common_methods_invocations.py op_db, this family's part)."""

from .._opinfo import OpInfo
from ._common import A, S, _info, _s


def _softmax(dt):
    return [S(A((3, 4), dt), 0), S(A((2, 3, 2), dt), -1, dtype=None), S(A((4,), dt), 0)]


op_db = [
    OpInfo("softmax", _s(((3, 5), (1,), {}), ((2, 3, 4), (-1,), {}), ((), (0,), {}), ((0, 3), (1,), {})),
           method_variant=True),
    OpInfo("log_softmax", _s(((3, 5), (1,), {}), ((2, 3, 4), (0,), {}), ((4,), (0,), {}))),
    _info("nn.functional.softmax", _softmax),
    _info("nn.functional.log_softmax", _softmax),
]
