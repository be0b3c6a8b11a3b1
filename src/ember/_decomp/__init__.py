"""torch._decomp: the decomposition table, from composite aten ops to a core aten set.

`decomposition_table` maps an OpOverload to a Python function written in other aten ops
(`decompositions.py`: activations, softmax, pointwise composites, losses; `normalization.py`, `indexing.py`,
`backward.py`, `upsample.py`: the families of those names); `get_decompositions([ops])` selects entries (an
OpOverloadPacket selects all its overloads) for `make_fx(..., decomposition_table=...)` or AOT autograd; `core_aten_decompositions()` is the
whole table, the set a code generator lowers to. `register_decomposition(op)` adds an entry.
"""
from . import backward, decompositions, indexing, normalization, upsample  # noqa: F401  (fill the table)
from .registry import by_packet as _by_packet, decomposition_table, register_decomposition  # noqa: F401


def get_decompositions(aten_ops, type=None):
    """The entries of the table for aten_ops (OpOverloads, or packets standing for all their overloads)."""
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
    return dict(decomposition_table)
