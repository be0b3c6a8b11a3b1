"""torch.special's Bessel-type functions (airy_ai, bessel_j0/j1/y0/y1, modified_bessel_i0/i1/k0/k1,
scaled_modified_bessel_k0/k1, spherical_bessel_j0) against torch: values over wide ranges in float32 and
float64 (0, the negative axis, the split points of the approximations, huge values, +-inf, nan), dtype
promotion and refusal, out=, argument names, meta tensors and the absence of gradients."""
import math

import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.parity

NAMES = ["airy_ai", "bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "modified_bessel_i0", "modified_bessel_i1",
         "modified_bessel_k0", "modified_bessel_k1", "scaled_modified_bessel_k0", "scaled_modified_bessel_k1",
         "spherical_bessel_j0"]
X_NAMED = {"airy_ai", "scaled_modified_bessel_k0", "scaled_modified_bessel_k1", "spherical_bessel_j0"}

_rng = np.random.default_rng(19)
WIDE = np.concatenate([
    np.linspace(-40, 40, 4001), _rng.uniform(-2e3, 2e3, 2000), np.geomspace(1e-30, 1e30, 301),
    -np.geomspace(1e-30, 1e30, 301),
    # the approximations' split points and their neighbours
    [0.0, -0.0, 1e-5, 9.99e-6, -1e-5, 0.5, -0.5, 0.4999, 2.0, 2.0001, 1.9999, 5.0, 5.0001, -5.0, 8.0, 8.0001, -8.0,
     2.09, 2.0899, -2.09, -2.0901, 8.3203353, 8.33, 103.892, 103.9, 88.7, 89.0, 709.0, 710.0, 1e300, -1e300,
     5e-324, 1e-310, -1e-310, 1e-45, math.inf, -math.inf, math.nan]])
# float32 tolerances cover a few float ulps of the terms that cancel near the zeros of J and Y (torch's float
# kernels round each step in float, as these do, but libm and FMA contraction differ by an ulp here and there)
TOL = {"float64": dict(rtol=1e-13, atol=1e-16), "float32": dict(rtol=4e-6, atol=1e-6)}


def _compare(a, b, dtype):
    a, b = a.numpy(), b.numpy()
    assert a.dtype == b.dtype
    np.testing.assert_array_equal(np.isnan(a), np.isnan(b))
    inf = np.isinf(b)
    np.testing.assert_array_equal(a[inf], b[inf])
    fin = np.isfinite(b)
    np.testing.assert_allclose(a[fin], b[fin], **TOL[dtype])


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", NAMES)
def test_values_wide(name, dtype):
    with np.errstate(over="ignore"):
        x = WIDE.astype(dtype)
    _compare(getattr(ember.special, name)(ember.tensor(x)), getattr(torch.special, name)(torch.tensor(x)), dtype)


@pytest.mark.parametrize("name", NAMES)
def test_float32_keeps_float32_rounding(name):
    """torch computes float32 inputs in float (not in double, then rounded): at large arguments the phase
    x - pi/4 already differs, so float32 results must not equal the float64 ones rounded."""
    x = np.array([1234.5, 98765.4, 3.3e5, -4.2e3, 7.25, 0.3, 1.7], dtype=np.float32)
    a = getattr(ember.special, name)(ember.tensor(x))
    b = getattr(torch.special, name)(torch.tensor(x))
    _compare(a, b, "float32")


@pytest.mark.parametrize("name", NAMES)
def test_integer_and_bool_inputs_promote(name):
    f, g = getattr(ember.special, name), getattr(torch.special, name)
    for values, et, tt in (([-3, -1, 0, 1, 2, 7, 40], ember.int64, torch.int64),
                           ([0, 5, 9], ember.int32, torch.int32), ([True, False], ember.bool, torch.bool)):
        r, w = f(ember.tensor(values, dtype=et)), g(torch.tensor(values, dtype=tt))
        assert str(r.dtype).split(".")[-1] == str(w.dtype).split(".")[-1] == "float32"
        _compare(r, w, "float32")
    old = ember.get_default_dtype(), torch.get_default_dtype()
    try:
        ember.set_default_dtype(ember.float64)
        torch.set_default_dtype(torch.float64)
        r, w = f(ember.tensor([1, 4, 11])), g(torch.tensor([1, 4, 11]))
        assert r.dtype == ember.float64 and w.dtype == torch.float64
        _compare(r, w, "float64")
    finally:
        ember.set_default_dtype(old[0])
        torch.set_default_dtype(old[1])


