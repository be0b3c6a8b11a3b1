"""ember.utils: helpers outside the core (data, checkpoint, safetensors, tensorboard, the dispatch-mode
path _python_dispatch, benchmark, flop_counter, module_tracker, dlpack), set_module and swap_tensors;
submodules load lazily."""
import importlib as _importlib

_SUBMODULES = ("data", "checkpoint", "safetensors", "tensorboard", "_python_dispatch", "hooks", "benchmark",
               "flop_counter", "module_tracker", "dlpack")


def set_module(obj, mod):
    """Set `obj.__module__` to `mod` (for nicer printing of an object defined in one module, public in another)."""
    if not isinstance(mod, str):
        raise TypeError("The mod argument should be a string")
    obj.__module__ = mod


def __getattr__(name):
    if name == "swap_tensors":
        from ._swap import swap_tensors
        return swap_tensors
    if name in _SUBMODULES:
        mod = _importlib.import_module(f"{__name__}.{name}")
        globals()[name] = mod
        return mod
    from .._core.unimplemented import no_attribute
    raise no_attribute(__name__, name)
