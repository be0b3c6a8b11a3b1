"""Saving and loading checkpoints in PyTorch's formats (filled in below)."""
