"""`Tensor.to(dtype)` and the dtype shorthands (.float(), .double(), .half(), ...) take a direct path to
_to_copy's kernel (ember/_conversions.py's _direct) and small float32 -> float16 / float64 -> float32 casts one
direct C call (kernels/cpu/copy.py's _SMALL): results, bits, dtypes, aliasing, autograd records, modes,
observers and errors as torch's and as the general path's."""
import warnings

import numpy as np
import pytest

import ember
from ember import _conversions, _ops
from ember._dispatch.modes import TorchDispatchMode

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.parity

_F32_SPECIAL = np.array([0.0, -0.0, 1.0, -2.5, np.inf, -np.inf, 65504.0, 65520.0, 65519.996, 1e9, -1e9,
                         6.1e-5, 5.96e-8, 2.98e-8, 2.99e-8, 1e-10, -3e-6, 1e-45, 3.4e38], np.float32)
_F32_NANS = np.array([0x7FC00000, 0xFFC00000, 0x7F800001, 0xFF812345, 0x7FA00000, 0x7FFFFFFF],
                     np.uint32).view(np.float32)
_F64_SPECIAL = np.array([0.0, -0.0, 1.0 + 2.0 ** -30, -2.5, np.inf, -np.inf, 1e300, -1e300, 3.4028235e38,
                         3.4028236e38, 3.40282357e38, 1e-40, -1e-45, 7e-46, 1e-320, 0.1], np.float64)
_F64_NANS = np.array([0x7FF8000000000000, 0xFFF8000000000000, 0x7FF0000000000001, 0xFFF0123456789ABC,
                      0x7FF4000000000000], np.uint64).view(np.float64)


def _values(dt, n):
    rng = np.random.default_rng(n)
    if dt == "float32":
        base = np.concatenate([_F32_SPECIAL, _F32_NANS])
        x = (rng.standard_normal(n) * 10.0 ** rng.integers(-9, 6, n)).astype(np.float32)
    else:
        base = np.concatenate([_F64_SPECIAL, _F64_NANS])
        x = rng.standard_normal(n) * 10.0 ** rng.integers(-50, 50, n)
    x[: min(n, base.size)] = base[:n]
    return x


def _bits(t):
    a = t.numpy() if hasattr(t, "numpy") else t
    return a.view(f"u{a.dtype.itemsize}") if a.dtype.kind == "f" else a


@pytest.mark.parametrize("n", [1, 5, 16, 17, 40, 4095, 4096, 5000])
@pytest.mark.parametrize("src,dst", [("float32", "float16"), ("float64", "float32"), ("float32", "float64"),
                                     ("float64", "float16"), ("float32", "bfloat16"), ("float32", "int32"),
                                     ("float64", "int64"), ("float32", "bool")])
@pytest.mark.parametrize("form", ["to", "to_kw", "method"])
def test_bits_as_torch(n, src, dst, form):
    x = _values(src, n)
    if dst in ("int32", "int64"):
        x = np.where(np.isfinite(x) & (np.abs(x) < 2e9), x, 7.0).astype(x.dtype)
    outs = []
    for lib in (torch, ember):
        t = lib.from_numpy(x.copy())
        d = getattr(lib, dst)
        with warnings.catch_warnings():
            warnings.simplefilter("error")      # ember's casts warn nowhere torch does not
            if form == "to":
                r = t.to(d)
            elif form == "to_kw":
                r = t.to(dtype=d)
            else:
                r = {"float16": t.half, "float32": t.float, "float64": t.double, "bfloat16": t.bfloat16,
                     "int32": t.int, "int64": t.long, "bool": t.bool}[dst]()
        assert str(r.dtype).split(".")[-1] == dst and r.shape == t.shape
        outs.append(r.view(lib.int16).numpy() if dst == "bfloat16" else _bits(r.numpy()))
    np.testing.assert_array_equal(outs[1], outs[0])


@pytest.mark.parametrize("shape", [(6, 7), (0,), (3, 0, 2), ()])
def test_shapes_and_layouts(shape):
    n = int(np.prod(shape))

    def plain(lib):
        return (lib.arange(n, dtype=lib.float32) * 1.5 - 3).reshape(shape)

    for make in (plain, lambda lib: plain(lib).transpose(0, -1) if len(shape) > 1 else plain(lib)):
        r_t, r_e = make(torch).to(torch.float16), make(ember).to(ember.float16)
        assert r_e.shape == r_t.shape and r_e.stride() == r_t.stride()
        np.testing.assert_array_equal(r_e.numpy().view(np.uint16), r_t.numpy().view(np.uint16))


def test_same_dtype_returns_self():
    for lib in (torch, ember):
        t = lib.ones(3)
        assert t.to(lib.float32) is t and t.float() is t and t.to(dtype=lib.float32) is t
        p = lib.nn.Parameter(lib.ones(2))
        assert p.to(lib.float32) is p and p.float() is p
        r = p.double()
        assert type(r) is lib.Tensor and r.requires_grad and r.grad_fn.name() == "ToCopyBackward0"


