"""nn.functional's linear maps (torch/nn/functional.py linear, bilinear)."""


import ember
from ..._arg_parser import _bad_arg
from ..._tensor import Tensor
from ..._core.dispatch_keys import DispatchKey
from ..._core.tls import state as _tls
from ...kernels.common import _tname

_AUTOCAST_CPU_BIT = 1 << DispatchKey.AutocastCPU

__all__ = ["bilinear", "linear"]


def bilinear(input1, input2, weight, bias=None):
    return ember.bilinear(input1, input2, weight, bias)


def linear(input, weight, bias=None):
    # the generated binding's checks (torch's F.linear is the binding itself); this one skips a dispatch
    if input.__class__ is not Tensor and not isinstance(input, Tensor):
        raise _bad_arg("linear", "input", 1, "Tensor", input)
    if weight.__class__ is not Tensor and not isinstance(weight, Tensor):
        raise _bad_arg("linear", "weight", 2, "Tensor", weight)
    if bias is not None and bias.__class__ is not Tensor and not isinstance(bias, Tensor):
        raise _bad_arg("linear", "bias", 3, "Tensor", bias)
    if _tls._include & _AUTOCAST_CPU_BIT:
        # under autocast, linear itself is on the lower-precision list: its weight (a leaf) is cast, and
        # cached for the region, before the transpose
        return ember._nn.linear(input, weight, bias)
    if bias is not None:
        if input.dtype is not weight.dtype and (input.dim() <= 2 or input.is_contiguous()):
            # torch runs these cases as one addmm, whose dtype check is what the user sees
            raise RuntimeError(f"mat1 and mat2 must have the same dtype, but got {_tname(input.dtype)} and "
                               f"{_tname(weight.dtype)}")
        if input.dim() == 2:
            return ember.addmm(bias, input, weight.t())
        if input.dim() != 2 and input.is_contiguous():
            # like torch: fold the leading dims into one addmm (one gemm with the bias fused, and
            # a 2-D backward) instead of a batched matmul plus a broadcast add
            lead = input._size[:-1]
            rows = 1
            for n in lead:
                rows *= n           # not view(-1, k): k may be 0
            return ember.addmm(bias, input.view(rows, input._size[-1]), weight.t()).view(*lead, weight._size[0])
    elif input.dim() == 2 and input.dtype is weight.dtype:
        return ember.mm(input, weight.t())      # torch's matmul of two matrices is one mm (MmBackward0)
    elif input.dim() > 2 and weight.dim() == 2 and input.dtype is weight.dtype:
        # torch's matmul folds the leading dims into one mm and ends in _unsafe_view (UnsafeViewBackward0)
        lead = input._size[:-1]
        rows = 1
        for n in lead:
            rows *= n
        out = ember.mm(input.reshape(rows, input._size[-1]), weight.t())
        return ember.ops.aten._unsafe_view.default(out, [*lead, weight._size[0]])
    out = ember.matmul(input, weight.t())
    return out + bias if bias is not None else out
