"""torch.utils.dlpack: zero-copy exchange with real torch both ways, and torch's refusals."""
import numpy as np
import pytest

import ember
from ember.utils import dlpack
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
