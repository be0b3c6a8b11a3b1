"""torch._dynamo.backends: compiler backends (a backend takes a GraphModule and example inputs, returns a callable).
Importing the package registers the built-in ones (debugging.py: "eager", "aot_eager"; inductor.py:
"inductor", the default)."""
from . import registry  # noqa: F401
from . import debugging  # noqa: F401
from . import inductor  # noqa: F401
