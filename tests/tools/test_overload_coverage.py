"""tools/overload_coverage.py and the dispatch observer it installs (off by default)."""
import json
import os
import subprocess
import sys

import overload_coverage as oc

import ember
from ember import _ops

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_declared_overloads_are_the_yaml_funcs():
    declared = oc.declared_overloads()
    lines = 0
    for f in os.listdir(oc.NATIVE):
        if f.endswith(".yaml"):
            with open(os.path.join(oc.NATIVE, f)) as fh:
                lines += sum(line.startswith("- func:") for line in fh)
    assert len(declared) == lines
    assert declared["add.Tensor"] == "elementwise.yaml" and "add.out" in declared and "abs" in declared


def test_observer_is_off_by_default_and_sees_every_call():
    assert _ops._observer is None
    seen = []
    _ops.set_dispatch_observer(lambda op: seen.append(oc.overload_name(op)))
    try:
        ember.floor_divide(ember.ones(4), 2)
        ember.ones(3).remainder(2)
    finally:
        _ops.set_dispatch_observer(None)
    # floor_divide takes a number as a wrapped Tensor (torch's allow-list); remainder binds its Scalar overload
    assert "floor_divide" in seen and "remainder.Scalar" in seen
    count = len(seen)
    ember.floor_divide(ember.ones(4), 2)
    assert len(seen) == count                       # removed: nothing more is recorded


def test_report_on_a_selection(tmp_path):
    (tmp_path / "test_tiny.py").write_text(
        "import pytest\nimport ember\n\n\n@pytest.mark.parity\ndef test_a():\n"
        "    ember.floor_divide(ember.ones(4), 2)\n\n\ndef test_b():\n    ember.sub(ember.ones(2), 1)\n")
    out = tmp_path / "r.json"
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "src"))
    r = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "overload_coverage.py"),
                        str(tmp_path / "test_tiny.py"), "--json", str(out)], env=env, capture_output=True,
                       text=True, timeout=300, cwd=tmp_path)
    assert r.returncode == 0, r.stderr[-2000:]
    rep = json.loads(out.read_text())
    assert rep["tests"] == 1 and rep["pytest_exit_code"] == 0
    unreached = {o for names in rep["unreached"].values() for o in names}
    assert "floor_divide" not in unreached and "sub.Tensor" in unreached   # test_b is not a parity test
    assert rep["declared"] == len(oc.declared_overloads())
    assert "never reached" in r.stdout
