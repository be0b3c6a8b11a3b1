"""torch._dynamo.utils: counters of captures, breaks and recompiles, and the EMBER_LOGS loggers."""
import collections
import os
import sys

# counters["stats"]["unique_graphs"], counters["graph_break"][reason], counters["recompiles"][name], ...
counters = collections.defaultdict(collections.Counter)

_LOG_NAMES = {"graph_code", "graph", "guards", "recompiles", "graph_breaks", "bytecode"}


def _enabled_logs():
    spec = os.environ.get("EMBER_LOGS", "")
    return {p.strip().lstrip("+") for p in spec.split(",") if p.strip()}


def log(kind, text):
    """Print `text` to stderr under `[kind]` if EMBER_LOGS names it (read each time, so tests can set it)."""
    if kind in _enabled_logs():
        print(f"[ember._dynamo:{kind}] {text}", file=sys.stderr)


def reset_counters():
    counters.clear()


def user_location(code, offset):
    """`file:line` of the instruction at `offset` in `code` (the user's line for error messages)."""
    line = None
    for start, end, ln in code.co_lines():
        if start <= offset < end and ln is not None:
            line = ln
            break
    return f"{code.co_filename}:{line if line is not None else code.co_firstlineno}"


def qualified_name(fn):
    """The name of a callable for messages: its qualname, name, or str()."""
    return getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None) or str(fn)
