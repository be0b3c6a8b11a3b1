"""ember.nn: modules, parameters, init, functional and utils (torch.nn)."""
from .._core.unimplemented import missing_attribute as _missing_attribute
from .parameter import Parameter, Buffer, UninitializedParameter, UninitializedBuffer  # noqa: F401
from .modules import *  # noqa: F401,F403
from .modules import (Module, Sequential, ModuleList, ModuleDict, ParameterList, ParameterDict, Flatten,  # noqa: F401
                      Unflatten, Identity, Linear, ReLU, Sigmoid, Tanh, MSELoss)
from . import init  # noqa: F401
from . import functional  # noqa: F401
# `from .modules import *` already bound the name `utils` to nn.modules.utils, which makes `from . import utils`
# a no-op; import the nn.utils package explicitly so `ember.nn.utils.<x>` works without a prior import.
import importlib as _importlib
utils = _importlib.import_module(__name__ + ".utils")
parallel = _importlib.import_module(__name__ + ".parallel")
from .parallel import DataParallel  # noqa: E402,F401  (torch.nn.DataParallel; DistributedDataParallel stays in nn.parallel)


def factory_kwargs(kwargs):
    """The factory keyword arguments (device, dtype, memory_format) of a module's **kwargs, merged with an explicit
    `factory_kwargs` dict; unknown keys and a key given twice are TypeErrors (torch.nn.factory_kwargs)."""
    if kwargs is None:
        return {}
    simple_keys = {"device", "dtype", "memory_format"}
    expected_keys = simple_keys | {"factory_kwargs"}
    if not kwargs.keys() <= expected_keys:
        raise TypeError(f"unexpected kwargs {kwargs.keys() - expected_keys}")
    r = dict(kwargs.get("factory_kwargs", {}))
    for k in simple_keys:
        if k in kwargs:
            if k in r:
                raise TypeError(f"{k} specified twice, in **kwargs and in factory_kwargs")
            r[k] = kwargs[k]
    return r


def __getattr__(name):   # torch names ember lacks say so (see ember/_core/unimplemented.py)
    return _missing_attribute(__name__, name)
