"""torch.utils.dlpack: exchange tensors with other array libraries through DLPack without copying
(`to_dlpack` gives a capsule, `from_dlpack` takes a capsule or any object with __dlpack__). ember's tensors
export through numpy's DLPack support over the same memory; only cpu memory (kDLCPU) exists in ember."""
import enum

from ..functional import from_dlpack

__all__ = ["DLDeviceType", "from_dlpack", "to_dlpack"]


class DLDeviceType(enum.IntEnum):
    """DLPack's device types (dlpack.h)."""
    kDLCPU = 1
    kDLCUDA = 2
    kDLCUDAHost = 3
    kDLOpenCL = 4
    kDLVulkan = 7
    kDLMetal = 8
    kDLVPI = 9
    kDLROCM = 10
    kDLROCMHost = 11
    kDLExtDev = 12
    kDLCUDAManaged = 13
    kDLOneAPI = 14
    kDLWebGPU = 15
    kDLHexagon = 16
    kDLMAIA = 17


def to_dlpack(tensor):
    """A DLPack capsule over `tensor`'s memory (consumed once, by a from_dlpack)."""
    from .._tensor import Tensor
    if not isinstance(tensor, Tensor):
        raise TypeError(f"to_dlpack(): argument 'tensor' (position 1) must be Tensor, not {type(tensor).__name__}")
    return tensor.__dlpack__()
