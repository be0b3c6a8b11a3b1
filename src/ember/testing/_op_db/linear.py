"""OpInfo entries of the linear maps, linear and bilinear (torch's common_methods_invocations.py op_db, this family's
part)."""
from .._opinfo import OpInfo
from ._common import A, S, _info, _s


def _bilinear(dt):
    return [S(A((4, 3), dt), A((4, 2), dt, seed=1), A((2, 3, 2), dt, seed=2), A((2,), dt, seed=3)),
            S(A((2, 2, 3), dt), A((2, 2, 2), dt, seed=1), A((3, 3, 2), dt, seed=2))]


# (small enough for gradcheck, and the options op_db_nn's samples leave out)
def _linear(dt):
    return [S(A((3,), dt), A((4, 3), dt, seed=1), A((4,), dt, seed=2)), S(A((2, 2, 3), dt), A((2, 3), dt, seed=1)),
            S(A((0, 3), dt), A((2, 3), dt, seed=1), A((2,), dt, seed=2))]


op_db = [
    OpInfo("_nn.linear", _s(((5, 3), (("arr", (4, 3)), ("arr", (4,))), {}), ((2, 5, 3), (("arr", (4, 3)),), {})),
           torch_name="nn.functional.linear", rtol=1e-5, atol=1e-5),
    _info("nn.functional.bilinear", _bilinear, rtol=1e-5, atol=1e-5),
    _info("nn.functional.linear", _linear, rtol=1e-5, atol=1e-5),
]
