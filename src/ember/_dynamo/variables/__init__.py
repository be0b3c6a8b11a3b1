"""torch._dynamo.variables: the trackers that stand for Python values while bytecode is run symbolically."""
from .base import VariableTracker, NullVariable, CellVariable  # noqa: F401
from .constant import ConstantVariable  # noqa: F401
from .tensor import TensorVariable, TensorMethodVariable  # noqa: F401
from .lists import ListVariable, TupleVariable, DictVariable, IteratorVariable, ResumeIteratorVariable  # noqa: F401,E501
from .functions import (UserFunctionVariable, NestedFunctionVariable, UserMethodVariable,  # noqa: F401
                        BuiltinVariable, TorchVariable, MethodVariable)
from .nn_module import NNModuleVariable  # noqa: F401
from .user_defined import UserObjectVariable, GradModeVariable, WithExitVariable  # noqa: F401
