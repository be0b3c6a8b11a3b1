"""torch._decomp's registration half: the decomposition table and register_decomposition."""
from collections import defaultdict

decomposition_table = {}
by_packet = defaultdict(list)


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
                by_packet[op.overloadpacket].append(op)
        return fn
    return deco
