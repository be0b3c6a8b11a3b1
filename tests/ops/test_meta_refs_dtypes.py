"""Meta-device dtype rules of ops whose torch meta kernel is a Python ref (torch._refs), not the cpu kernel's dtype
switch: bitwise_and/or/xor, the shifts (the functions; torch's `<<` operator checks more), gcd/lcm and heaviside
take floats and promote; floor division refuses two bools ("torch.bool not supported for floor_divide"); lerp takes
integer tensors and words its dtype check its own way; an in-place or out= result that cannot hold the promoted
dtype gets the refs' "Attempting to cast" message."""
import pytest

import ember

CALLS = {
    "and ff": lambda L, t: L.bitwise_and(t["f"], t["f"]),
    "or ff": lambda L, t: t["f"] | t["f"],
    "xor fi": lambda L, t: t["f"] ^ t["i"],
    "and f 1": lambda L, t: L.bitwise_and(t["f"], 1),
    "and i 1.5": lambda L, t: t["i"] & 1.5,
    "and cc": lambda L, t: t["c"] & t["c"],
    "and hh": lambda L, t: t["h"] & t["h"],
    "and_ ff": lambda L, t: t["f"].clone().bitwise_and_(t["f"]),
    "and_ if": lambda L, t: t["i"].clone().bitwise_and_(t["f"]),
    "and out int": lambda L, t: L.bitwise_and(t["f"], t["f"], out=L.empty(3, device="meta", dtype=L.int64)),
    "lshift fi": lambda L, t: L.bitwise_left_shift(t["f"], t["i"]),
    "rshift fi": lambda L, t: L.bitwise_right_shift(t["f"], t["i"]),
    "lshift_ if": lambda L, t: t["i"].clone().bitwise_left_shift_(t["f"]),
    "floordiv bb": lambda L, t: L.floor_divide(t["b"], t["b"]),
    "b // b": lambda L, t: t["b"] // t["b"],
    "b // True": lambda L, t: t["b"] // True,
    "b // 2": lambda L, t: t["b"] // 2,
    "b // i": lambda L, t: t["b"] // t["i"],
    "floordiv_ bb": lambda L, t: t["b"].clone().floor_divide_(t["b"]),
    "floordiv out bb": lambda L, t: L.floor_divide(t["b"], t["b"], out=L.empty(3, device="meta", dtype=L.bool)),
    "div floor bb": lambda L, t: L.div(t["b"], t["b"], rounding_mode="floor"),
    "div_ floor bb": lambda L, t: t["b"].clone().div_(t["b"], rounding_mode="floor"),
    "div trunc bb": lambda L, t: L.div(t["b"], t["b"], rounding_mode="trunc"),
    "lerp ii 0.5": lambda L, t: L.lerp(t["i"], t["i"], 0.5),
    "lerp iii": lambda L, t: L.lerp(t["i"], t["i"], t["i"]),
    "lerp bb": lambda L, t: L.lerp(t["b"], t["b"], 0.5),
    "lerp_ ii": lambda L, t: t["i"].clone().lerp_(t["i"], 1),
    "lerp if": lambda L, t: L.lerp(t["i"], t["f"], 0.5),
    "lerp ffi": lambda L, t: L.lerp(t["f"], t["f"], t["i"]),
    "lerp_ fi": lambda L, t: t["f"].clone().lerp_(t["i"], 0.5),
    "lerp ff 0-d double": lambda L, t: L.lerp(t["f"], t["f"], L.tensor(0.5, device="meta", dtype=L.float64)),
    "lerp out double": lambda L, t: L.lerp(t["f"], t["f"], t["f"], out=L.empty(3, device="meta", dtype=L.float64)),
    "gcd ff": lambda L, t: L.gcd(t["f"], t["f"]),
    "gcd fi": lambda L, t: L.gcd(t["f"], t["i"]),
    "lcm cc": lambda L, t: L.lcm(t["c"], t["c"]),
    "gcd_ if": lambda L, t: t["i"].clone().gcd_(t["f"]),
    "heaviside fi": lambda L, t: L.heaviside(t["f"], t["i"]),
    "heaviside ib": lambda L, t: L.heaviside(t["i"], t["b"]),
    "heaviside out double": lambda L, t: L.heaviside(t["f"], t["f"], out=L.empty(3, device="meta", dtype=L.float64)),
}


def _run(L, call, device="meta"):
    t = {k: L.ones(3, dtype=getattr(L, d), device=device)
         for k, d in (("b", "bool"), ("f", "float32"), ("i", "int64"), ("h", "float16"), ("c", "complex64"))}
    try:
        r = CALLS[call](L, t)
    except Exception as e:      # noqa: BLE001 - the exception type is what is compared
        return type(e).__name__, str(e).replace("ember.", "torch.")
    return str(r.dtype).split(".")[-1], tuple(r.shape), r.device.type


@pytest.mark.parity
@pytest.mark.parametrize("call", sorted(CALLS))
def test_meta_ref_dtype_rules_like_torch(call):
    torch = pytest.importorskip("torch")
    assert _run(ember, call) == _run(torch, call)
