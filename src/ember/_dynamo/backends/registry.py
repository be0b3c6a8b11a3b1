"""torch._dynamo.backends.registry: the registry of compiler backends by name.

A backend is `compiler_fn(gm: GraphModule, example_inputs: list) -> callable`. `register_backend` adds one
(usable as a decorator), `lookup_backend("name")` returns it (a callable passes through), `list_backends()`
names the registered ones except those tagged with `exclude_tags` (torch hides "debug" and "experimental").
The built-in backends register themselves when the `backends` package is imported (it always is, being
this module's package).
"""
_BACKENDS = {}
_TAGS = {}


def register_backend(compiler_fn=None, name=None, tags=()):
    """Register compiler_fn under `name` (default: its __name__); returns it. Usable as @register_backend."""
    if compiler_fn is None:
        return lambda fn: register_backend(fn, name=name, tags=tags)
    if not callable(compiler_fn):
        raise AssertionError(f"register_backend: {compiler_fn!r} is not callable")
    name = name or compiler_fn.__name__
    if name in _BACKENDS and _BACKENDS[name] is not compiler_fn:
        raise AssertionError(f"duplicate name: {name}")
    _BACKENDS[name] = compiler_fn
    _TAGS[name] = tuple(tags)
    return compiler_fn


def lookup_backend(compiler_fn):
    """The backend named compiler_fn (a string), or compiler_fn itself if it is callable."""
    if isinstance(compiler_fn, str):
        if compiler_fn not in _BACKENDS:
            from ..exc import InvalidBackend
            raise InvalidBackend(name=compiler_fn)
        return _BACKENDS[compiler_fn]
    return compiler_fn


def list_backends(exclude_tags=("debug", "experimental")):
    """Names of the registered backends, sorted, without those carrying a tag in exclude_tags."""
    exclude = set(exclude_tags or ())
    return sorted(n for n, tags in _TAGS.items() if not exclude.intersection(tags))
