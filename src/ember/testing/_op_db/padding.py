"""OpInfo entries of the padding (torch's common_methods_invocations.py op_db, this family's part)."""

from ._common import A, F, S, _aten, _info


def _pad(dt):
    return [S(A((2, 3, 4), dt), (1, 2)), S(A((3, 4), dt), (2, 1, -1, 1), value=1.5),
            S(A((2, 2, 4), dt, seed=1), (2, 3), mode="reflect"), S(A((2, 3, 3), dt, seed=2), (1, 1, 2, 0), mode="reflect")]


def _pad2(dt):
    return [S(A((2, 3, 4), dt), (2, 1), mode="replicate"), S(A((1, 2, 3, 3), dt), (1, 0, 2, 1), mode="replicate"),
            S(A((2, 2, 4), dt, seed=1), (1, 2), mode="circular"), S(A((2, 3, 3), dt, seed=2), (1, 1, 2, 0), mode="circular")]


op_db = [
    _info("nn.functional.pad", _pad, aten_name="pad"),
    _info("nn.functional.pad", _pad2, aten_name="pad"),
    # the per-dimension pad ops nn.functional.pad does not call for these ranks in ember
    _aten("reflection_pad1d", lambda op, dt: [S(A((2, 5), dt), [2, 1]), S(A((2, 3, 5), dt), [0, 3])], F),
    _aten("reflection_pad3d", lambda op, dt: [S(A((1, 2, 3, 3, 4), dt), [1, 2, 0, 1, 2, 1])], F),
    _aten("replication_pad3d", lambda op, dt: [S(A((1, 2, 3, 3, 4), dt), [1, 2, 0, 1, 2, 1])], F),
]
