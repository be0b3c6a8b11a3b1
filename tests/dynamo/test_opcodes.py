"""The per-version opcode tables (ember/_dynamo/opcodes.py)."""
import dis
import sys

import pytest

import ember
from ember._dynamo.opcodes import SUPPORTED_VERSIONS, opcode_table


@pytest.mark.parametrize("version", sorted(SUPPORTED_VERSIONS))
def test_each_supported_version_has_one_handler_per_opcode(version):
    table = opcode_table(version)           # raises if two handlers claim one opcode on a version
    assert {"LOAD_FAST", "CALL", "BINARY_OP", "FOR_ITER"} <= set(table)
    assert ("KW_NAMES" in table) == (version < (3, 13))
    assert ("CALL_KW" in table) == (version >= (3, 13))
    assert ("PRECALL" in table) == (version < (3, 12))


def _sample(x, ys, *args, k=2, **kw):
    a, b = ys[0], ys[-1]
    n = len(args) + k
    out = [y * i for i, y in enumerate(ys)]
    s = f"{n!r:>3}{k}"
    with ember.no_grad():
        z = x.sum(dim=0, keepdim=False)
    if a is None or not s:
        return z

    def inner(t):
        return t + n
    return inner(a) + b * max(n, 1) + sum(out) + z + len(kw)


def test_sample_program_opcodes_are_all_handled_on_this_python():
    table = opcode_table(sys.version_info[:2])
    ops = {i.opname for i in dis.get_instructions(_sample)}
    ops |= {i.opname for c in _sample.__code__.co_consts if hasattr(c, "co_code") for i in dis.get_instructions(c)}
    # exception handling (the with block's exit path) and raising stay graph breaks
    missing = {o for o in ops if o not in table} - {"PUSH_EXC_INFO", "WITH_EXCEPT_START", "RERAISE",
                                                    "POP_EXCEPT", "CHECK_EXC_MATCH", "RETURN_VALUE"}
    assert not missing, missing
    x = ember.randn(3, 2)
    ys = [ember.randn(2), ember.randn(2)]
    compiled = ember.compile(_sample, backend="eager", fullgraph=True)
    ember.testing.assert_close(compiled(x, ys, 1, k=3, q=4), _sample(x, ys, 1, k=3, q=4))
