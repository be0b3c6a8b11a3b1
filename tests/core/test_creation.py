"""Factories: values, dtypes, shapes, strides; meta agrees with cpu; parity with torch."""
import numpy as np
import pytest

import ember


def same_meta(fn, *args, **kw):
    c = fn(*args, **kw)
    m = fn(*args, device="meta", **kw)
    assert m.device.type == "meta"
    assert (m.shape, m.dtype, m.stride()) == (c.shape, c.dtype, c.stride())
    return c


@pytest.mark.parametrize("fn", [ember.zeros, ember.ones, ember.empty, ember.rand, ember.randn])
def test_size_forms_and_meta(fn):
    a = same_meta(fn, 2, 3)
    b = fn((2, 3))
    c = fn([2, 3])
    assert a.shape == b.shape == c.shape == (2, 3)
    assert a.stride() == (3, 1)
    assert fn(()).shape == () and fn(0, 4).shape == (0, 4)


@pytest.mark.parametrize("fn", [ember.empty, ember.rand, ember.randn, lambda *s, **k: ember.full(s, 1, **k)])
@pytest.mark.parametrize("device", ["cpu", "meta"])
def test_negative_size(fn, device):
    with pytest.raises(RuntimeError, match=r"Trying to create tensor with negative dimension -1: \[-1, 2\]"):
        fn(-1, 2, device=device)


@pytest.mark.parametrize("device", ["cpu", "meta"])
def test_negative_size_zeros(device):   # torch 2.13 checks zeros earlier, with another message
    with pytest.raises(RuntimeError, match="zeros: Dimension size must be non-negative."):
        ember.zeros(2, -1, device=device)
    with pytest.raises(RuntimeError, match=r"negative dimension -1: \[-1\]"):
        ember.ones(-1, device=device)


def test_values_and_dtypes():
    assert ember.zeros(2, 2).numpy().tolist() == [[0, 0], [0, 0]]
    assert ember.ones(3, dtype=ember.int32).dtype is ember.int32
    assert ember.full((2,), True).dtype is ember.bool
    assert ember.full((2,), 3).dtype is ember.int64
    assert ember.full((2,), 3.5).dtype is ember.float32
    assert ember.full((2,), 3.5).numpy().tolist() == [3.5, 3.5]
    assert ember.full((2,), 1 + 2j).dtype is ember.complex64
    assert ember.scalar_tensor(3).dtype is ember.float32 and ember.scalar_tensor(3).shape == ()


def test_requires_grad_kwarg():
    assert ember.zeros(2, requires_grad=True).requires_grad
    assert not ember.zeros(2).requires_grad


def test_empty_strided_and_channels_last():
    t = same_meta(ember.empty_strided, (2, 3), (1, 2))
    assert t.stride() == (1, 2)
    t = same_meta(ember.empty, (2, 3, 4, 5), memory_format=ember.channels_last)
    assert t.stride() == (60, 1, 15, 3)


def test_arange():
    assert ember.arange(5).numpy().tolist() == [0, 1, 2, 3, 4] and ember.arange(5).dtype is ember.int64
    assert ember.arange(1, 4).numpy().tolist() == [1, 2, 3]
    assert ember.arange(0, 1, 0.25).dtype is ember.float32
    assert ember.arange(10, 0, -3).numpy().tolist() == [10, 7, 4, 1]
    same_meta(ember.arange, 0, 2.5, 0.5)
    with pytest.raises(RuntimeError, match="step must be nonzero"):
        ember.arange(0, 5, 0)
    with pytest.raises(RuntimeError, match="inconsistent with step sign"):
        ember.arange(0, 5, -1)


def test_linspace_eye():
    assert ember.linspace(0, 1, 5).numpy().tolist() == [0, 0.25, 0.5, 0.75, 1]
    assert ember.linspace(0, 1, 0).shape == (0,)
    with pytest.raises(RuntimeError, match="non-negative"):
        ember.linspace(0, 1, -1)
    assert ember.eye(2).numpy().tolist() == [[1, 0], [0, 1]]
    assert same_meta(ember.eye, 2, 3).shape == (2, 3)
    with pytest.raises(RuntimeError, match="n must be greater or equal to 0, got -1"):
        ember.eye(-1)