def _error(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001  (the exception is the result compared)
        return type(e).__name__, str(e)
    return None


@pytest.mark.parametrize("name", NAMES)
def test_unsupported_dtypes_refused_as_torch(name):
    for d in ("float16", "bfloat16", "complex64", "complex128"):
        got = _error(lambda: getattr(ember.special, name)(ember.ones(3, dtype=getattr(ember, d))))
        want = _error(lambda: getattr(torch.special, name)(torch.ones(3, dtype=getattr(torch, d))))
        assert want is not None and got == want, (d, got, want)
    got = _error(lambda: getattr(ember.special, name)(2.0))
    want = _error(lambda: getattr(torch.special, name)(2.0))
    assert got == want


@pytest.mark.parametrize("name", NAMES)
def test_out(name):
    f, g = getattr(ember.special, name), getattr(torch.special, name)
    x = np.array([0.25, 1.5, 3.0, 7.5, 12.0], dtype=np.float32)
    # float32 input into a float64 out: computed in float32, then widened (as torch)
    o, w = ember.empty(5, dtype=ember.float64), torch.empty(5, dtype=torch.float64)
    assert f(ember.tensor(x), out=o) is o
    g(torch.tensor(x), out=w)
    _compare(o, w, "float32")                       # float64 values, float32 rounding
    # a wrongly sized out is resized with torch's warning
    o, w = ember.empty(2, 3), torch.empty(2, 3)
    with pytest.warns(UserWarning, match="was resized"):
        f(ember.tensor(x), out=o)
    with pytest.warns(UserWarning, match="was resized"):
        g(torch.tensor(x), out=w)
    assert tuple(o.shape) == tuple(w.shape) == (5,)
    _compare(o, w, "float32")
    # refused out dtypes, and refused input dtypes with a castable out: torch's order and messages
    for xd, od in (("float32", "int64"), ("float16", "int64"), ("float16", "float32")):
        got = _error(lambda: f(ember.ones(3, dtype=getattr(ember, xd)), out=ember.empty(3, dtype=getattr(ember, od))))
        want = _error(lambda: g(torch.ones(3, dtype=getattr(torch, xd)), out=torch.empty(3, dtype=getattr(torch, od))))
        assert want is not None and got == want, (xd, od, got, want)


@pytest.mark.parametrize("name", NAMES)
def test_argument_names_and_module_path(name):
    kw = "x" if name in X_NAMED else "input"
    t = np.array([0.5, 2.5])
    _compare(getattr(ember.special, name)(**{kw: ember.tensor(t)}), getattr(torch.special, name)(**{kw: torch.tensor(t)}),
             "float64")
    assert getattr(ember.ops.aten, f"special_{name}").out is not None
    assert name in ember.special.__all__


@pytest.mark.parametrize("name", NAMES)
def test_no_gradient_as_torch(name):
    """torch's derivatives.yaml marks these non_differentiable: the output never requires grad."""
    r = getattr(ember.special, name)(ember.tensor([0.5, 1.5], requires_grad=True))
    w = getattr(torch.special, name)(torch.tensor([0.5, 1.5], requires_grad=True))
    assert r.requires_grad is w.requires_grad is False
    assert r.grad_fn is None and w.grad_fn is None


@pytest.mark.parametrize("name", NAMES)
def test_strided_and_meta_inputs(name):
    base = np.linspace(0.1, 9.0, 24).reshape(4, 6)
    e = ember.tensor(base).t()[::2]
    w = torch.tensor(base).t()[::2]
    r = getattr(ember.special, name)(e)
    assert tuple(r.stride()) == tuple(getattr(torch.special, name)(w).stride())
    _compare(r, getattr(torch.special, name)(w), "float64")
    m = getattr(ember.special, name)(ember.empty(3, 5, device="meta", dtype=ember.int64))
    assert m.device.type == "meta" and tuple(m.shape) == (3, 5) and m.dtype == ember.float32
