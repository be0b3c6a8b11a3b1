"""tools/overload_coverage.py and the dispatch observer it installs (off by default)."""
import json
import os
import subprocess
import sys

import pytest

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


def test_every_declared_overload_is_reached_or_has_a_reason():
    """Every overload of native/*.yaml is called by a parity test (tools/overload_reached.txt, written by
    `python tools/overload_coverage.py --write`) or has a reviewed reason (tools/overload_reasons.txt).
    A new overload needs an op-db entry (then rerun the tool with --write) or a reason."""
    declared = oc.declared_overloads()
    c = oc.classify(declared, oc.load_reached(), oc.load_reasons())
    new = sorted(set(c["unexplained"]) - set(c["known_gaps"]))
    assert not new, (
        f"{len(new)} overloads are reached by no parity test and have no reason in "
        f"tools/overload_reasons.txt: {' '.join(new)}")
    assert not c["not_declared"], f"the lists name overloads native/*.yaml does not declare: {c['not_declared']}"
    assert not c["reason_but_reached"], f"reached now: drop their reasons: {c['reason_but_reached']}"


def test_classify_flags_a_new_overload(tmp_path):
    reasons = tmp_path / "reasons.txt"
    reasons.write_text("# a comment\n\nfoo_backward bar.out: reached through foo's gradient tests\n"
                       "baz: TODO no op-db entry yet\n")
    got = oc.classify({"foo": "x.yaml", "foo_backward": "x.yaml", "bar.out": "x.yaml", "new.Tensor": "x.yaml",
                       "baz": "x.yaml"}, {"foo": "tests/t.py::test_a"}, oc.load_reasons(str(reasons)))
    assert got["reached"] == ["foo"] and got["reasoned"] == ["bar.out", "foo_backward"]
    assert got["unexplained"] == ["baz", "new.Tensor"] and got["known_gaps"] == ["baz"]
    reasons.write_text("foo.out\n")
    with pytest.raises(ValueError, match="expected 'overload"):
        oc.load_reasons(str(reasons))
