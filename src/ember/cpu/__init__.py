"""torch.cpu: the cpu device seen through the device-agnostic API torch.cuda has (one device, always available,
streams and events that do nothing), and the deprecated torch.cpu.amp spellings."""
import contextlib

from . import amp  # noqa: F401

__all__ = ["is_available", "is_initialized", "synchronize", "current_device", "current_stream", "stream",
           "set_device", "device_count", "Stream", "StreamContext", "Event"]


def is_available():
    """Always True: the cpu is always there."""
    return True


def is_initialized():
    return True


def synchronize(device=None):
    """Nothing to wait for: cpu kernels finish before they return."""


def device_count():
    """The number of cpu devices (not cores): 1."""
    return 1


def set_device(device):
    """There is one cpu device: nothing to select."""


def current_device():
    return "cpu"


class Stream:
    """A cpu stream: work is never queued, so waiting and recording do nothing (for device-agnostic code)."""

    def __init__(self, priority=-1):
        pass

    def wait_stream(self, stream):
        pass

    def record_event(self):
        pass

    def wait_event(self, event):
        pass


class Event:
    """A cpu event: always complete."""

    def query(self):
        return True

    def record(self, stream=None):
        pass

    def synchronize(self):
        pass

    def wait(self, stream=None):
        pass


_default_cpu_stream = Stream()
_current_stream = _default_cpu_stream


def current_stream(device=None):
    return _current_stream


class StreamContext(contextlib.AbstractContextManager):
    """Makes `stream` the current one inside the block (None: leaves it as it is)."""

    def __init__(self, stream):
        self.stream = stream
        self.prev_stream = _default_cpu_stream

    def __enter__(self):
        global _current_stream
        if self.stream is None:
            return
        self.prev_stream = _current_stream
        _current_stream = self.stream

    def __exit__(self, exc_type, exc, tb):
        global _current_stream
        if self.stream is None:
            return
        _current_stream = self.prev_stream


def stream(stream):
    return StreamContext(stream)
