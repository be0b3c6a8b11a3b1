"""Layer 1: dtypes, devices, storages, sizes and thread-local state (c10 in PyTorch)."""
