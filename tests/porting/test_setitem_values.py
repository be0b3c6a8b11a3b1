"""`x[i] = v` as torch does it: a Python number converted to x's dtype with c10's overflow check (RuntimeError
"value cannot be converted to type uint8_t without overflow", a negative int wrapping into uint8, an int beyond
int64 a ValueError, numpy scalars other than integers/float64/complex128 refused), and writes into an expanded
tensor (copy_ and fill_.Tensor refuse internal overlap, index_put_/masked_fill_ warn and write)."""
import math
import warnings

import numpy as np
import pytest

import ember

from _porting import outcome, torch_fixture  # noqa: F401  (the `torch` fixture)

pytestmark = pytest.mark.parity

DTYPES = ["uint8", "int8", "int16", "int32", "int64", "bool", "float16", "bfloat16", "float32", "float64",
          "complex64", "complex128"]
VALUES = [300, -1, -255, -256, -129, 128, 2 ** 31, -2 ** 31 - 1, 2 ** 63 - 1, -2 ** 63, 2 ** 63, 300.5, -1.5,
          -256.5, 127.9, -128.9, 1e10, 70000.0, 1e39, 3.5e38, 1e300, math.inf, -math.inf, math.nan, True,
          complex(1, 1), complex(300, 0), complex(1e300, 0), np.int64(300), np.int64(-1), np.float64(1e300),
          np.float32(1.0), np.float16(1.0), np.bool_(True), np.complex64(1), np.array(1.0)]


def _assign(lib, dtype, index, value):
    z = lib.zeros(3, dtype=getattr(lib, dtype))
    z[index] = value
    return [x if x == x else "nan" for x in z.tolist()]


def _same(e, t):
    assert e[:2] == t[:2]
    if e[0] == "raise":
        assert e[2].replace("ember.", "torch.") == t[2]
    else:
        assert e[1] == t[1]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("index", [0, slice(0, 2), Ellipsis], ids=["int", "slice", "ellipsis"])
def test_assigned_numbers_convert_as_torch(torch, dtype, index):
    for v in VALUES:
        _same(outcome(lambda: _assign(ember, dtype, index, v)), outcome(lambda: _assign(torch, dtype, index, v)))


def test_advanced_index_and_mask_assignments_check_the_value_too(torch):
    for lib_v in (300, -1, 1e300):
        for dtype in ("uint8", "float32"):
            e = outcome(lambda: _assign(ember, dtype, ember.tensor([0, 2]), lib_v))
            t = outcome(lambda: _assign(torch, dtype, torch.tensor([0, 2]), lib_v))
            _same(e, t)


EXPANDED = {
    "slice_number": lambda L, z: z.__setitem__(slice(0, 2), 1.0),
    "int_number": lambda L, z: z.__setitem__(0, 1.0),
    "slice_tensor": lambda L, z: z.__setitem__(slice(0, 2), L.ones(2)),
    "one_element_slice": lambda L, z: z.__setitem__(slice(1, 2), 5.0),
    "full_slice": lambda L, z: z.__setitem__(slice(None), 3.0),
    "ellipsis": lambda L, z: z.__setitem__(Ellipsis, 3.0),
    "index_tensor": lambda L, z: z.__setitem__(L.tensor([0, 1]), 2.0),
    "index_tensor_values": lambda L, z: z.__setitem__(L.tensor([0, 1]), L.tensor([2.0, 3.0])),
    "fill_scalar": lambda L, z: z.fill_(3.0),
    "fill_tensor": lambda L, z: z.fill_(L.tensor(3.0)),
    "masked_fill_": lambda L, z: z.masked_fill_(L.tensor([True, False, True, False]), 2.0),
}


@pytest.mark.parametrize("name", sorted(EXPANDED))
def test_writes_into_an_expanded_tensor_as_torch(torch, name):
    res = []
    for L in (ember, torch):
        z = L.zeros(1).expand(4)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            r = outcome(lambda: EXPANDED[name](L, z))
        # (torch's C++ warnings end in " (Triggered internally at <file>:<line>.)")
        res.append((r[0], r[1:] if r[0] == "raise" else z.tolist(),
                    [str(x.message).split(" (Triggered internally")[0] for x in w]))
    assert res[0] == res[1]


def test_rows_of_an_expanded_tensor_are_written_as_torch(torch):
    res = []
    for L in (ember, torch):
        a = L.zeros(1, 3).expand(2, 3)
        a[0] = L.ones(3)
        b = L.zeros(2, 1).expand(2, 3)
        b[:, 0] = 7.0
        res.append((a.tolist(), b.tolist()))
    assert res[0] == res[1]
