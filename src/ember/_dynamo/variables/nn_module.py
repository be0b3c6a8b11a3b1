"""torch._dynamo.variables.nn_module: an nn.Module read from a source; its attributes are guarded by the epoch."""
from .base import VariableTracker


class NNModuleVariable(VariableTracker):
    def __init__(self, module, source=None):
        self.module = module
        self.source = source

    def python_type(self):
        return type(self.module)
