"""ember.utils: helpers outside the core (data, checkpoint, safetensors); submodules load lazily."""
import importlib as _importlib

_SUBMODULES = ("data", "checkpoint", "safetensors")


def __getattr__(name):
    if name in _SUBMODULES:
        mod = _importlib.import_module(f"{__name__}.{name}")
        globals()[name] = mod
        return mod
    raise AttributeError(f"module 'ember.utils' has no attribute '{name}'")
