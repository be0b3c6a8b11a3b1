"""Saving and loading checkpoints in PyTorch's formats.

``save``/``load`` read and write torch 2.13's zip checkpoints byte for byte (and the legacy
format on load); ``load`` is safe by default (``weights_only=True``: a restricted unpickler that
only accepts torch's allowlist of globals).  See ``shared/fixtures/torch_checkpoints/FORMAT.md``.
"""
from ._serialization import DEFAULT_PROTOCOL, get_unsafe_globals_in_checkpoint, load, save
from ._weights_only import add_safe_globals, clear_safe_globals, get_safe_globals, safe_globals

__all__ = ["save", "load", "add_safe_globals", "clear_safe_globals", "get_safe_globals",
           "safe_globals", "get_unsafe_globals_in_checkpoint", "DEFAULT_PROTOCOL"]
