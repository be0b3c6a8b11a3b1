"""DataLoader internals: collation, fetchers, worker processes."""
from . import collate, fetch, worker  # noqa: F401
