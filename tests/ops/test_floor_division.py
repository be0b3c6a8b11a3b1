"""Floor division's values against torch over many sizes (issue 20: a floor division returning the true
result plus one on tensors of more than three elements passed every op test).

`div(rounding_mode="floor")`, `floor_divide`, `//` (Tensor and Python-number divisors, reflected),
`div(rounding_mode="trunc")`, `remainder`/`%` and `fmod` are compared element for element with torch 2.13
on sizes from 0 to past the lengths where vectorised and chunked kernels change paths, with negative
dividends and divisors, exact multiples and contiguous and strided inputs."""
import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.parity

SIZES = list(range(0, 18)) + [31, 32, 33, 63, 64, 65, 127, 128, 129, 255, 257, 1000, 1024, 4097]
DTYPES = ["float32", "float64", "int64", "int32"]


def _operands(n, dt, seed):
    rng = np.random.default_rng(seed)
    if dt.startswith("int"):
        a = rng.integers(-50, 50, n)
        b = rng.integers(1, 7, n) * np.where(rng.random(n) < 0.4, -1, 1)
    else:
        a = rng.uniform(-20.0, 20.0, n)
        b = rng.uniform(0.25, 4.0, n) * np.where(rng.random(n) < 0.4, -1, 1)
        k = n // 3
        a[:k] = np.round(a[:k]) * 0.5        # exact multiples of power-of-two divisors: no rounding slack
        b[:k] = np.where(b[:k] < 0, -0.5, 2.0)
    return a.astype(dt), b.astype(dt)


def _same(got, want, what):
    assert got.dtype.name == str(want.dtype)[6:], what
    assert tuple(got.shape) == tuple(want.shape), what
    np.testing.assert_array_equal(got.numpy(), want.numpy(), err_msg=what)


def _pairs(a, b):
    """(ember dividend, ember divisor, torch dividend, torch divisor): contiguous, then every other element
    of a twice-as-long buffer."""
    yield ember.from_numpy(a.copy()), ember.from_numpy(b.copy()), torch.from_numpy(a.copy()), \
        torch.from_numpy(b.copy())
    a2, b2 = np.repeat(a, 2), np.repeat(b, 2)
    yield ember.from_numpy(a2)[::2], ember.from_numpy(b2)[::2], torch.from_numpy(a2)[::2], \
        torch.from_numpy(b2)[::2]


BINARY = {
    "div-floor": (lambda m, x, y: m.div(x, y, rounding_mode="floor")),
    "div-trunc": (lambda m, x, y: m.div(x, y, rounding_mode="trunc")),
    "floor_divide": (lambda m, x, y: m.floor_divide(x, y)),
    "//": (lambda m, x, y: x // y),
    "remainder": (lambda m, x, y: m.remainder(x, y)),
    "%": (lambda m, x, y: x % y),
    "fmod": (lambda m, x, y: m.fmod(x, y)),
}


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("name", list(BINARY))
def test_tensor_divisor_matches_torch(name, dt):
    f = BINARY[name]
    for n in SIZES:
        a, b = _operands(n, dt, n)
        for ea, eb, ta, tb in _pairs(a, b):
            _same(f(ember, ea, eb), f(torch, ta, tb), f"{name} {dt} n={n} strided={not ea.is_contiguous()}")


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("name", list(BINARY))
def test_number_divisor_matches_torch(name, dt):
    f = BINARY[name]
    divisors = (3, -4) if dt.startswith("int") else (2.5, -0.75, 3)
    for n in SIZES[::3]:
        a, _ = _operands(n, dt, n + 100)
        for d in divisors:
            _same(f(ember, ember.from_numpy(a.copy()), d), f(torch, torch.from_numpy(a.copy()), d),
                  f"{name} {dt} n={n} divisor={d}")


@pytest.mark.parametrize("dt", DTYPES)
def test_number_dividend_and_in_place_match_torch(dt):
    for n in SIZES[::2]:
        a, b = _operands(n, dt, n + 200)
        num = 7 if dt.startswith("int") else 7.5
        _same(num // ember.from_numpy(b.copy()), num // torch.from_numpy(b.copy()), f"rfloordiv {dt} n={n}")
        _same(num % ember.from_numpy(b.copy()), num % torch.from_numpy(b.copy()), f"rmod {dt} n={n}")
        x, tx = ember.from_numpy(a.copy()), torch.from_numpy(a.copy())
        x //= ember.from_numpy(b.copy())
        tx //= torch.from_numpy(b.copy())
        _same(x, tx, f"ifloordiv {dt} n={n}")
        x, tx = ember.from_numpy(a.copy()), torch.from_numpy(a.copy())
        x.div_(ember.from_numpy(b.copy()), rounding_mode="floor")
        tx.div_(torch.from_numpy(b.copy()), rounding_mode="floor")
        _same(x, tx, f"div_ floor {dt} n={n}")
