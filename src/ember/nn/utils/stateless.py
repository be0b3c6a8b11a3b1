"""torch.nn.utils.stateless: the deprecated `functional_call` (torch.func.functional_call's predecessor, one dict of
tensors) and `_reparametrize_module`, at torch's path. The swapping itself lives in ember/func/_reparametrize.py."""
import warnings

from ...func._reparametrize import _functional_call, _reparametrize_module, _untie_named_tensors_map  # noqa: F401

__all__ = ["functional_call"]


def functional_call(module, parameters_and_buffers, args=None, kwargs=None, *, tie_weights=True, strict=False):
    """Call `module` with the tensors of `parameters_and_buffers` in place of its parameters and buffers (restored
    afterwards). Deprecated in torch 2.0 for torch.func.functional_call, with the same FutureWarning."""
    warnings.warn("`torch.nn.utils.stateless.functional_call` is deprecated as of PyTorch 2.0 and will be removed in "
                  "a future version of PyTorch. Please use `torch.func.functional_call` instead which is a drop-in "
                  "replacement.", FutureWarning, stacklevel=2)
    return _functional_call(module, parameters_and_buffers, args, kwargs, tie_weights=tie_weights, strict=strict)
