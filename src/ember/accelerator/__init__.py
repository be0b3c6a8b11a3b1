"""torch.accelerator: the device-agnostic accelerator API, as torch answers it on a machine without one (ember
computes on the cpu only): no current accelerator, none available, zero devices; every call that needs a device
raises torch's RuntimeError."""
import warnings

__all__ = ["Graph", "current_accelerator", "current_device_idx", "current_device_index", "get_device_capability",
           "current_stream", "device_count", "device_index", "empty_cache", "empty_host_cache", "get_memory_info",
           "is_available", "max_memory_allocated", "max_memory_reserved", "memory_allocated", "memory_reserved",
           "memory_stats", "reset_accumulated_memory_stats", "reset_peak_memory_stats", "set_device_idx",
           "set_device_index", "set_stream", "synchronize"]


def _none():
    return RuntimeError("Cannot access accelerator device when none is available.")


def current_accelerator(check_available=False):
    """The accelerator device type, None here: `device = torch.accelerator.current_accelerator() or "cpu"`."""
    return None


def is_available():
    return False


def device_count():
    return 0


def current_device_index():
    raise _none()


def current_device_idx():
    warnings.warn("Use `current_device_index` instead.", FutureWarning, stacklevel=2)
    return current_device_index()


def _index(device):
    if device is None:
        raise ValueError(f"Expected a torch.device with a specified index or an integer, but got:{device}")
    raise _none()


def set_device_index(device, /):
    _index(device)


def set_device_idx(device, /):
    warnings.warn("Use `set_device_index` instead.", FutureWarning, stacklevel=2)
    set_device_index(device)


def _needs_device(name):
    def fn(device=None, /):
        raise _none()
    fn.__name__ = fn.__qualname__ = name
    return fn


for _name in ("get_device_capability", "current_stream", "synchronize", "get_memory_info", "max_memory_allocated",
              "max_memory_reserved", "memory_allocated", "memory_reserved", "memory_stats",
              "reset_accumulated_memory_stats", "reset_peak_memory_stats"):
    globals()[_name] = _needs_device(_name)


def empty_cache():
    raise _none()


def empty_host_cache():
    raise _none()


def set_stream(stream):
    raise _none()


class device_index:
    """Within the block the current accelerator is device `device`; None leaves it unchanged (the one thing that
    works without an accelerator)."""

    def __init__(self, device, /):
        self.idx = device

    def __enter__(self):
        if self.idx is not None:
            raise _none()

    def __exit__(self, *exc):
        return False


class Graph:
    """Capture of accelerator work into a replayable graph: needs an accelerator."""

    def __init__(self, keep_graph=False, *, pool=None, capture_error_mode="default"):
        raise _none()
