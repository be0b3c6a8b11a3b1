"""ember.finfo / ember.iinfo and the dtype attributes torch has, checked against torch."""
import math

import numpy as np
import pytest

import ember
from ember._core import dtype as D

FLOATS = ["float64", "float32", "float16", "bfloat16", "float8_e4m3fn", "float8_e5m2",
          "float8_e4m3fnuz", "float8_e5m2fnuz", "complex64", "complex128"]
INTS = ["uint8", "int8", "int16", "int32", "int64", "uint16", "uint32", "uint64"]
FIELDS = ["bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution", "dtype"]


def test_finfo_matches_numpy_for_ieee_types():
    for name in ("float16", "float32", "float64"):
        f, n = ember.finfo(getattr(ember, name)), np.finfo(getattr(np, name))
        assert f.eps == float(n.eps) and f.max == float(n.max) and f.min == float(n.min)
        assert f.tiny == float(n.tiny) and f.bits == n.bits and f.resolution == pytest.approx(float(n.resolution), rel=1e-3)


def test_finfo_default_dtype_and_complex_real_part():
    assert ember.finfo() == ember.finfo(ember.float32)
    old = ember.get_default_dtype()
    ember.set_default_dtype(ember.float64)
    try:
        assert ember.finfo().dtype == "float64"
    finally:
        ember.set_default_dtype(old)
    assert ember.finfo(ember.complex64) == ember.finfo(ember.float32)
    assert ember.finfo(ember.complex128).bits == 64


def test_info_objects_are_read_only_and_unhashable():
    f = ember.finfo(ember.float16)
    with pytest.raises(AttributeError, match="eps"):
        f.eps = 1.0
    with pytest.raises(TypeError):
        hash(f)
    assert f != ember.finfo(ember.bfloat16)
    i = ember.iinfo(ember.int8)
    assert (i.min, i.max, i.bits) == (-128, 127, 8) and isinstance(i.max, int)
    with pytest.raises(AttributeError):
        i.max = 3


@pytest.mark.parametrize("bad", [ember.int32, ember.bool, ember.uint8])
def test_finfo_rejects_non_float(bad):
    with pytest.raises(TypeError, match="floating point"):
        ember.finfo(bad)


@pytest.mark.parametrize("bad", [ember.float32, ember.complex64, ember.bfloat16])
def test_iinfo_rejects_non_int(bad):
    with pytest.raises(TypeError, match="integer"):
        ember.iinfo(bad)


@pytest.mark.parametrize("bad", [1, "float32", None, np.float32])
def test_info_rejects_non_dtype(bad):
    with pytest.raises(TypeError, match="must be ember.dtype"):
        ember.finfo(bad)
    with pytest.raises(TypeError, match="must be ember.dtype"):
        ember.iinfo(bad)


def test_iinfo_needs_an_argument_and_rejects_bool():
    with pytest.raises(TypeError):
        ember.iinfo()
    with pytest.raises(TypeError, match="bool"):
        ember.iinfo(ember.bool)
    with pytest.raises(TypeError):
        ember.finfo(ember.float32, 1)


def test_finfo_eps_is_the_gap_after_one():
    # 1 + eps is representable and 1 + eps/2 rounds back to 1 in every format numpy can hold
    for name in ("float16", "float32", "float64", "bfloat16", "float8_e4m3fn", "float8_e5m2"):
        d = getattr(ember, name)
        eps = ember.finfo(d).eps
        one = ember.ones(1, dtype=d)
        assert (one + eps).to(ember.float64).item() == 1 + eps
        assert (one + eps / 4).to(ember.float64).item() == 1.0
        mx = ember.tensor([ember.finfo(d).max], dtype=ember.float64).to(d)
        assert math.isfinite(mx.to(ember.float64).item()) and mx.to(ember.float64).item() == ember.finfo(d).max


@pytest.mark.parity
@pytest.mark.parametrize("name", FLOATS)
def test_finfo_parity(name):
    torch = pytest.importorskip("torch")
    e, t = ember.finfo(getattr(ember, name)), torch.finfo(getattr(torch, name))
    for k in FIELDS:
        assert getattr(e, k) == getattr(t, k), k
        assert type(getattr(e, k)) is type(getattr(t, k)), k
    assert repr(e) == repr(t)


@pytest.mark.parity
@pytest.mark.parametrize("name", INTS)
def test_iinfo_parity(name):
    torch = pytest.importorskip("torch")
    e, t = ember.iinfo(getattr(ember, name)), torch.iinfo(getattr(torch, name))
    for k in ("bits", "min", "max", "dtype"):
        assert getattr(e, k) == getattr(t, k), k
        assert type(getattr(e, k)) is type(getattr(t, k)), k
    assert repr(e) == repr(t)


@pytest.mark.parity
@pytest.mark.parametrize("d", D.ALL_DTYPES, ids=lambda d: d.name)
def test_dtype_attributes_parity(d):
    torch = pytest.importorskip("torch")
    t = getattr(torch, d.name)
    for k in ("is_floating_point", "is_complex", "is_signed", "itemsize", "abbr"):
        assert getattr(d, k) == getattr(t, k), k
    x = ember.zeros(1, dtype=d)
    assert x.dtype.itemsize == x.element_size() == t.itemsize
