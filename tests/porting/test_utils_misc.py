"""torch.utils.dlpack (zero-copy exchange with real torch both ways), torch.utils.swap_tensors, torch.types
and torch.torch_version.TorchVersion, checked against torch."""
import numpy as np
import pytest

import ember
from ember.torch_version import TorchVersion
from ember.utils import dlpack, swap_tensors
from _porting import torch_fixture  # noqa: F401  (the `torch` fixture)


@pytest.mark.parity
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "int32", "uint8", "bool", "complex64"])
def test_ember_to_torch_shares_memory(torch, dtype):
    e = ember.zeros(3, 4, dtype=getattr(ember, dtype))
    t = torch.from_dlpack(e)
    assert t.dtype == getattr(torch, dtype) and tuple(t.shape) == (3, 4)
    t[1, 2] = 1
    assert e[1, 2].item() == 1                         # the same memory
    cap = dlpack.to_dlpack(ember.arange(6).reshape(2, 3)[:, 1:])
    assert torch.utils.dlpack.from_dlpack(cap).tolist() == [[1, 2], [4, 5]]


@pytest.mark.parity
def test_torch_to_ember_shares_memory(torch):
    t = torch.arange(6.).reshape(3, 2).t()             # non-contiguous: strides kept
    e = ember.from_dlpack(t)
    assert e.stride() == t.stride() and e.tolist() == t.tolist()
    t[1, 1] = -1
    assert e[1, 1].item() == -1
    e2 = dlpack.from_dlpack(torch.utils.dlpack.to_dlpack(t))      # a bare capsule
    e2[0, 0] = 42
    assert t[0, 0].item() == 42
    assert ember.utils.dlpack.from_dlpack is ember.from_dlpack


@pytest.mark.parity
def test_export_refusals_match_torch(torch):
    for t in (ember, torch):
        with pytest.raises(BufferError, match="Can't export tensors that require gradient, use tensor.detach()"):
            t.from_dlpack(t.ones(2, requires_grad=True).__dlpack__() if t is ember else
                          t.ones(2, requires_grad=True))
    with pytest.raises(TypeError):
        dlpack.to_dlpack(np.ones(2))
    assert dlpack.DLDeviceType.kDLCPU == torch.utils.dlpack.DLDeviceType.kDLCPU == 1
    assert ember.ones(2).__dlpack_device__() == tuple(torch.ones(2).__dlpack_device__())


@pytest.mark.parity
def test_swap_tensors_matches_torch(torch):
    def run(t):
        a = t.nn.Parameter(t.ones(2))
        b = t.zeros(3, dtype=t.float64)
        b.foo = "bar"
        ia, ib = id(a), id(b)
        t.utils.swap_tensors(a, b)
        return (id(a) == ia, id(b) == ib, type(a).__name__, a.tolist(), str(a.dtype).split(".")[-1],
                type(b).__name__, b.tolist(), b.requires_grad, a.foo)
    assert run(ember) == run(torch)


def test_swap_tensors_keeps_views_and_refuses_weakrefs():
    import weakref
    a, b = ember.zeros(3), ember.ones(3)
    swap_tensors(a, b)
    v = a.view(3)
    a.add_(1)
    assert v.tolist() == [2.0, 2.0, 2.0] and b.tolist() == [0.0, 0.0, 0.0]
    c = ember.ones(1)
    r = weakref.ref(c, lambda _: None)
    with pytest.raises(RuntimeError, match="Cannot swap t1 because it has weakref associated with it"):
        swap_tensors(c, ember.ones(1))
    del r
    with pytest.raises(TypeError):
        swap_tensors(c, [1])


@pytest.mark.parity
def test_torch_version_compares_as_torch(torch):
    from torch.torch_version import TorchVersion as TV
    cases = ["2.1.0", "1.10.0a0", "2.13.0+cpu", "0.1.0"]
    others = ["2.0", "2.1", "1.9.9", "1.10.0", (1, 10), (2, 1, 0), "parrot", "2.13"]
    for v in cases:
        for o in others:
            for op in ("__lt__", "__le__", "__eq__", "__ge__", "__gt__"):
                assert getattr(TorchVersion(v), op)(o) == getattr(TV(v), op)(o), (v, op, o)
    assert isinstance(TorchVersion("1.0"), str) and hash(TorchVersion("1.0")) == hash("1.0")
    assert ember.torch_version.__version__ == ember.version.__version__


@pytest.mark.parity
def test_types_namespace_matches_torch(torch):
    import torch.types as tt
    for name in ("Number", "Device", "FileLike", "Storage", "IntLikeType", "FloatLikeType", "BoolLikeType",
                 "PySymType", "py_sym_types", "_TensorOrTensors", "_size", "_int", "_float", "_bool", "_dtype",
                 "_device", "_Number"):
        assert hasattr(tt, name) and hasattr(ember.types, name), name
    assert ember.types._Number == tt._Number
    assert ember.types._dtype is ember.dtype and ember.types._device is ember.device
    assert set(ember.types.py_sym_types) == {ember.SymInt, ember.SymFloat, ember.SymBool}
