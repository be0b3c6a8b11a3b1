"""ember.utils: helpers outside the core (data, checkpoint, safetensors, tensorboard, the dispatch-mode
path _python_dispatch); submodules load lazily."""
import importlib as _importlib

_SUBMODULES = ("data", "checkpoint", "safetensors", "tensorboard", "_python_dispatch", "hooks")


def __getattr__(name):
    if name in _SUBMODULES:
        mod = _importlib.import_module(f"{__name__}.{name}")
        globals()[name] = mod
        return mod
    from .._core.unimplemented import no_attribute
    raise no_attribute(__name__, name)
