"""OpInfo entries of the distances (torch's common_methods_invocations.py op_db, this family's part)."""

from .._opinfo import OpInfo
from ._common import A, S, _info, _s


def _cdist(dt):
    return [S(A((4, 3), dt), A((5, 3), dt, seed=1)), S(A((2, 3, 2), dt), A((2, 4, 2), dt, seed=1), p=1.0),
            S(A((3, 4), dt), A((2, 4), dt, seed=1), p=float("inf")), S(A((3, 2), dt), A((4, 2), dt, seed=1), p=3.0)]


def _pairwise(dt):
    return [S(A((4, 5), dt), A((4, 5), dt, seed=1), p=1.0, keepdim=True), S(A((5,), dt), A((5,), dt, seed=1)),
            S(A((3, 4), dt), A((4,), dt, seed=1), p=3.0, eps=1e-3)]


def _cosine_similarity(dt):
    return [S(A((4, 5), dt), A((4, 5), dt, seed=1), dim=0), S(A((5,), dt), A((5,), dt, seed=1), dim=0),
            S(A((2, 3, 4), dt), A((3, 1), dt, seed=1), eps=1e-3)]


op_db = [
    OpInfo("pairwise_distance", _s(((4, 5), (("arr", (4, 5)),), {})), torch_name="nn.functional.pairwise_distance"),
    OpInfo("cosine_similarity", _s(((4, 5), (("arr", (4, 5)),), {})), torch_name="nn.functional.cosine_similarity"),
    OpInfo("cdist", _s(((3, 2), (("arr", (4, 2)),), {}), ((3, 2), (("arr", (4, 2)),), {"p": 1.0}),
                       ((2, 3, 2), (("arr", (2, 4, 2)),), {"p": 3.0}),
                       ((3, 2), (("arr", (4, 2)),), {"p": float("inf")})),
           method_variant=False, aten_name="_cdist_forward", rtol=1e-5, atol=1e-6),
    _info("cdist", _cdist, rtol=1e-5, atol=1e-5),
    _info("nn.functional.pairwise_distance", _pairwise, rtol=1e-5, atol=1e-5),
    _info("nn.functional.cosine_similarity", _cosine_similarity, rtol=1e-5, atol=1e-5),
]
