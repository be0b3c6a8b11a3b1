"""bfloat16 NaN bits of elementwise results (kernels/cpu/elementwise_bf16.py): torch's vectorised loops write
0xffff, its scalar loops 0x7fc0, and which loop runs depends on the op, the layout and the CPU's vector width.
The CPU-independent cases are compared with torch; the vector-width ones with torch when its capability is
the one ember models (AVX-512: 32 lanes, AVX2: 16), and with ember's documented rule otherwise."""
import warnings

import numpy as np
import pytest

import ember
from ember.kernels.cpu import elementwise_bf16



def _nan_bits(lib, t):
    v = [x & 0xFFFF for x in t.reshape(-1).view(lib.int16).tolist()]
    return [x if (x & 0x7FFF) > 0x7F80 else None for x in v]


def _binary_cases(lib, n):
    z = lib.zeros(n, dtype=lib.bfloat16)
    inf = lib.full((n,), float("inf"), dtype=lib.bfloat16)
    zz = lib.zeros(2 * n, dtype=lib.bfloat16)
    return {"0/0": lambda: z / z, "0/0 number": lambda: z / 0, "inf-inf": lambda: inf - inf,
            "inf*0": lambda: inf * z, "0*inf number": lambda: z * float("inf"), "fmod": lambda: lib.fmod(z + 1, z),
            "div_": lambda: z.clone().div_(0), "strided": lambda: zz[::2] / zz[::2],
            "broadcast": lambda: z / lib.zeros(1, dtype=lib.bfloat16), "add nan": lambda: z + float("nan"),
            "transposed": lambda: (lambda m: m / m)(lib.zeros(n, 3, dtype=lib.bfloat16).t()),
            "out=": lambda: lib.div(z, z, out=lib.empty(n, dtype=lib.bfloat16))}


def _unary_cases(lib, n):
    x = lib.tensor(([-2.0, -1.0, 2.0, float("inf"), float("nan")] * n)[:n], dtype=lib.bfloat16)
    cases = {name: (lambda name=name: getattr(lib, name)(x)) for name in
             ["sqrt", "log", "log2", "log10", "log1p", "exp", "sin", "cos", "tan", "tanh", "acos", "asin", "floor",
              "ceil", "round", "trunc", "expm1", "logit"]}
    cases.update({f"pow {e}": (lambda e=e: x ** e) for e in (0.5, 2, 3, -1, 1.5)})
    cases["pow strided"] = lambda: lib.cat([x, x])[::2] ** 2
    cases["sqrt_"] = lambda: x.clone().sqrt_()
    return cases


def _outcomes(lib, make, n):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return {k: _nan_bits(lib, f()) for k, f in make(lib, n).items()}


@pytest.mark.parity
@pytest.mark.parametrize("n", [1, 3, 5, 8, 15])
def test_bf16_nan_bits_match_torch_below_one_vector_step(n):
    """Below 16 elements every binary op runs torch's scalar loop (0x7fc0) whatever the CPU; the listed unary
    ops and pow(x, 0.5) are vectorised to the end (0xffff), pow with other exponents is scalar (0x7fc0)."""
    torch = pytest.importorskip("torch")
    for make in (_binary_cases, _unary_cases):
        assert _outcomes(ember, make, n) == _outcomes(torch, make, n)


@pytest.mark.parity
@pytest.mark.parametrize("n", [16, 31, 32, 33, 63, 64, 65, 100, 130])
def test_bf16_nan_bits_match_torch_with_the_same_vector_width(n):
    torch = pytest.importorskip("torch")
    cap = torch.backends.cpu.get_cpu_capability()
    if {"AVX512": 32, "AVX2": 16}.get(cap) != elementwise_bf16._step():
        pytest.skip(f"torch runs {cap} kernels, ember models a {elementwise_bf16._step()}-lane step")
    for make in (_binary_cases, _unary_cases):
        assert _outcomes(ember, make, n) == _outcomes(torch, make, n)


def test_bf16_binary_nan_bits_follow_the_documented_rule():
    """Contiguous rows: whole steps of the vectorised loop 0xffff, the row's tail 0x7fc0; strided: 0x7fc0."""
    step = elementwise_bf16._step()
    n = 2 * step + 5
    z = ember.zeros(n, dtype=ember.bfloat16)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert _nan_bits(ember, z / z) == [0xFFFF] * (2 * step) + [0x7FC0] * 5
        assert _nan_bits(ember, z[::2] / 0) == [0x7FC0] * len(z[::2])
        assert set(_nan_bits(ember, ember.sqrt(-ember.ones(n, dtype=ember.bfloat16)))) == {0xFFFF}