def test_like_preserves_dense_strides():
    base = ember.zeros(3, 4)
    t = ember.empty_strided((3, 4), (1, 3))            # transposed-dense
    for fn in (ember.empty_like, ember.zeros_like, ember.ones_like, ember.rand_like, ember.randn_like):
        r = fn(t)
        assert r.stride() == (1, 3) and r.shape == (3, 4)
        m = fn(t, device="meta")
        assert (m.device.type, m.stride(), m.dtype) == ("meta", (1, 3), r.dtype)
        assert fn(t, memory_format=ember.contiguous_format).stride() == (4, 1)
    assert ember.full_like(base, 7).numpy().tolist() == [[7] * 4] * 3
    assert ember.full_like(base, 7, dtype=ember.int64).dtype is ember.int64
    assert ember.ones_like(base).numpy().sum() == 12
    assert ember.randint_like(base, 5).dtype is ember.float32


def test_new_methods():
    x = ember.zeros(2, dtype=ember.int32)
    assert x.new_zeros(2, 3).shape == (2, 3) and x.new_zeros((2, 3)).dtype is ember.int32
    assert x.new_ones(2).numpy().tolist() == [1, 1]
    assert x.new_full((2,), 5).numpy().tolist() == [5, 5]
    assert x.new_empty(4, dtype=ember.float64).dtype is ember.float64
    assert x.new_zeros(3, device="meta").device.type == "meta"


# ------------------------------------------------------------------ parity with torch
@pytest.fixture(scope="module")
def torch():
    return pytest.importorskip("torch")


def _td(torch, d):
    return None if d is None else getattr(torch, d)


def _ed(d):
    return None if d is None else getattr(ember, d)


def check(e, t):
    assert tuple(e.shape) == tuple(t.shape)
    assert e.stride() == t.stride()
    assert str(e.dtype).split(".")[-1] == str(t.dtype).split(".")[-1]
    np.testing.assert_array_equal(e.numpy(), t.numpy())


@pytest.mark.parity
@pytest.mark.parametrize("dtype", [None, "float64", "int32", "bool", "float16"])
@pytest.mark.parametrize("name", ["zeros", "ones"])
def test_parity_zeros_ones(torch, name, dtype):
    check(getattr(ember, name)(2, 3, dtype=_ed(dtype)), getattr(torch, name)(2, 3, dtype=_td(torch, dtype)))


@pytest.mark.parity
@pytest.mark.parametrize("fill", [True, 3, -2.5, 1e10])
@pytest.mark.parametrize("dtype", [None, "float64", "int64"])
def test_parity_full(torch, fill, dtype):
    check(ember.full((2, 2), fill, dtype=_ed(dtype)), torch.full((2, 2), fill, dtype=_td(torch, dtype)))


@pytest.mark.parity
@pytest.mark.parametrize("args", [(5,), (2, 9), (0, 1, 0.1), (1, 2.5, 0.5), (-3, 7, 3), (10, 0, -3), (0.5, 3),
                                  (0, 1, 0.3), (5, 5), (0, -1.5, -0.1), (0,), (0, 10, 4), (1, 2, 5), (7, 8)])
@pytest.mark.parametrize("dtype", [None, "float64", "int32", "float32"])
def test_parity_arange(torch, args, dtype):
    check(ember.arange(*args, dtype=_ed(dtype)), torch.arange(*args, dtype=_td(torch, dtype)))


@pytest.mark.parity
@pytest.mark.parametrize("args", [(0, 1, 5), (-3, 7, 11), (0, 1, 1), (1, 0, 7), (0, 10, 4), (2, 3, 0), (0, 1, 100)])
@pytest.mark.parametrize("dtype", [None, "float64", "int64"])
def test_parity_linspace(torch, args, dtype):
    e, t = ember.linspace(*args, dtype=_ed(dtype)), torch.linspace(*args, dtype=_td(torch, dtype))
    assert e.shape == tuple(t.shape) and str(e.dtype)[6:] == str(t.dtype)[6:]
    np.testing.assert_allclose(e.numpy(), t.numpy(), rtol=1e-6, atol=1e-6)


@pytest.mark.parity
@pytest.mark.parametrize("nm", [(3,), (2, 4), (4, 2), (0,)])
def test_parity_eye(torch, nm):
    check(ember.eye(*nm), torch.eye(*nm))


@pytest.mark.parity
@pytest.mark.parametrize("strides", [(4, 1), (1, 3), (8, 2)])
@pytest.mark.parametrize("name", ["empty_like", "zeros_like", "ones_like", "rand_like"])
def test_parity_like_strides(torch, strides, name):
    e = getattr(ember, name)(ember.empty_strided((3, 4), strides))
    t = getattr(torch, name)(torch.empty_strided((3, 4), strides))
    assert e.stride() == t.stride() and e.dtype.name == str(t.dtype)[6:]


