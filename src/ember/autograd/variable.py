"""torch.autograd.variable: the legacy Variable name at torch's path (Variable(t) is t, as in torch)."""
from .._core.tensor_impl import TensorImpl as Variable  # noqa: F401  (ember.autograd.Variable)
