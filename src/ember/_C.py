"""The torch._C names of the `__torch_function__` protocol (torch/csrc/utils/disable_torch_function.cpp, the
torch-function mode stack of ATen's PythonTorchFunctionTLS): the context managers that turn it off, the disabled
implementation, the state queries and the mode-stack primitives torch.overrides builds on. ember has no other
`torch._C`; the machinery is `ember/_core/torch_function.py`."""
from ._core.torch_function import (DisableTorchFunction, DisableTorchFunctionSubclass,  # noqa: F401
                                   _disabled_torch_function_impl)
from ._core import torch_function as _tf

_is_torch_function_enabled = _tf.is_torch_function_enabled
_is_torch_function_mode_enabled = _tf.is_torch_function_mode_enabled
_is_torch_function_all_disabled = _tf.is_torch_function_all_disabled
_push_on_torch_function_stack = _tf.push_mode
_pop_torch_function_stack = _tf.pop_mode
_len_torch_function_stack = _tf.stack_len
_get_function_stack_at = _tf.get_stack_at


def _has_torch_function(args):
    """torch._C._has_torch_function: a mode is active, or an argument (not a plain Tensor or Parameter) has a
    `__torch_function__` taking part in the protocol."""
    return _tf.is_torch_function_mode_enabled() or bool(_tf.overloaded_args(args))


def _has_torch_function_unary(obj):
    return _has_torch_function((obj,))


def _has_torch_function_variadic(*args):
    return _has_torch_function(args)
