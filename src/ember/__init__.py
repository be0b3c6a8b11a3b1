"""ember: PyTorch's architecture, rebuilt in readable Python.

`import ember` loads the core (dtypes, tensors, the dispatcher, generated bindings); nn, optim,
autograd tools, serialization and the rest load lazily on first attribute access.
"""
import importlib as _importlib

from ._core.dtype import (dtype, bool_ as bool, uint8, int8, int16, uint16, int32, uint32, int64, uint64,  # noqa: F401
                          float8_e4m3fn, float8_e5m2, float8_e4m3fnuz, float8_e5m2fnuz, float16, bfloat16, float32,
                          float64, complex64, complex128, promote_types)
from ._core.device import device  # noqa: F401
from ._core.size import Size  # noqa: F401
from ._core.storage import UntypedStorage  # noqa: F401
from ._core.promotion import get_default_dtype, set_default_dtype, can_cast  # noqa: F401
from ._tensor import Tensor  # noqa: F401
from ._ops import ops  # noqa: F401
from . import _fallbacks  # noqa: F401  (Python-mode, ADInplaceOrView and BackendSelect fallbacks)
from ._generated import registrations as _registrations  # noqa: F401
from ._generated.functions import *  # noqa: F401,F403
from ._generated import tensor_methods as _tensor_methods  # noqa: F401
from ._generated import nn_functions as _nn  # noqa: F401  (torch._C._nn: python_module nn ops)
from ._generated import linalg_functions as _linalg  # noqa: F401  (torch._C._linalg)
from . import _tensor_extras, _indexing  # noqa: F401  (dunders, hand-written methods, indexing)
from ._creation import *  # noqa: F401,F403
from ._functional_extras import *  # noqa: F401,F403
from ._shape_extras import *  # noqa: F401,F403  (varargs and as_tuple forms of shape ops)
from ._unique import unique, unique_consecutive  # noqa: F401
from ._dtype_info import finfo, iinfo  # noqa: F401
from . import _argcheck
from ._random import manual_seed, seed, initial_seed, Generator, default_generator, get_rng_state, set_rng_state  # noqa: F401
from ._grad_mode import no_grad, enable_grad, set_grad_enabled, is_grad_enabled, inference_mode, is_inference_mode_enabled  # noqa: F401

half, float, double, long, int, short, cfloat, cdouble = float16, float32, float64, int64, int32, int16, complex64, complex128  # noqa: A001
strided = "strided"
contiguous_format = "contiguous_format"
preserve_format = "preserve_format"
channels_last = "channels_last"
__version__ = "0.1.0"

_LAZY = {"nn": "ember.nn", "optim": "ember.optim", "autograd": "ember.autograd", "utils": "ember.utils",
         "library": "ember.library", "testing": "ember.testing", "serialization": "ember.serialization",
         "linalg": "ember.linalg", "func": "ember.func", "fx": "ember.fx", "return_types": "ember.return_types",
         "overrides": "ember.overrides", "distributions": "ember.distributions",
         "distributed": "ember.distributed"}
_LAZY_ATTRS = {"save": ("ember.serialization", "save"), "load": ("ember.serialization", "load"),
               "from_dlpack": ("ember._creation", "from_dlpack"), "lu": ("ember.linalg._lu", "legacy_lu")}


def __getattr__(name):
    if name in _LAZY:
        mod = _importlib.import_module(_LAZY[name])
        globals()[name] = mod
        return mod
    if name in _LAZY_ATTRS:
        mod, attr = _LAZY_ATTRS[name]
        val = getattr(_importlib.import_module(mod), attr)
        globals()[name] = val
        return val
    raise AttributeError(f"module 'ember' has no attribute '{name}'")


def result_type(tensor1, tensor2):
    from ._core.promotion import result_type as _rt
    return _rt(tensor1, tensor2)


def is_tensor(obj):
    return isinstance(obj, Tensor)


def is_floating_point(input):
    _argcheck.tensor("is_floating_point", "input", 1, input)
    return input.dtype.is_floating_point


def is_complex(input):
    _argcheck.tensor("is_complex", "input", 1, input)
    return input.dtype.is_complex


def numel(input):
    _argcheck.tensor("numel", "input", 1, input)
    return input.numel()
