"""torch.utils._python_dispatch: TorchDispatchMode and the mode-stack helpers at torch's module path
(the implementation is ember._dispatch.modes; this module re-exports it)."""
from .._dispatch.modes import (TorchDispatchMode, _get_current_dispatch_mode,  # noqa: F401
                               _get_current_dispatch_mode_stack, _pop_mode_temporarily)
from .._dispatch.modes import pop_mode as _pop_mode, push_mode as _push_mode  # noqa: F401


def _len_torch_dispatch_stack():
    return len(_get_current_dispatch_mode_stack())


def is_in_torch_dispatch_mode(include_infra_modes=True):
    return _len_torch_dispatch_stack() > 0


_is_in_torch_dispatch_mode = is_in_torch_dispatch_mode
