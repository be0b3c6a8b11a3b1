"""ember.signal: torch.signal, signal-processing helpers (today its window functions, `windows`)."""
from . import windows  # noqa: F401

__all__ = ["windows"]
