"""torch.distributed's error types (c10::DistError and its subclasses, as torch.distributed exports them)."""


class DistError(RuntimeError):
    """Base of the errors raised by ember.distributed (torch.distributed.DistError)."""


class DistBackendError(DistError):
    """A collective failed or timed out inside the backend (torch.distributed.DistBackendError)."""


class DistStoreError(DistError):
    """A store operation failed or timed out (torch.distributed.DistStoreError)."""


class DistNetworkError(DistError):
    """A socket could not connect or was refused (torch.distributed.DistNetworkError)."""
