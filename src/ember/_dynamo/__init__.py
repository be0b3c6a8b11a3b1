"""torch._dynamo: ember.compile's front end (capture bytecode into fx graphs with guards, a cache per code
object, graph breaks, resume functions and recompiles), and its public helpers."""
from . import config, exc, utils  # noqa: F401
from .backends.registry import list_backends, lookup_backend, register_backend  # noqa: F401
from .eval_frame import OptimizedModule, optimize, reset as _reset_caches  # noqa: F401
from .trace_rules import _SPECIAL_FUNCTIONS, _allowed_in_graph, _disallowed

__all__ = ["list_backends", "lookup_backend", "register_backend", "reset", "explain", "mark_dynamic", "mark_static", "graph_break", "disable", "allow_in_graph",
           "disallow_in_graph", "config", "exc", "utils", "OptimizedModule", "optimize"]


def reset():
    """Forget every cache entry, resume function, recompile count and counter (torch._dynamo.reset)."""
    _reset_caches()


def graph_break():
    """A call that always breaks the graph when compiled; does nothing when run eagerly."""


_SPECIAL_FUNCTIONS.add(graph_break)


def disable(fn=None, recursive=True, *, reason=None):
    """Run `fn` eagerly, never captured; a call to it inside compiled code is a graph break."""
    if fn is None:
        return lambda f: disable(f, recursive, reason=reason)
    _disallowed.add(fn)
    return fn


def allow_in_graph(fn):
    """Put calls to `fn` into the graph as one node (not inlined)."""
    if isinstance(fn, (list, tuple)):
        return [allow_in_graph(f) for f in fn]
    _allowed_in_graph.add(fn)
    return fn


def disallow_in_graph(fn):
    _allowed_in_graph.discard(fn)
    _disallowed.add(fn)
    return fn


def mark_dynamic(t, index, *, min=None, max=None):
    """Treat dimension(s) `index` of tensor `t` as dynamic at its first capture: its size becomes a symbol of its
    own (never duck-sized), limited to [min, max] when given. If the capture specialises it to a constant anyway,
    compiling raises ConstraintViolationError (torch's behaviour)."""
    idx = set(index) if isinstance(index, (list, tuple, set)) else {index}
    dims = set(getattr(t, "_dynamo_dynamic_indices", set()))
    t._dynamo_dynamic_indices = dims | idx
    if min is not None or max is not None:
        ranges = dict(getattr(t, "_dynamo_dynamic_range", {}))
        for d in idx:
            ranges[d] = (min, max)
        t._dynamo_dynamic_range = ranges


def mark_static(t, index=None):
    if hasattr(t, "_dynamo_dynamic_indices"):
        t._dynamo_dynamic_indices = set() if index is None else t._dynamo_dynamic_indices - {index}


def explain(fn, *extra_args, **extra_kwargs):
    from .explain_output import explain as _explain
    return _explain(fn, *extra_args, **extra_kwargs)
