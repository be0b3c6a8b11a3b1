"""Every argument of a generated binding is type-checked the way torch's python_arg_parser does it:
the same calls are accepted, the same ones raise, with the same exception type (and, where torch names the
argument, the same message). Run each call through ember and torch and compare the outcomes."""
import re

import numpy as np
import pytest

import ember

# placeholders: T float tensor (2, 3), U a second float tensor, B bool tensor, I int64 tensor, S 0-dim float,
# S1 1-element 1-dim float, L 1-d int64 index tensor
CASES = [
    ("add", ("T", 1.5)), ("add", (1.5, "T")), ("add", ("T", "U"), {"alpha": 2}), ("add", ("T", "U"), {"alpha": "a"}),
    ("add", ("T", "U"), {"alpha": "S"}), ("add", ("T", "U"), {"alpha": "S1"}),
    ("sub", (2, "T")), ("mul", (2, "T")), ("mul", ("T", True)), ("div", (2, "T")), ("true_divide", (2, "T")),
    ("floor_divide", (2, "T")), ("floor_divide", ("T", 2)),
    ("atan2", ("T", 1.5)), ("atan2", (1.5, "T")), ("atan2", ("T", "U")), ("atan2", ("T", "U"), {"out": 2.0}),
    ("maximum", ("T", 2)), ("minimum", (2, "T")), ("hypot", ("T", 2.0)), ("logaddexp", ("T", 1.0)),
    ("fmod", ("T", 2)), ("fmod", (2, "T")), ("remainder", ("T", 2)), ("remainder", (2, "T")), ("remainder", (2, 3)),
    ("pow", (2, "T")), ("pow", ("T", 2)), ("pow", (2, 3)), ("xlogy", (2, "T")), ("xlogy", ("T", 2)),
    ("copysign", ("T", 2.0)), ("eq", ("T", 2)), ("eq", (2, "T")), ("lt", ("T", 0.5)), ("ge", (0.5, "T")),
    ("bitwise_and", (2, "I")), ("bitwise_and", ("I", 2)), ("bitwise_xor", (2, 3)), ("logical_and", ("T", 1)),
    ("where", ("B", "T", 0.0)), ("where", ("B", 0.0, "T")), ("where", ("B", 1.0, 0.0)), ("where", ("B", "T", None)),
    ("where", ("B", "T", "x")), ("lerp", ("T", 2.0, 0.5)), ("lerp", ("T", "U", 0.5)), ("clamp", ("T", 0, 2)),
    ("clamp", ("T", "U", 2.0)), ("clamp", ("T", 0.5, "S")), ("mm", ("T", 1)), ("matmul", ("T", 2)), ("dot", ("T", 2)),
    ("exp", (2.0,)), ("abs", ([1.0],)), ("flatten", ("T", 1.5)), ("flatten", ("T", True)), ("flatten", ("T", None)),
    ("flatten", ("T", np.int64(1))), ("flatten", ("T", "Si")), ("flatten", ("T", 0, "S")),
    ("sum", ("T", 1.5)), ("mean", ("T", 1.0)), ("cat", (["T", 1],)), ("cat", (("T", None),)), ("cat", ("T", 0)),
    ("cat", (["T", "U"], 0.5)), ("cat", (["T", "U"],), {"dim": True}), ("stack", (("T", 2.0),)),
    ("index_select", ("T", 0, 1)), ("index_select", ("T", 0.0, "L")), ("gather", ("T", 0, 1)), ("take", ("T", 1)),
    ("masked_fill", ("T", "B2", 2.0)), ("masked_fill", ("T", "B2", "S")), ("masked_fill", ("T", "B2", "x")),
    ("argmax", ("T", 1, 1)), ("argmax", ("T", 1), {"keepdim": 1}), ("argmax", ("T", 1), {"keepdim": True}),
    ("cumsum", ("T", 1), {"dtype": "x"}), ("cumsum", ("T", 1.0)), ("diagonal", ("T", 0, 0, 1.0)),
    ("dropout", ("T", 0.5, 1)), ("dropout", ("T", 1, True)), ("dropout", ("T", True, False)), ("dropout", ("T", "S", False)),
    ("roll", ("T", 1.0)), ("roll", ("T", 1)), ("t", (2.0,)), ("full", ((2,), "T")), ("full", ((2,), "S")),
    ("addcmul", ("T", "U", 2.0)), ("index_add", ("T", 0, "L", 1.0)), ("squeeze", ("T", 1.0)),
    ("repeat_interleave", ("T", 2.0)), ("embedding", ("T", 1)), ("tensordot", ("T", "Tt", 1)),
    ("isin", ("T", 2)), ("isin", (2, "T")), ("rsub", ("T", 2)), ("rsub", (2, "T")), ("searchsorted", ("Ts", 0.5)),
    ("method:atan2", ("T", 1.5)), ("method:add", ("T", 1.5)), ("method:maximum", ("T", 2)), ("method:where", ("T", "B", 2.0)),
    ("method:lerp", ("T", 2.0, 0.5)), ("method:mul_", ("T", 2)), ("method:copy_", ("T", 2.0)), ("method:remainder_", ("T", 2)),
    ("method:eq_", ("T", 1)), ("method:pow", ("T", 2)), ("method:flatten", ("T", 1.5)), ("method:view", ("T", 3, 2.0)),
    ("method:view", ("T", 3, 2)), ("method:permute", ("T", 1, 0.0)), ("method:expand", ("T", 2, 3.0)),
    ("method:index_fill", ("T", 1, "L", 2.0)), ("method:masked_fill_", ("T", "B2", 1.5)), ("method:addmm", ("Tsq", "Tsq", 2.0)),
    ("nn.functional.linear", ("T", 2.0)), ("nn.functional.linear", ("T", "Tt", 2.0)),
    ("nn.functional.gelu", ("T",), {"approximate": 1}), ("nn.functional.leaky_relu", ("T", "0.1")),
]


