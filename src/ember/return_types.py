"""torch.return_types: the named-tuple types of ops with named outputs (`ember.max(x, 0)` returns
`ember.return_types.max(values=..., indices=...)`). The classes are generated from the schemas
(`_generated/return_types.py`); they live under this module's name, so they pickle and unpickle."""
from ._generated.return_types import *  # noqa: F401,F403
from ._generated.return_types import __all__  # noqa: F401
from ._generated.return_types import _structseq as _structseq

histogramdd = _structseq("histogramdd", ("hist", "bin_edges"))   # torch.histogramdd's (a Python-level function)
__all__ = list(__all__) + ["histogramdd"]
