"""torch._dynamo.variables.base: VariableTracker, the stack's NULL and closure cells."""
from ..exc import Unsupported


class VariableTracker:
    """A value seen by the translator. `source` says where it was read from (None: made during capture)."""
    source = None

    def python_type(self):
        raise Unsupported(f"type() of {type(self).__name__}")

    def is_python_constant(self):
        return False

    def as_python_constant(self):
        raise Unsupported(f"{type(self).__name__} is not a Python constant")

    def __repr__(self):
        return f"{type(self).__name__}()"


class NullVariable(VariableTracker):
    """CPython's NULL pushed before a callable (PUSH_NULL, LOAD_GLOBAL with the low bit set)."""


class CellVariable(VariableTracker):
    """A closure cell created during capture (MAKE_CELL); `contents` is a tracker or None (empty)."""

    def __init__(self, contents=None, source=None):
        self.contents = contents
        self.source = source
