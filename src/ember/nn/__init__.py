"""ember.nn: modules, parameters, init, functional and utils (torch.nn)."""
from .parameter import Parameter, Buffer, UninitializedParameter  # noqa: F401
from .modules import *  # noqa: F401,F403
from .modules import (Module, Sequential, ModuleList, ModuleDict, ParameterList, ParameterDict, Flatten,  # noqa: F401
                      Unflatten, Identity, Linear, ReLU, Sigmoid, Tanh, MSELoss)
from . import init  # noqa: F401
from . import functional  # noqa: F401
from . import utils  # noqa: F401
