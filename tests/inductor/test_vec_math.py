"""Vectorised float32 log/tanh/erf/sin/cos/tan of the generated C (ember/_inductor/codegen/vec_math.py): error bounds in ulps
against float64 references over dense sweeps, special values, and that gcc vectorises loops calling them."""
import math
import os
import re
import shutil
import subprocess

import numpy as np
import pytest

import ember
from ember.testing import assert_close

from ._compiled import Compiled, fresh_caches

_fresh = pytest.fixture(autouse=True)(fresh_caches)

# the documented bounds (vec_math.py's docstring)
ULP_BOUND = {"log": 1, "tanh": 1, "erf": 1, "sin": 1, "cos": 1, "tan": 1}
ALL = list(ULP_BOUND)


def _ulps(got, ref64):
    """|got - ref| in units of the float32 spacing at the reference."""
    ref32 = ref64.astype(np.float32)
    spacing = np.spacing(np.abs(ref32)).astype(np.float64)
    return np.abs(got.astype(np.float64) - ref64) / spacing


def _inputs(op, n=400_000):
    rng = np.random.default_rng(0)
    if op == "log":
        bits = rng.integers(1, 0x7F800000, n, dtype=np.uint32)          # every positive finite float, subnormals too
        x = bits.view(np.float32)
        near_one = (1 + rng.uniform(-0.3, 0.3, n // 4)).astype(np.float32)
        return np.concatenate([x, near_one])
    if op in ("sin", "cos", "tan"):
        bits = rng.integers(0, 0x7F800000, n, dtype=np.uint32)          # every finite magnitude, huge ones too
        x = bits.view(np.float32) * np.where(rng.random(n) < 0.5, -1, 1).astype(np.float32)
        k = np.concatenate([np.arange(1, 20_000), rng.integers(1, 1 << 40, 20_000)]).astype(np.float64)
        near = (k * (np.pi / 2)).astype(np.float32)                     # the float32s nearest multiples of pi/2
        near = np.concatenate([near, np.nextafter(near, np.float32(np.inf)), np.nextafter(near, np.float32(0))])
        return np.concatenate([x, near, np.linspace(-100, 100, n // 2, dtype=np.float32)])
    mags = np.exp(rng.uniform(np.log(1e-8), np.log(12.0), n)).astype(np.float32)
    signs = np.where(rng.random(n) < 0.5, -1, 1).astype(np.float32)
    dense = np.linspace(-6, 6, n // 2, dtype=np.float32)
    return np.concatenate([mags * signs, dense])


def _reference(op, x):
    x64 = x.astype(np.float64)
    if op == "erf":
        return np.frompyfunc(math.erf, 1, 1)(x64).astype(np.float64)
    return getattr(np, op)(x64)


def _compiled_op(op):
    c = Compiled(lambda t: getattr(t, op)())
    return c


@pytest.mark.parametrize("op", ALL)
def test_error_within_documented_ulps(op):
    x = _inputs(op)
    c = _compiled_op(op)
    got = c(ember.tensor(x)).numpy()
    assert f"vm_{op}f(" in c.source()
    err = _ulps(got, _reference(op, x))
    assert err.max() <= ULP_BOUND[op], (op, err.max(), x[np.argmax(err)])


@pytest.mark.parametrize("op", ["sin", "cos", "tan"])
def test_small_range_variants_within_documented_ulps(op):
    """Every argument within SMALL_LIMIT: the table-free first pass is the result (no flag, no second pass)."""
    from ember._inductor.codegen.vec_math import SMALL_LIMIT
    rng = np.random.default_rng(1)
    n = 300_000
    k = np.concatenate([np.arange(1, 20_000), rng.integers(1, int(SMALL_LIMIT / 1.6), 20_000)]).astype(np.float64)
    near = (k * (np.pi / 2)).astype(np.float32)
    near = np.concatenate([near, np.nextafter(near, np.float32(np.inf)), np.nextafter(near, np.float32(0))])
    mags = np.exp(rng.uniform(np.log(1e-30), np.log(SMALL_LIMIT), n)).astype(np.float32)
    x = np.concatenate([mags * np.where(rng.random(n) < 0.5, -1, 1).astype(np.float32), near,
                        np.float32([SMALL_LIMIT, -SMALL_LIMIT, 0.0, -0.0])])
    c = _compiled_op(op)
    got = c(ember.tensor(x)).numpy()
    assert f"vm_{op}f_small(" in c.source() and "trig_big" in c.source()
    err = _ulps(got, _reference(op, x))
    assert err.max() <= ULP_BOUND[op], (op, err.max(), x[np.argmax(err)])
    assert np.signbit(got[-1]) == (op != "cos") and not np.signbit(got[-2])


def test_in_place_kernels_use_only_the_exact_trig():
    """A kernel writing its input cannot run its loop twice: it calls the exact functions only."""
    x = ember.tensor(np.float32([0.5, 1e20, -3.0, np.inf]))
    c = Compiled(lambda t: t.sin_())
    got = c(x.clone())
    kernels = [k.split("\n}\n")[0] for k in c.source().split("static void kernel")[1:]]
    in_place = [k for k in kernels if re.search(r"\bin_\w+\[[^]]*\] = ", k)]
    assert in_place and all("vm_sinf_small(" not in k and "vm_sinf(" in k for k in in_place)
    assert_close(got, x.clone().sin_(), equal_nan=True)


@pytest.mark.parametrize("op", ALL)
def test_special_values_match_eager(op):
    vals = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 1e-45, -1e-45, 1e-38, 3.4e38, -3.4e38,
                     1e-30, -1e-30, 9.5, -9.5, 0.5, -0.5, 4.0, -4.0, 0.78539819, -0.78539819, 1.5707964,
                     -1.5707964, 3.1415927, 1e20, -1e20, 16777216.0, 1.0471976, 2.4e9], dtype=np.float32)
    x = ember.tensor(vals)
    got = _compiled_op(op)(x)
    with np.errstate(all="ignore"):
        want = getattr(x, op)()
    assert_close(got, want, equal_nan=True)
    g, w = got.numpy(), want.numpy()
    zeros = w == 0
    assert (np.signbit(g[zeros]) == np.signbit(w[zeros])).all()       # -0.0 stays -0.0


def test_half_precision_inputs_use_the_float32_functions():
    x = ember.tensor(np.linspace(0.1, 4, 64, dtype=np.float32)).to(ember.bfloat16)
    c = Compiled(lambda t: t.log() + t.tanh() + t.erf())
    got = c(x)
    assert "vm_logf(" in c.source() and "vm_erff(" in c.source()
    assert_close(got, x.log() + x.tanh() + x.erf())


def test_float64_keeps_libm():
    x = ember.tensor(np.linspace(0.1, 4, 64))
    c = Compiled(lambda t: t.log() + t.erf())
    assert_close(c(x), x.log() + x.erf())
    assert "vm_logf(" not in c.source().split("static void kernel0")[1]


def test_loops_calling_them_vectorise():
    gcc = shutil.which(os.environ.get("CC", "gcc"))
    if gcc is None:
        pytest.skip("no C compiler")
    c = Compiled(lambda t: (t.log() + t.tanh()).erf() * 2 + t.sin() * t.cos() - t.tan())
    c(ember.rand(4096) + 0.5)
    assert all(f"vm_{op}f(" in c.source() for op in ALL)
    src = c.source()
    from ember._cc.build import FLAGS
    flags = [f for f in FLAGS if f not in ("-shared", "-fPIC")]
    r = subprocess.run([gcc, *flags, "-fopt-info-vec-optimized", "-x", "c", "-", "-c", "-o", os.devnull],
                       input=src, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    kernel_start = next(i for i, ln in enumerate(src.splitlines()) if ln.startswith("static void kernel0")) + 1
    vec_lines = [int(m.group(1)) for m in re.finditer(r"<stdin>:(\d+):\d+: optimized: loop vectorized", r.stderr)]
    assert any(ln > kernel_start for ln in vec_lines), r.stderr
