"""NaN bits of binary results against torch. maximum/minimum: torch never passes a NaN operand's bits on (its
AVX-512 loop writes all-ones lanes, 16 float32 / 8 float64, its scalar tail the canonical quiet NaN), so the bits
depend on the element's place in the loop; tested for contiguous operands, numbers and a broadcast row (ember's
documented rule in kernels/cpu/elementwise_math.py). where and clamp pass the operand's NaN on in both."""
import numpy as np
import pytest

import ember

PAYLOAD = {np.float32: np.array([0xFFC00005], np.uint32).view(np.float32)[0],
           np.float64: np.array([0xFFF8000000000005], np.uint64).view(np.float64)[0]}

FORMS = {
    "maximum": lambda L, A, B: L.maximum(A, B),
    "minimum": lambda L, A, B: L.minimum(A, B),
    "maximum number": lambda L, A, B: L.maximum(A, L.tensor(1., dtype=A.dtype)),
    "maximum row": lambda L, A, B: L.maximum(A.reshape(1, -1), B),
    "maximum out": lambda L, A, B: L.maximum(A, B, out=L.empty(A.shape, dtype=A.dtype)),
    "max(a, b)": lambda L, A, B: L.max(A, B),
    "where": lambda L, A, B: L.where(B > 0, A, B),
    "clamp": lambda L, A, B: L.clamp(A, 0., 2.),
}


def _bits(L, form, dt, n):
    a = np.ones(n, dt)
    a[::3] = np.nan
    a[-1] = PAYLOAD[dt]
    b = np.ones(n, dt)
    b[1::4] = np.nan
    r = FORMS[form](L, L.from_numpy(a), L.from_numpy(b)).numpy().reshape(-1)
    return r.view(np.uint32 if dt == np.float32 else np.uint64).tolist()


@pytest.mark.parity
@pytest.mark.parametrize("n", [1, 2, 3])
@pytest.mark.parametrize("dt", [np.float32, np.float64], ids=["float32", "float64"])
@pytest.mark.parametrize("form", sorted(FORMS))
def test_nan_bits_like_torch(form, dt, n):
    """Fewer elements than any vector holds: torch's scalar loop, whatever the machine."""
    torch = pytest.importorskip("torch")
    assert _bits(ember, form, dt, n) == _bits(torch, form, dt, n)


@pytest.mark.parametrize("n", [8, 15, 16, 17, 33, 40])
@pytest.mark.parametrize("dt", [np.float32, np.float64], ids=["float32", "float64"])
@pytest.mark.parametrize("form", ["maximum", "minimum", "maximum number", "maximum row", "maximum out", "max(a, b)"])
def test_max_min_nan_bits_follow_the_avx512_loop(form, dt, n):
    """ember's documented result (torch's on an AVX-512 build, as this one: elsewhere torch's vector width, and so
    its bits, differ): all-ones in the 16 (float32) / 8 (float64) lane body, the canonical NaN in the tail."""
    lanes, canon, ones = (16, 0x7FC00000, 0xFFFFFFFF) if dt == np.float32 else (8, 0x7FF8000000000000, 2 ** 64 - 1)
    got = _bits(ember, form, dt, n)
    body = n - n % lanes
    a = np.ones(n, dt)
    a[::3] = np.nan
    b = np.ones(n, dt)
    b[1::4] = np.nan
    nan_at = np.isnan(a) | (np.isnan(b) if "number" not in form else False)
    nan_at[-1] = True
    want = [(ones if i < body else canon) if nan_at[i] else got[i] for i in range(n)]
    assert got == want


@pytest.mark.parity
def test_max_min_nan_bits_on_this_machine():
    """On this machine (AVX-512, where the suite runs) the documented rule is torch's result."""
    torch = pytest.importorskip("torch")
    for dt in (np.float32, np.float64):
        for n in (16, 17, 40):
            for form in ("maximum", "minimum", "maximum out"):
                assert _bits(ember, form, dt, n) == _bits(torch, form, dt, n)
