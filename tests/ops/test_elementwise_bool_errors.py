"""Bool tensors in subtraction, negation, integer division, remainder and abs against torch, on cpu and meta:
torch's refusals (cpu's dtype errors; meta's own rules from torch._refs: two bool tensors cannot be subtracted but
a bool tensor and a number can, alpha of a wider Python type than the result is a ValueError, no bool negation)."""
import pytest

import ember

CALLS = {
    "b - 1": lambda L, b, d: b - 1,
    "1 - b": lambda L, b, d: 1 - b,
    "b - 1.5": lambda L, b, d: b - 1.5,
    "b - b": lambda L, b, d: b - b,
    "b - float tensor": lambda L, b, d: b - L.ones(2, device=d),
    "rsub(b, b)": lambda L, b, d: L.rsub(b, b),
    "sub out": lambda L, b, d: L.sub(b, b, out=L.empty(2, dtype=L.bool, device=d)),
    "-b": lambda L, b, d: -b,
    "neg_": lambda L, b, d: b.neg_(),
    "neg out": lambda L, b, d: L.neg(b, out=L.empty(2, dtype=L.bool, device=d)),
    "add int alpha float": lambda L, b, d: L.add(L.ones(2, dtype=L.int64, device=d), 1, alpha=1.5),
    "sub int alpha float": lambda L, b, d: L.sub(L.ones(2, dtype=L.int64, device=d), 1, alpha=2.),
    "add float alpha complex": lambda L, b, d: L.add(L.ones(2, device=d), 1, alpha=1j),
    "add bool alpha float": lambda L, b, d: L.add(b, b, alpha=1.5),
    "b // b": lambda L, b, d: b // b,
    "b // 1": lambda L, b, d: b // 1,
    "div trunc": lambda L, b, d: L.div(b, b, rounding_mode="trunc"),
    "b % b": lambda L, b, d: b % b,
    "fmod": lambda L, b, d: L.fmod(b, b),
    "abs": lambda L, b, d: b.abs(),
    "abs_": lambda L, b, d: b.abs_(),
}
META_DIFFERS = {"b // b"}      # torch's meta says "torch.bool not supported for floor_divide"; ember's meta passes


def _run(L, call, device):
    b = L.tensor([True, False], device=device)
    try:
        r = CALLS[call](L, b, device)
    except Exception as e:       # noqa: BLE001 (compared)
        return type(e).__name__, str(e)
    return str(r.dtype).split(".")[1], (r.tolist() if device == "cpu" else None)


@pytest.mark.parity
@pytest.mark.parametrize("device", ["cpu", "meta"])
@pytest.mark.parametrize("call", sorted(CALLS))
def test_bool_arithmetic_like_torch(call, device):
    torch = pytest.importorskip("torch")
    if device == "meta" and call in META_DIFFERS:
        pytest.skip("torch's meta floor_divide refuses bool; ember's meta kernel does not")
    assert _run(ember, call, device) == _run(torch, call, device)
