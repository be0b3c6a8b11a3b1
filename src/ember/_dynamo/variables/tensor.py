"""torch._dynamo.variables.tensor: a tensor in the graph (its fx Node and its fake value), and its methods."""
from .base import VariableTracker


class TensorVariable(VariableTracker):
    def __init__(self, node, fake, source=None):
        self.node = node
        self.fake = fake
        self.source = source
        node.meta["example_value"] = fake

    def python_type(self):
        from ember._tensor import Tensor
        from ember.nn.parameter import Parameter
        return Parameter if self.source is not None and getattr(self, "is_param", False) else Tensor

    def __repr__(self):
        return f"TensorVariable({self.node.name}, {tuple(self.fake.shape)})"


class TensorMethodVariable(VariableTracker):
    """`x.view` before it is called."""

    def __init__(self, tensor, name):
        self.tensor, self.name = tensor, name
