"""A Python number stored into a tensor (fill_, full, masked_fill(_), index_fill(_), x[i] = number) is checked
as c10's checked_convert checks it (`_core/scalar_value.py`), against torch: RuntimeError naming the C
type where the dtype cannot hold the value, the tensor unchanged; in-range values, infinities and NaN (into
floats), uint8's wrapping negatives and anything into bool stored as torch stores them."""
import pytest

import ember

DTYPES = ["uint8", "int8", "int16", "int32", "int64", "float32", "float64", "complex64", "complex128", "bool"]
VALUES = [300, -1, -300, 2 ** 40, 2 ** 62, 2 ** 63, 2 ** 64 - 1, 2 ** 64, 2 ** 70, 2.5, -0.0, 1e300, 3.5e38, float("inf"), float("-inf"), float("nan"),
          1j, complex(1e39, 0), True]


def _ops(lib, dt, v):
    mask = lib.tensor([True, False, True])
    return {
        "fill_": lambda: lib.zeros(3, dtype=dt).fill_(v),
        "full": lambda: lib.full((3,), v, dtype=dt),
        "masked_fill": lambda: lib.zeros(3, dtype=dt).masked_fill(mask, v),
        "masked_fill_": lambda: lib.zeros(3, dtype=dt).masked_fill_(mask, v),
        "index_fill": lambda: lib.zeros(3, dtype=dt).index_fill(0, lib.tensor([1]), v),
        "setitem": lambda: lib.zeros(3, dtype=dt).__setitem__(1, v),
    }


def _outcome(f):
    try:
        r = f()
    except Exception as e:      # noqa: BLE001 - the exception type and message are what is compared
        return type(e).__name__, str(e).splitlines()[0]
    return "ok", None if r is None else [str(x) for x in r.tolist()]


@pytest.mark.parity
@pytest.mark.parametrize("name", ["fill_", "full", "masked_fill", "masked_fill_", "index_fill", "setitem"])
@pytest.mark.parametrize("dt", DTYPES)
def test_number_into_dtype_matches_torch(name, dt):
    torch = pytest.importorskip("torch")
    for v in VALUES:
        if isinstance(v, complex) and name in ("index_fill", "masked_fill", "masked_fill_") and dt != "bool":
            continue        # torch's complex-into-real masked/index fills have their own messages (not this rule)
        want = _outcome(_ops(torch, getattr(torch, dt), v)[name])
        got = _outcome(_ops(ember, getattr(ember, dt), v)[name])
        if want[0] == "RuntimeError" and "without overflow" in want[1] or want[0] == "OverflowError":
            assert got[0] == want[0] and got[1] == want[1], (name, dt, v, got, want)
        elif want[0] == "ok":
            assert got == want, (name, dt, v)


@pytest.mark.parametrize("dt", ["float32", "int8", "uint8"])
def test_refused_fill_leaves_the_tensor_as_it_was(dt):
    x = ember.tensor([1, 2, 3], dtype=getattr(ember, dt))
    for f in (lambda: x.fill_(1e300), lambda: x.masked_fill_(ember.tensor([True, True, True]), 1e300),
              lambda: x.index_fill_(0, ember.tensor([0]), 1e300)):
        with pytest.raises(RuntimeError, match="without overflow"):
            f()
        assert x.tolist() == [1, 2, 3]


HALF_VALUES = [65504.0, 65519.0, 65520.0, 1e6, 3.39e38, 3.3961e38, 3.4e38, 1e39, -1e6, 1 + 2 ** -11 + 2 ** -40,
               1 + 2 ** -8 + 2 ** -40, float("nan"), float("-nan"), float("inf"), 2 ** 40 + 1]


def _half_ops(lib, dt, v, n):
    mask = lib.ones(n, dtype=lib.bool)
    return {
        "fill_": lambda: lib.zeros(n, dtype=dt).fill_(v),
        "full": lambda: lib.full((n,), v, dtype=dt),
        "masked_fill": lambda: lib.zeros(n, dtype=dt).masked_fill(mask, v),
        "index_fill": lambda: lib.zeros(n, dtype=dt).index_fill(0, lib.tensor([0] if n else [], dtype=lib.long), v),
        "setitem": lambda: (lambda t: (t.__setitem__(0, v), t)[1])(lib.zeros(n, dtype=dt)),
        "tensor": lambda: lib.tensor([v] * n, dtype=dt),
    }


def _bits_outcome(f, lib):
    try:
        r = f()
    except Exception as e:      # noqa: BLE001 - the exception type and message are what is compared
        return type(e).__name__, str(e).splitlines()[0]
    return "ok", r.view(lib.int16).tolist()


@pytest.mark.parity
@pytest.mark.parametrize("name", ["fill_", "full", "masked_fill", "index_fill", "setitem", "tensor"])
@pytest.mark.parametrize("dt", ["float16", "bfloat16"])
def test_number_into_float16_bfloat16_matches_torch(name, dt):
    """float16/bfloat16: a finite value beyond the dtype's largest is refused by fill_/full of 0 or 2+
    elements, masked_fill and index_fill, stored (as inf or the largest) by a 1-element fill_/full, x[i] =
    and tensor(); every stored value is rounded through float32 (double rounding, as c10), a NaN into
    bfloat16 is 0x7fc0."""
    torch = pytest.importorskip("torch")
    for v in HALF_VALUES:
        for n in (0, 1, 2) if name != "setitem" else (1, 2):
            want = _bits_outcome(_half_ops(torch, getattr(torch, dt), v, n)[name], torch)
            got = _bits_outcome(_half_ops(ember, getattr(ember, dt), v, n)[name], ember)
            assert got == want, (name, dt, v, n)
