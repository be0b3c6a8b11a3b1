"""relu, hardtanh (relu6) and threshold on bool and integer tensors against torch: torch's own refusals
("Boolean inputs not supported for relu", hardtanh's bool and negative-uint8-limit errors, threshold's
NotImplementedError), the integer results otherwise, on cpu and meta."""
import pytest

import ember

FORMS = {
    "relu": lambda L, x: L.relu(x),
    "relu_": lambda L, x: x.relu_(),
    "torch.relu_": lambda L, x: L.relu_(x),
    "F.relu": lambda L, x: L.nn.functional.relu(x),
    "F.relu inplace": lambda L, x: L.nn.functional.relu(x, inplace=True),
    "nn.ReLU": lambda L, x: L.nn.ReLU()(x),
    "nn.ReLU inplace": lambda L, x: L.nn.ReLU(inplace=True)(x),
    "F.relu6": lambda L, x: L.nn.functional.relu6(x),
    "hardtanh": lambda L, x: L.nn.functional.hardtanh(x),
    "hardtanh_ -0.5": lambda L, x: L.nn.functional.hardtanh(x, -0.5, 2.7, inplace=True),
    "hardtanh -1.5": lambda L, x: L.nn.functional.hardtanh(x, -1.5, 1.5),
    "threshold": lambda L, x: L.nn.functional.threshold(x, 0, 5),
}


def _run(L, form, dtype, device):
    x = L.tensor([-3, -1, 0, 1, 3], device=device).to(getattr(L, dtype))
    try:
        r = FORMS[form](L, x)
    except Exception as e:       # noqa: BLE001 (the exception itself is compared)
        return type(e).__name__, str(e)
    return str(r.dtype).split(".")[1], (r.tolist() if device == "cpu" else tuple(r.shape))


@pytest.mark.parity
@pytest.mark.parametrize("device", ["cpu", "meta"])
@pytest.mark.parametrize("dtype", ["bool", "uint8", "int32"])
@pytest.mark.parametrize("form", sorted(FORMS))
def test_relu_hardtanh_threshold_int_bool_like_torch(form, dtype, device):
    torch = pytest.importorskip("torch")
    assert _run(ember, form, dtype, device) == _run(torch, form, dtype, device)
