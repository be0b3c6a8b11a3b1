"""What a TorchDispatchMode sees of a CompositeImplicitAutograd op: the ops its decomposition calls (torch runs
the decomposition at its Autograd keys, above the Python key), the op itself in inference mode (no Autograd
keys). The `to` family: `_to_copy` with the keyword arguments torch passes, nothing at all for a `to` that
returns self."""
import pytest

import ember
from ember.utils._python_dispatch import TorchDispatchMode

torch = pytest.importorskip("torch")
from torch.utils._python_dispatch import TorchDispatchMode as TorchMode  # noqa: E402


def _log_class(base):
    class Log(base):
        def __init__(self):
            super().__init__()
            self.calls = []

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            kw = {k: str(v).replace("torch.", "").replace("ember.", "") for k, v in (kwargs or {}).items()}
            self.calls.append((str(func), kw))
            return func(*args, **(kwargs or {}))
    return Log


_LOGS = {ember: _log_class(TorchDispatchMode), torch: _log_class(TorchMode)}

_TO_CASES = {
    "to_dtype": lambda L, x, xd: x.to(L.float64),
    "float": lambda L, x, xd: xd.float(),
    "double": lambda L, x, xd: x.double(),
    "half": lambda L, x, xd: x.half(),
    "long": lambda L, x, xd: x.long(),
    "bool": lambda L, x, xd: x.bool(),
    "type_as": lambda L, x, xd: x.type_as(xd),
    "type_str": lambda L, x, xd: x.type(L.float64),
    "cpu": lambda L, x, xd: x.cpu(),
    "to_same_dtype": lambda L, x, xd: x.to(L.float32),
    "float_same": lambda L, x, xd: x.float(),
    "to_cpu_str": lambda L, x, xd: x.to("cpu"),
    "to_cpu0": lambda L, x, xd: x.to("cpu:0"),
    "to_other": lambda L, x, xd: x.to(xd),
    "to_other_copy": lambda L, x, xd: x.to(x, copy=True),
    "to_dev_dtype": lambda L, x, xd: x.to("cpu", L.float64),
    "to_kw_dev_dtype": lambda L, x, xd: x.to(device="cpu:0", dtype=L.float64),
    "to_kw_dtype": lambda L, x, xd: x.to(dtype=L.float64),
    "to_copy": lambda L, x, xd: x.to(L.float64, copy=True),
    "to_same_copy": lambda L, x, xd: x.to(L.float32, copy=True),
    "to_str_copy": lambda L, x, xd: x.to("cpu", copy=True),
    "non_blocking": lambda L, x, xd: x.to(L.float64, non_blocking=True),
    "memory_format": lambda L, x, xd: x.t().to(L.float64, memory_format=L.contiguous_format),
    "preserve": lambda L, x, xd: x.to(L.float64, memory_format=L.preserve_format),
    "to_dtype_layout_op": lambda L, x, xd: L.ops.aten.to.dtype_layout(x, dtype=L.float64),
}


def _seen(L, case, grad=False):
    x = L.ones(3, 2, requires_grad=grad)
    xd = L.ones(3, 2, dtype=L.float64)
    with _LOGS[L]() as mode:
        case(L, x, xd)
    return mode.calls


@pytest.mark.parity
@pytest.mark.parametrize("grad", [False, True])
@pytest.mark.parametrize("name", sorted(_TO_CASES))
def test_to_family_reaches_modes_as_to_copy(name, grad):
    assert _seen(ember, _TO_CASES[name], grad) == _seen(torch, _TO_CASES[name], grad)


_COMPOSITE_CASES = {
    "reshape": lambda L, x: x.reshape(6),
    "flatten": lambda L, x: x.flatten(),
    "matmul": lambda L, x: x @ x.t(),
    "square": lambda L, x: L.square(x),
}


@pytest.mark.parity
@pytest.mark.parametrize("name", sorted(_COMPOSITE_CASES))
def test_composite_ops_reach_modes_decomposed(name):
    def seen(L):
        x = L.ones(3, 2)
        with _LOGS[L]() as mode:
            _COMPOSITE_CASES[name](L, x)
        return [c[0] for c in mode.calls]
    assert seen(ember) == seen(torch)


@pytest.mark.parity
@pytest.mark.parametrize("name", ["to_dtype", "double", "to_dev_dtype"])
def test_inference_mode_modes_see_the_composite_op(name):
    def seen(L):
        with L.inference_mode():
            x = L.ones(3, 2)
            xd = L.ones(3, 2, dtype=L.float64)
            with _LOGS[L]() as mode:
                _TO_CASES[name](L, x, xd)
                x.reshape(6)
        return [c[0] for c in mode.calls]
    assert seen(ember) == seen(torch)
