"""OpInfo entries of the activations (torch's common_methods_invocations.py op_db, this family's part)."""
import numpy as np

from .._opinfo import OpInfo
from .._samples import along_dim
from ._common import A, F, FI, S, _info, _u, _with_args


def _elu_ref(a, alpha=1.0, scale=1.0, input_scale=1.0):
    return np.where(a > 0, a * scale, alpha * scale * np.expm1(a * input_scale))


def _unary(dt):
    return [S(A(s, dt, seed=i)) for i, s in enumerate([(), (5,), (3, 4), (0, 2)])]


op_db = [
    _with_args("_nn.gelu", [((), {}), ((), {"approximate": "tanh"})], torch_name="nn.functional.gelu"),
    _u("_nn.silu", lambda a: a / (1 + np.exp(-a)), torch_name="nn.functional.silu"),
    _u("_nn.mish", lambda a: a * np.tanh(np.log1p(np.exp(a))), torch_name="nn.functional.mish"),
    _with_args("_nn.softplus", [((), {}), ((2, 1), {})], inplace=False, torch_name="nn.functional.softplus"),
    _with_args("_nn.elu", [((), {}), ((0.5, 2.0, 1.5), {})], _elu_ref, torch_name="_C._nn.elu"),
    _u("selu", out=False, torch_name="nn.functional.selu"),
    _with_args("celu", [((), {}), ((0.5,), {})], out=False, torch_name="nn.functional.celu"),
    _with_args("_nn.leaky_relu", [((), {}), ((0.2,), {})], lambda a, s=0.01: np.where(a > 0, a, a * s),
               torch_name="nn.functional.leaky_relu"),
    _with_args("_nn.hardtanh", [((), {}), ((-0.5, 2.0), {})], lambda a, lo=-1, hi=1: np.clip(a, lo, hi),
               torch_name="nn.functional.hardtanh"),
    _with_args("hardshrink", [((), {}), ((1.2,), {}), ((), {"lambd": 0.0})],
               lambda a, lambd=0.5: np.where((a >= -lambd) & (a <= lambd), 0, a), inplace=False, method_variant=True),
    _with_args("_nn.softshrink", [((), {}), ((1.2,), {}), ((), {"lambd": 0.0})],
               lambda a, lambd=0.5: np.where(np.abs(a) <= lambd, 0, a - np.copysign(lambd, a)), inplace=False,
               torch_name="nn.functional.softshrink"),
    _u("_nn.hardsigmoid", lambda a: np.clip(a / 6 + 0.5, 0, 1), torch_name="nn.functional.hardsigmoid"),
    _u("_nn.hardswish", lambda a: a * np.clip(a + 3, 0, 6) / 6, torch_name="nn.functional.hardswish"),
    _u("_nn.relu6", lambda a: np.clip(a, 0, 6), out=False, torch_name="nn.functional.relu6"),
    _u("_nn.log_sigmoid", lambda a: -np.logaddexp(0, -a), inplace=False, torch_name="nn.functional.logsigmoid"),
    _with_args("threshold", [((0.5, 9.0), {})], lambda a, t, v: np.where(a <= t, v, a)),
    OpInfo("_nn.glu", along_dim(((4,), (3, 4), (2, 3, 4)), (0, -1), empty=False), dtypes=F, supports_out=True,
           torch_name="nn.functional.glu"),
    _u("relu", lambda a: np.maximum(a, 0), dtypes=FI, out=False),
    _info("nn.functional.logsigmoid", _unary, aten_name="log_sigmoid"),
    _info("nn.functional.softsign", _unary),
]
