"""torch._dynamo.variables.user_defined + ctx_manager: any other Python object (guarded by its source), and
grad-mode context managers."""
from .base import VariableTracker


class UserObjectVariable(VariableTracker):
    """A Python object read from a source (classes, Python modules, config objects...). Attribute writes made
    during capture are kept in `pending_attrs` and replayed after the graph."""

    def __init__(self, value, source=None):
        self.value = value
        self.source = source
        self.pending_attrs = {}

    def python_type(self):
        return type(self.value)


class GradModeVariable(VariableTracker):
    """`ember.no_grad()`, `ember.enable_grad()`, `ember.set_grad_enabled(b)`: entering sets the traced grad mode."""

    def __init__(self, mode):
        self.mode = mode
        self.prev = None


class WithExitVariable(VariableTracker):
    """The `__exit__` that BEFORE_WITH pushes for a grad-mode block: calling it restores the previous mode."""

    def __init__(self, ctx):
        self.ctx = ctx

    def exit(self, tx):
        from .constant import ConstantVariable
        tx.set_grad(self.ctx.prev)
        if tx.block_stack and tx.block_stack[-1] is self.ctx:
            tx.block_stack.pop()
        return ConstantVariable(None)
