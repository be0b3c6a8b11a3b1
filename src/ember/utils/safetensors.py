"""ember.utils.safetensors: the ``safetensors.torch`` API (save/load of .safetensors files).

The implementation lives in :mod:`ember.serialization.safetensors`, beside the torch checkpoint
formats it shares the atomic file writing with; this module re-exports it under the name users
import.
"""
from ember.serialization.safetensors import (SafetensorError, load, load_file, safe_open,
                                             save, save_file)

__all__ = ["save", "save_file", "load", "load_file", "safe_open", "SafetensorError"]