@pytest.mark.parity
def test_parity_errors(torch):
    for fn in ("zeros", "ones", "empty", "rand"):
        with pytest.raises(RuntimeError) as te:
            getattr(torch, fn)(-1, 2)
        with pytest.raises(RuntimeError) as ee:
            getattr(ember, fn)(-1, 2)
        assert str(ee.value) == str(te.value)
    for args in [(0, 5, 0), (0, 5, -1)]:
        with pytest.raises(RuntimeError) as te:
            torch.arange(*args)
        with pytest.raises(RuntimeError) as ee:
            ember.arange(*args)
        assert str(ee.value) == str(te.value)


@pytest.mark.parity
@pytest.mark.parametrize("dtype", [None, "float64", "int64", "int32", "complex64"])
@pytest.mark.parametrize("args", [(0, 3, 4), (1.5, 2.7, 3), (-1, 2, 5, 2.0), (2, 2, 1), (3, -1, 6, 3.0), (0, 1, 0)])
def test_parity_logspace(torch, args, dtype):
    e, t = ember.logspace(*args, dtype=_ed(dtype)), torch.logspace(*args, dtype=_td(torch, dtype))
    assert (tuple(e.shape), str(e.dtype).split(".")[-1]) == (tuple(t.shape), str(t.dtype).split(".")[-1])
    np.testing.assert_allclose(e.numpy(), t.numpy(), rtol=1e-6)


@pytest.mark.parity
@pytest.mark.parametrize("overload", ["Tensor_Tensor", "Tensor_Scalar", "Scalar_Tensor"])
def test_parity_logspace_tensor_overloads(torch, overload):
    """The aten overloads taking 0-d tensors (the binding may pick the Scalar one, as torch's parser may)."""
    def args(m):
        s, e = (m.tensor(0.5) if overload[0] == "T" else 0.5), (m.tensor(2.0) if overload.endswith("_Tensor") else 2.0)
        return s, e, 5, 3.0
    e = getattr(ember.ops.aten.logspace, overload)(*args(ember))
    t = getattr(torch.ops.aten.logspace, overload)(*args(torch))
    np.testing.assert_allclose(e.numpy(), t.numpy(), rtol=1e-6)
    eo, to = ember.empty(2, dtype=ember.float64), torch.empty(2, dtype=torch.float64)
    getattr(ember.ops.aten.logspace, overload + "_out")(*args(ember), out=eo)
    getattr(torch.ops.aten.logspace, overload + "_out")(*args(torch), out=to)
    np.testing.assert_allclose(eo.numpy(), to.numpy(), rtol=1e-12)
    with pytest.raises(RuntimeError, match="0-dimensional start and end"):
        getattr(ember.ops.aten.logspace, overload)(ember.ones(2) if overload[0] == "T" else 1.0,
                                                   ember.ones(2) if overload[0] != "T" else 1.0, 3)


# ---------------------------------------------------------------- window functions
WINDOWS = [
    ("hann_window", (0,), {}), ("hann_window", (1,), {}), ("hann_window", (8,), {}),
    ("hann_window", (7, False), {"dtype": "float64"}),
    ("hamming_window", (9,), {}), ("hamming_window", (6, False), {}), ("hamming_window", (5, True, 0.5), {}),
    ("hamming_window", (5, False, 0.6, 0.3), {"dtype": "float64"}),
    ("blackman_window", (10,), {}), ("blackman_window", (7, False), {"dtype": "float64"}),
    ("bartlett_window", (6,), {}), ("bartlett_window", (5, False), {}), ("bartlett_window", (2, False), {}),
    ("kaiser_window", (12,), {}), ("kaiser_window", (8, False), {}), ("kaiser_window", (9, True, 3.5), {"dtype": "float64"}),
    ("kaiser_window", (1,), {"requires_grad": True}),
]


@pytest.mark.parity
@pytest.mark.parametrize("name,args,kw", WINDOWS)
def test_window_functions_match_torch(name, args, kw):
    torch = pytest.importorskip("torch")
    res = []
    for lib in (ember, torch):
        k = {n: getattr(lib, v) if n == "dtype" else v for n, v in kw.items()}
        w = getattr(lib, name)(*args, **k)
        res.append((tuple(w.shape), str(w.dtype).split(".")[-1], w.requires_grad, w.detach().numpy()))
    assert res[0][:3] == res[1][:3]
    np.testing.assert_allclose(res[0][3], res[1][3], rtol=2e-6, atol=1e-7)


