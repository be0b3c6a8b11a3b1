"""OpInfo entries of the normalisations (torch's common_methods_invocations.py op_db, this family's part)."""

from .._opinfo import OpInfo
from ._common import A, S, _info, _s


def _batch_norm(dt):
    rm, rv = A((3,), dt, seed=5), A((3,), dt, 0.5, 2.0, seed=6)
    return [S(A((4, 3), dt), None, None, A((3,), dt, seed=1), A((3,), dt, seed=2), training=True),
            S(A((2, 3, 5), dt), rm, rv, A((3,), dt, seed=1), A((3,), dt, seed=2)),
            S(A((2, 3, 2, 3), dt), rm, rv, training=True, momentum=0.2, eps=1e-3),
            S(A((2, 3, 4), dt, seed=3), rm, rv, None, A((3,), dt, seed=2), training=False)]


def _instance_norm(dt):
    return [S(A((2, 3, 5), dt)), S(A((2, 3, 3, 3), dt), weight=A((3,), dt, seed=1), bias=A((3,), dt, seed=2)),
            S(A((2, 3, 4), dt, seed=3), A((3,), dt, seed=5), A((3,), dt, 0.5, 2.0, seed=6), momentum=0.3),
            S(A((2, 3, 4), dt, seed=3), A((3,), dt, seed=5), A((3,), dt, 0.5, 2.0, seed=6), use_input_stats=False)]


def _norms(dt):
    return [S(A((2, 3, 4), dt), [3, 4], A((3, 4), dt, seed=1), A((3, 4), dt, seed=2), eps=1e-3), S(A((4,), dt), (4,))]


def _group_norm(dt):
    return [S(A((2, 4, 3), dt), 2, A((4,), dt, seed=1), A((4,), dt, seed=2)), S(A((1, 6, 2, 2), dt), 6, eps=1e-3)]


def _rms_norm(dt):
    return [S(A((2, 3, 4), dt), [3, 4], A((3, 4), dt, seed=1)), S(A((5,), dt), (5,), eps=1e-2)]


op_db = [
    OpInfo("layer_norm", _s(((2, 3, 4), ([4], ("arr", (4,)), ("arr", (4,))), {}), ((5, 6), ([6],), {})),
           torch_name="nn.functional.layer_norm"),
    OpInfo("group_norm", _s(((2, 6, 5), (3, ("arr", (6,)), ("arr", (6,))), {})),
           torch_name="nn.functional.group_norm"),
    OpInfo("rms_norm", _s(((2, 3, 4), ([4], ("arr", (4,))), {})), torch_name="nn.functional.rms_norm"),
    _info("nn.functional.batch_norm", _batch_norm, rtol=1e-5, atol=1e-5),
    _info("nn.functional.instance_norm", _instance_norm, rtol=1e-5, atol=1e-5),
    _info("nn.functional.layer_norm", _norms, rtol=1e-5, atol=1e-5),
    _info("nn.functional.group_norm", _group_norm, rtol=1e-5, atol=1e-5),
    _info("nn.functional.rms_norm", _rms_norm, rtol=1e-5, atol=1e-5),
]
