"""torch.autograd.grad_mode: the grad-mode context managers at torch's path (defined in ember._grad_mode), and
set_multithreading_enabled."""
import threading

from .._grad_mode import (_DecoratorContextManager, enable_grad, inference_mode, no_grad,  # noqa: F401
                          set_grad_enabled)

_tls = threading.local()


def _is_multithreading_enabled():
    """torch._C._is_multithreading_enabled: this thread's setting (True unless turned off)."""
    return getattr(_tls, "multithreading", True)


def _set_multithreading_enabled(mode):
    _tls.multithreading = bool(mode)


class set_multithreading_enabled(_DecoratorContextManager):
    """Context manager (or function) that turns multithreaded backward on or off for this thread; the setting is
    undone on exit. torch runs backward on per-device worker threads only for accelerator devices; ember's engine
    always runs backward on the calling thread (torch's behaviour for cpu graphs and for mode=False), so the
    setting is kept and restored but changes no result."""

    def __init__(self, mode):
        self.prev = _is_multithreading_enabled()
        _set_multithreading_enabled(mode)
        self.mode = mode

    def __enter__(self):
        pass

    def __exit__(self, exc_type, exc_value, traceback):
        _set_multithreading_enabled(self.prev)

    def clone(self):
        return self.__class__(self.mode)
