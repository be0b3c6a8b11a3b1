"""parameters_to_vector / vector_to_parameters (torch/nn/utils/convert_parameters.py)."""
import numpy as np

from ..._tensor import Tensor
from ..._core.strides import contiguous_strides
from .. import _tensor_util as U

__all__ = ["parameters_to_vector", "vector_to_parameters"]


def _check_param_device(param, old_param_device):
    if old_param_device is None:
        return param.device
    if param.device != old_param_device:
        raise TypeError("Found two parameters on different devices, this is currently not supported.")
    return old_param_device


def parameters_to_vector(parameters):
    param_device = None
    params = list(parameters)
    for param in params:
        param_device = _check_param_device(param, param_device)
    import ember
    if hasattr(ember, "cat") and hasattr(Tensor, "view"):
        return ember.cat([p.view(-1) for p in params])   # differentiable when autograd is on
    return U.wrap(np.concatenate([np.asarray(p._np).reshape(-1) for p in params]))


def vector_to_parameters(vec, parameters):
    if not isinstance(vec, Tensor):
        from ..modules.module import typename
        raise TypeError(f"expected torch.Tensor, but got: {typename(vec)}")
    param_device = None
    pointer = 0
    storage = vec.untyped_storage()
    if not vec.is_contiguous():
        raise RuntimeError("vector_to_parameters expects a contiguous vector")
    for param in parameters:
        param_device = _check_param_device(param, param_device)
        num_param = param.numel()
        # param.data = vec[pointer:pointer + num_param].view_as(param).data  (shares vec's memory)
        param.data = Tensor._from_storage(storage, vec.storage_offset() + pointer, param._size,
                                          contiguous_strides(param._size), vec.dtype)
        pointer += num_param
