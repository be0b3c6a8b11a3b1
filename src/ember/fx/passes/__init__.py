"""torch.fx.passes: graph passes (shape propagation)."""
from . import shape_prop  # noqa: F401
