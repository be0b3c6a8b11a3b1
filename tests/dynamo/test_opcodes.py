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


def test_python_310_table_has_its_own_call_binary_and_stack_opcodes():
    t310, t311 = opcode_table((3, 10)), opcode_table((3, 11))
    only_310 = {"CALL_FUNCTION", "CALL_FUNCTION_KW", "CALL_METHOD", "BINARY_ADD", "INPLACE_ADD", "ROT_TWO",
                "ROT_THREE", "DUP_TOP", "DUP_TOP_TWO", "JUMP_ABSOLUTE", "SETUP_WITH", "POP_JUMP_IF_FALSE"}
    assert only_310 <= set(t310)
    assert not (only_310 - {"POP_JUMP_IF_FALSE"}) & set(t311)
    assert t310["LOAD_GLOBAL"] is not t311["LOAD_GLOBAL"]          # no NULL bit on 3.10
    assert t310["MAKE_FUNCTION"] is not t311["MAKE_FUNCTION"]      # the qualname is on the stack on 3.10


def _python(version):
    """An interpreter of `version` with numpy (EMBER_PYTHON_<major><minor>, or pyenv's), else None."""
    import glob
    import os
    import subprocess
    cands = [os.environ.get(f"EMBER_PYTHON_{version[0]}{version[1]}")]
    cands += sorted(glob.glob(os.path.expanduser(f"~/.pyenv/versions/{version[0]}.{version[1]}*/bin/python")))
    for c in cands:
        if c and os.path.exists(c) and subprocess.run([c, "-c", "import numpy, sympy"],
                                                      capture_output=True).returncode == 0:
            return c
    return None


_ON_OTHER_PYTHON = r'''
import sys, warnings
import ember
from ember._dynamo.utils import counters
from ember.testing import assert_close


def f(x, ys, n, *, k=2):
    a, b = ys
    out = [y * i for i, y in enumerate(ys)]
    with ember.no_grad():
        z = x.sum(dim=0, keepdim=False)

    def inner(t):
        return t + n
    return inner(a) + b * max(n, k) + sum(out) + z, f"{n}:{k}"


x, ys = ember.randn(3, 2), [ember.randn(2), ember.randn(2)]
with warnings.catch_warnings():
    warnings.simplefilter("error")
    cf = ember.compile(f, backend="eager", fullgraph=True)
    (out, s), (ref, rs) = cf(x, ys, 3, k=4), f(x, ys, 3, k=4)
assert_close(out, ref)
assert s == rs


def g(x):
    if x.sum() > 0:          # a graph break: eager on a version without resume functions
        return x + 1
    return x - 1


cg = ember.compile(g)
for v in (ember.ones(2), -ember.ones(2)):
    assert_close(cg(v), g(v))
print(dict(counters["frames"]))
'''


@pytest.mark.parametrize("version", [(3, 10), (3, 12), (3, 13)])
def test_compile_runs_on_other_pythons(version):
    """The same program under another CPython (EMBER_PYTHON_<major><minor>, or pyenv's with numpy and sympy):
    a full graph; a graph break resumes on 3.11+ and runs the frame eagerly on 3.10."""
    import ast
    import os
    import subprocess
    py = _python(version)
    if py is None:
        pytest.skip(f"no Python {version[0]}.{version[1]} with numpy and sympy (set EMBER_PYTHON_"
                    f"{version[0]}{version[1]})")
    src = os.path.join(os.path.dirname(__file__), "..", "..", "src")
    r = subprocess.run([py, "-c", _ON_OTHER_PYTHON], capture_output=True, text=True, timeout=600,
                       env={**os.environ, "PYTHONPATH": os.path.abspath(src)})
    assert r.returncode == 0, r.stderr[-3000:]
    frames = ast.literal_eval(r.stdout.strip().splitlines()[-1])
    if version == (3, 10):
        assert frames == {"ok": 1, "skipped": 1}
    else:
        assert frames["ok"] >= 2 and "skipped" not in frames
