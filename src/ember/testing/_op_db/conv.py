"""OpInfo entries of the convolutions (torch's common_methods_invocations.py op_db, this family's part)."""

from .._opinfo import OpInfo
from ._common import A, S, _info, _s


def _conv3d(dt):
    return [S(A((1, 2, 4, 4, 3), dt), A((3, 2, 2, 2, 2), dt, seed=1), A((3,), dt, seed=2), stride=2, padding=1),
            S(A((2, 3, 3, 3), dt), A((2, 1, 2, 2, 1), dt, seed=1), groups=2, padding="same", dilation=(1, 2, 1))]


def _conv_t1d(dt):
    return [S(A((2, 3, 5), dt), A((3, 2, 3), dt, seed=1), A((2,), dt, seed=2), stride=2, padding=1, output_padding=1),
            S(A((4, 4), dt), A((4, 1, 2), dt, seed=1), groups=2, dilation=2),
            S(A((1, 2, 4), dt), A((2, 3, 2), dt, seed=1), stride=3, padding=2)]


def _conv1d(dt):
    return [S(A((1, 4, 6), dt), A((2, 2, 3), dt, seed=1), A((2,), dt, seed=2), groups=2, dilation=2),
            S(A((2, 5), dt), A((3, 2, 2), dt, seed=1), padding="valid", stride=2),
            S(A((1, 2, 5), dt), A((2, 2, 4), dt, seed=1), padding="same")]


def _conv2d(dt):
    return [S(A((1, 2, 4, 4), dt), A((2, 2, 2, 2), dt, seed=1), A((2,), dt, seed=2), stride=2, padding=1),
            S(A((2, 3, 4), dt), A((4, 1, 2, 2), dt, seed=1), groups=2, padding="same", dilation=(1, 2)),
            S(A((1, 1, 5, 4), dt), A((2, 1, 3, 2), dt, seed=1), stride=(2, 1), padding=(1, 0))]


def _conv_t2d(dt):
    return [S(A((1, 2, 3, 3), dt), A((2, 3, 2, 2), dt, seed=1), A((3,), dt, seed=2), stride=2, padding=1, output_padding=1),
            S(A((2, 2, 3), dt), A((2, 1, 2, 2), dt, seed=1), groups=2, dilation=2),
            S(A((1, 1, 2, 3), dt), A((1, 2, 3, 2), dt, seed=1), stride=(1, 2), padding=(1, 0))]


op_db = [
    OpInfo("conv1d", _s(((2, 3, 9), (("arr", (4, 3, 3)), ("arr", (4,))), {"stride": 2, "padding": 1}),
                        ((3, 8), (("arr", (2, 3, 2)),), {"padding": "same"})),
           torch_name="nn.functional.conv1d", rtol=1e-5, atol=1e-5),
    OpInfo("conv2d", _s(((2, 3, 6, 5), (("arr", (4, 3, 3, 3)), ("arr", (4,))), {"padding": 1}),
                        ((1, 4, 7, 7), (("arr", (4, 2, 3, 2)),), {"stride": 2, "dilation": (1, 2), "groups": 2})),
           torch_name="nn.functional.conv2d", rtol=1e-5, atol=1e-5),
    OpInfo("conv_transpose2d", _s(((2, 4, 4, 3), (("arr", (4, 3, 3, 3)),), {"stride": 2, "output_padding": 1})),
           torch_name="nn.functional.conv_transpose2d", rtol=1e-5, atol=1e-5),
    _info("nn.functional.conv3d", _conv3d, rtol=1e-5, atol=1e-5),
    _info("nn.functional.conv_transpose1d", _conv_t1d, rtol=1e-5, atol=1e-5),
    _info("nn.functional.conv1d", _conv1d, rtol=1e-5, atol=1e-5),
    _info("nn.functional.conv2d", _conv2d, rtol=1e-5, atol=1e-5),
    _info("nn.functional.conv_transpose2d", _conv_t2d, rtol=1e-5, atol=1e-5),
]