def _values(mod):
    g = np.random.default_rng(0)
    T = g.standard_normal((2, 3)).astype(np.float32)
    return {
        "T": mod.tensor(T), "U": mod.tensor(T + 1), "Tt": mod.tensor(T.T.copy()), "Tsq": mod.tensor(T[:, :2].copy()),
        "Ts": mod.tensor(np.sort(T, axis=-1)), "B": mod.tensor(T > 0), "B2": mod.tensor(T > 0),
        "I": mod.tensor([1, 2, 3]), "S": mod.tensor(1.0), "S1": mod.tensor([1.0]), "Si": mod.tensor(1),
        "L": mod.tensor([0, 1]),
    }


def _subst(v, vals):
    if isinstance(v, str) and v in vals:
        return vals[v]
    if isinstance(v, list):
        return [_subst(x, vals) for x in v]
    if isinstance(v, tuple):
        return tuple(_subst(x, vals) for x in v)
    return v


def _call(mod, name, args, kwargs):
    vals = _values(mod)
    args = _subst(args, vals)
    kwargs = {k: _subst(v, vals) for k, v in kwargs.items()}
    if name.startswith("method:"):
        fn = getattr(args[0], name[len("method:"):])
        args = args[1:]
    else:
        fn = mod
        for part in name.split("."):
            fn = getattr(fn, part)
    try:
        fn(*args, **kwargs)
    except Exception as e:  # the outcome is what is compared
        return e
    return None


def _id(case):
    return f"{case[0]}{case[1]!r}{case[2] if len(case) > 2 else ''}"


@pytest.mark.parity
@pytest.mark.parametrize("case", CASES, ids=[_id(c) for c in CASES])
def test_accepts_and_rejects_like_torch(case):
    torch = pytest.importorskip("torch")
    name, args = case[0], case[1]
    kwargs = case[2] if len(case) > 2 else {}
    fn = ember
    for part in name.replace("method:", "").split("."):
        fn = getattr(fn, part, None) if not name.startswith("method:") else getattr(ember.Tensor, part, None)
    if fn is None:
        pytest.skip(f"ember has no {name}")
    te = _call(torch, name, args, kwargs)
    ee = _call(ember, name, args, kwargs)
    assert type(ee) is type(te), (name, args, kwargs, te, ee)
    # torch's one-signature message names the function, argument, position and both types: so must ember's
    # (torch leaves the position out for an argument passed by keyword; a Python def cannot tell, so ember
    # always names it)
    if te is not None and re.match(r"\w+\(\): argument '\w+'( \(position \d+\))? must be", str(te)):
        got = re.sub(r" \(position \d+\)", "", str(ee).replace("ember.", "torch."))
        assert got == re.sub(r" \(position \d+\)", "", str(te)), (str(ee), str(te))
        if "(position" in str(te):
            assert str(ee).replace("ember.", "torch.") == str(te)


BINARY = ["atan2", "maximum", "minimum", "fmax", "fmin", "hypot", "logaddexp", "logaddexp2", "fmod", "remainder",
          "copysign", "xlogy", "pow", "nextafter", "heaviside", "igamma", "ldexp", "float_power", "add", "sub", "mul",
          "div", "true_divide", "floor_divide", "eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or",
          "logical_xor", "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_left_shift", "dist", "dot", "inner",
          "outer", "kron", "cross", "polar", "complex", "isclose", "equal", "bucketize", "searchsorted"]


@pytest.mark.parity
@pytest.mark.parametrize("name", BINARY)
@pytest.mark.parametrize("pattern", ["tn", "nt", "tt"])
def test_binary_numbers_like_torch(name, pattern):
    """A number for either operand of a binary function: accepted exactly where torch accepts it."""
    torch = pytest.importorskip("torch")
    if not hasattr(ember, name):
        pytest.skip(f"ember has no {name}")
    args = {"tn": ("S3", 2), "nt": (2, "S3"), "tt": ("S3", "S3")}[pattern]

    def run(mod):
        x = mod.tensor([1, 2, 3]) if name.startswith("bitwise") else mod.tensor([1.0, 2.0, 3.0])
        try:
            getattr(mod, name)(*(x if a == "S3" else a for a in args))
        except TypeError as e:
            return e
        except Exception:  # a value error from the kernel: the binding accepted the call
            return None
        return None

    te, ee = run(torch), run(ember)
    assert type(ee) is type(te), (name, pattern, te, ee)
