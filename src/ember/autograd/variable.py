"""torch.autograd.variable: the legacy Variable name at torch's path (Variable(t) is t, as in torch)."""
from . import Variable  # noqa: F401
