"""torch._dynamo.variables.constant: immutable Python values (numbers, strings, None, dtypes, slices, ranges)."""
from .base import VariableTracker


class ConstantVariable(VariableTracker):
    def __init__(self, value, source=None):
        self.value = value
        self.source = source

    def python_type(self):
        return type(self.value)

    def is_python_constant(self):
        return True

    def as_python_constant(self):
        return self.value

    def __repr__(self):
        return f"ConstantVariable({self.value!r})"