@pytest.mark.parity
@pytest.mark.parametrize("call", [
    lambda t: t.hann_window(-1), lambda t: t.hann_window(3, dtype=t.long), lambda t: t.kaiser_window(3, dtype=t.int32),
    lambda t: t.bartlett_window(4, True, dtype=t.bool), lambda t: t.blackman_window(-2, False),
])
def test_window_function_errors_match_torch(call):
    torch = pytest.importorskip("torch")
    msgs = []
    for lib in (ember, torch):
        with pytest.raises(RuntimeError) as e:
            call(lib)
        msgs.append(str(e.value))
    assert msgs[0] == msgs[1]


def test_window_functions_on_meta_match_cpu():
    for name in ("hann_window", "hamming_window", "blackman_window", "bartlett_window", "kaiser_window"):
        same_meta(getattr(ember, name), 6)


_BUF = bytes(range(1, 13))


@pytest.mark.parity
@pytest.mark.parametrize("make,kwargs", [
    (lambda: bytearray(_BUF), {"dtype": "int32"}), (lambda: bytearray(_BUF), {"dtype": "int32", "count": 2, "offset": 4}),
    (lambda: bytearray(_BUF), {"dtype": "uint8", "offset": 11}), (lambda: bytearray(_BUF), {"dtype": "float16"}),
    (lambda: bytearray(_BUF), {"dtype": "int64"}), (lambda: bytearray(_BUF), {"dtype": "int32", "count": 5}),
    (lambda: bytearray(_BUF), {"dtype": "int32", "offset": 12}), (lambda: bytearray(_BUF), {"dtype": "int32", "count": 0}),
    (lambda: bytearray(), {"dtype": "int32"}), (lambda: bytearray(_BUF), {"dtype": "int8", "offset": -1}),
    (lambda: [1, 2], {"dtype": "int32"}), (lambda: bytearray(_BUF), {}),
    (lambda: bytearray(_BUF), {"dtype": "float32", "requires_grad": True}),
])
def test_frombuffer_matches_torch(make, kwargs):
    torch = pytest.importorskip("torch")
    got = []
    for lib in (torch, ember):
        kw = {k: getattr(lib, v) if k == "dtype" else v for k, v in kwargs.items()}
        buf = make()
        try:
            t = lib.frombuffer(buf, **kw)
            if isinstance(buf, bytearray) and len(buf):
                buf[kw.get("offset", 0)] ^= 0x7F            # the tensor sees writes to the buffer
            got.append((t.tolist(), str(t.dtype).split(".")[1], t.requires_grad))
        except (TypeError, ValueError) as e:
            got.append((type(e).__name__, str(e)))
    assert got[0] == got[1]


@pytest.mark.parity
@pytest.mark.parametrize("size,layout", [((2, 3, 4), (0, 2, 1)), ((2, 3, 4), (2, 0, 1)), ((5,), (0,)), ((), ()),
                                         ((2, 3), (0, 0)), ((2, 3), (0,)), ((2, 0, 3), (1, 0, 2))])
def test_empty_permuted_matches_torch(size, layout):
    torch = pytest.importorskip("torch")
    got = []
    for lib in (torch, ember):
        try:
            t = lib.empty_permuted(size, layout, dtype=lib.float64)
            got.append((tuple(t.shape), t.stride(), str(t.dtype).split(".")[1]))
        except RuntimeError as e:
            got.append(str(e))
    assert got[0] == got[1]


# tensor() of Python numbers into an integer dtype: an unsigned dtype wraps negatives down to -max (uint8: -2 is
# 254), anything else out of range is c10's "value cannot be converted to type uint8 without overflow", an int past
# int64 is "Overflow when unpacking long long" (also with the dtype inferred), floats are truncated within range
_INT_VALUES = [-1, -2, -128, -129, -255, -256, 127, 128, 255, 256, 70000, 2 ** 31, 2 ** 63 - 1, 2 ** 63, 2 ** 64,
               -2 ** 63 - 1, 2.5, -0.5, -0.9999, -1.5, 127.5, -128.5, 255.5, 255.9, 1e20, float("nan"), float("inf")]


def _stored(lib, data, dtype):
    try:
        t = lib.tensor(data, dtype=None if dtype is None else getattr(lib, dtype))
    except (RuntimeError, ValueError, OverflowError, TypeError) as e:
        return type(e).__name__, str(e)
    return str(t.dtype).split(".")[-1], repr(t.tolist())


@pytest.mark.parity
@pytest.mark.parametrize("dtype", ["uint8", "int8", "int16", "int32", "int64", "bool", "float32", None])
@pytest.mark.parametrize("value", _INT_VALUES, ids=repr)
def test_parity_tensor_integer_conversion(torch, dtype, value):
    for data in ([value], value, [[1, value]], (0, value)):
        assert _stored(ember, data, dtype) == _stored(torch, data, dtype), data
