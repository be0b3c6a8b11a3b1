from .module import Module  # noqa: F401
from .container import Sequential, ModuleList, ModuleDict, ParameterList, ParameterDict  # noqa: F401
from .flatten import Flatten, Unflatten  # noqa: F401
from .linear import Identity  # noqa: F401
