"""torch._dynamo: the compiler front end. This package holds, for now, the backend registry
(`backends/registry.py`: register_backend, lookup_backend, list_backends) and the debugging backends
"eager" and "aot_eager"; capture (symbolic_convert, guards, convert_frame) is a later issue."""
from .backends.registry import list_backends, lookup_backend, register_backend  # noqa: F401