def test_autograd_record_and_modes():
    for lib in (torch, ember):
        x = lib.tensor([1.0, -2.0, 3.0], requires_grad=True)
        y = x.to(lib.float64)
        assert y.dtype == lib.float64 and y.requires_grad and not y.is_leaf
        assert y.grad_fn.name() == "ToCopyBackward0"
        (y * y).sum().backward()
        assert x.grad.dtype == lib.float32 and x.grad.tolist() == [2.0, -4.0, 6.0]
        h = x.half()
        assert h.grad_fn.name() == "ToCopyBackward0"
        with lib.no_grad():
            z = x.to(lib.float16)
        assert not z.requires_grad and z.grad_fn is None
        with lib.inference_mode():
            w = lib.ones(2).to(lib.float64)
        assert w.is_inference()


class _Log(TorchDispatchMode):
    def __init__(self):
        self.calls = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.calls.append(str(func))
        return func(*args, **(kwargs or {}))


def _seen(calls):
    x = ember.ones(4)
    with _Log() as mode:
        x.to(ember.float16)
        x.double()
        x.to(ember.float32)
    calls.append(mode.calls)
    seen = []
    _ops.set_dispatch_observer(lambda op: seen.append(str(op)))
    try:
        x.half()
        x.to(ember.float32)
    finally:
        _ops.set_dispatch_observer(None)
    calls.append(seen)


def test_dispatch_modes_and_observers_see_the_ops(monkeypatch):
    """A mode or an observer sees the calls the general path makes (the direct path steps aside): a mode sees
    aten._to_copy.default, as torch's (tests/dispatch/test_mode_decompositions.py), an observer the to overload
    too (as torch's profiler sees aten::to)."""
    x = ember.ones(4)
    x.to(ember.float16)                     # fills the dispatch cache the direct path reads
    assert _conversions._direct(x, ember.float16) is not NotImplemented
    direct, general = [], []
    _seen(direct)
    with monkeypatch.context() as mp:
        mp.setattr(_conversions, "_direct", lambda *a: NotImplemented)
        _seen(general)
    assert direct == general
    assert direct[0] == ["aten._to_copy.default", "aten._to_copy.default"]
    assert direct[1] == ["aten.to.dtype", "aten._to_copy.default", "aten.to.dtype"]


def test_meta_and_errors_unchanged():
    m = ember.empty(3, 2, device="meta").to(ember.float16)
    assert m.device.type == "meta" and m.dtype is ember.float16 and m.shape == (3, 2)
    x = ember.ones(2)
    with pytest.raises(TypeError, match="unexpected keyword argument 'bogus'"):
        x.to(ember.float16, bogus=1)
    with pytest.raises(TypeError, match="invalid combination of arguments"):
        x.to(ember.float16, 1.5)
    assert x.to(ember.float16, copy=True).dtype is ember.float16
    y = x.to(ember.float32, copy=True)
    assert y is not x and y.tolist() == [1.0, 1.0]


def test_float64_nans_to_half_do_not_warn():
    """A float64 array of signalling NaNs cast to float16 on the C path (from 4096 elements) raised numpy's
    "invalid value encountered in cast" RuntimeWarning from its float32 step; torch warns nothing."""
    a = np.resize(_F64_NANS, 5000)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = ember.from_numpy(a).to(ember.float16).numpy().view(np.uint16)
    np.testing.assert_array_equal(got, torch.from_numpy(a).to(torch.float16).numpy().view(np.uint16))


def test_device_forms_alias_or_copy_as_torch():
    """`x.to("cpu")`, `x.to(device)`, `.cpu()`, `x.to(other)`, `x.to(device, dtype)`, `type_as` take the direct path
    on a cpu tensor; torch copies for "cpu:0" (a device with an index is not self's), and so does ember now."""
    for lib in (torch, ember):
        x = lib.ones(3)
        y = lib.ones(2, dtype=lib.float64)
        assert x.to("cpu") is x and x.to(lib.device("cpu")) is x and x.cpu() is x
        assert x.to(device="cpu") is x and x.to(device=lib.device("cpu"), dtype=lib.float32) is x
        assert x.to(lib.ones(1)) is x and x.type_as(lib.ones(1)) is x
        for r in (x.to("cpu:0"), x.to(lib.device("cpu", 0)), x.to(device="cpu:0")):
            assert r is not x and r.device.type == "cpu" and r.dtype == lib.float32 and r.tolist() == [1.0] * 3
        for r in (x.to(y), x.to("cpu", lib.float64), x.to(lib.device("cpu"), lib.float64), x.type_as(y),
                  x.to(device="cpu", dtype=lib.float64)):
            assert r.dtype == lib.float64 and r.device.type == "cpu" and r.tolist() == [1.0] * 3
        m = lib.ones(2, device="meta")
        assert m.to("meta") is m
        c = m.to(lib.float16)
        assert c.device.type == "meta" and c.dtype == lib.float16
        g = lib.ones(2, requires_grad=True)
        assert g.to(y).grad_fn.name() == "ToCopyBackward0" and g.type_as(y).grad_fn.name() == "ToCopyBackward0"


def test_stride_read_keeps_the_fast_kernel():
    """A contiguous tensor whose stride() has been read (TensorImpl caches it) casts to the same result."""
    x = ember.arange(12, dtype=ember.float32).reshape(3, 4)
    x.stride()
    assert x._stride is not None
    r = x.double()
    assert r.stride() == (4, 1) and r.dtype is ember.float64 and r.tolist() == x.tolist()
    odd = ember.ones(3, 1).as_strided((3, 1), (1, 5))        # an odd size-1 stride: preserve_format keeps it
    assert odd.to(ember.float64).stride() == torch.ones(3, 1).as_strided((3, 1), (1, 5)).double().stride()
