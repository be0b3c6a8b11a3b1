"""torch._decomp: the decomposition table, from composite aten ops to a core aten set.

`decomposition_table` maps an OpOverload to a Python function written in other aten ops
(`decompositions.py`); `get_decompositions([ops])` selects entries (an OpOverloadPacket selects all its
overloads) for `make_fx(..., decomposition_table=...)` or AOT autograd; `core_aten_decompositions()` is the
whole table, the set a code generator lowers to. `register_decomposition(op)` adds an entry.
"""
from collections import defaultdict

decomposition_table = {}
_by_packet = defaultdict(list)


def register_decomposition(aten_op, registry=None):
    """Decorator: register fn as the decomposition of aten_op (an OpOverload or a list of them)."""
    ops_ = aten_op if isinstance(aten_op, (list, tuple)) else [aten_op]

    def deco(fn):
        table = decomposition_table if registry is None else registry
        for op in ops_:
            if op in table:
                raise RuntimeError(f"duplicate registrations for {op}")
            table[op] = fn
            if registry is None:
                _by_packet[op.overloadpacket].append(op)
        return fn
    return deco


def get_decompositions(aten_ops, type=None):
    """The entries of the table for aten_ops (OpOverloads, or packets standing for all their overloads)."""
    _load()
    from ember._ops import OpOverloadPacket
    out = {}
    for op in aten_ops:
        if isinstance(op, OpOverloadPacket):
            for ov in _by_packet.get(op, ()):
                out[ov] = decomposition_table[ov]
        elif op in decomposition_table:
            out[op] = decomposition_table[op]
    return out


def core_aten_decompositions():
    """Every decomposition in the table."""
    _load()
    return dict(decomposition_table)


_LOADED = [False]


def _load():
    if not _LOADED[0]:
        _LOADED[0] = True
        from . import decompositions  # noqa: F401  (registers the table)


_load()
