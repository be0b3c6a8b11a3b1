"""Which operator overloads do the parity tests reach? (torch has no such tool; its OpInfo coverage
checks are the nearest.)

Runs a pytest selection (default: every test marked ``parity``) with a dispatch observer installed
(``ember._ops.set_dispatch_observer``), records each OpOverload called while a parity test runs, and
lists every overload declared in ``src/ember/native/*.yaml`` that none of them reached. An overload is
*reached* when it runs at all (also inside another op's kernel or a decomposition) and *called
directly* when a test called it at the top (not nested inside another op), which is what a parity
test compares with torch.

    python tools/overload_coverage.py                          # all parity tests (slow: minutes)
    python tools/overload_coverage.py tests/ops/test_ops.py    # a selection (pytest arguments)
    python tools/overload_coverage.py --json cov.json tests/ops -k floor
"""
import argparse
import json
import os
import re
import sys
import threading
from collections import defaultdict

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NATIVE = os.path.join(ROOT, "src", "ember", "native")
_FUNC = re.compile(r"^- func:\s*([A-Za-z0-9_]+)(?:\.([A-Za-z0-9_]+))?\s*\(")


def declared_overloads(native_dir=NATIVE):
    """{"add.Tensor": "elementwise.yaml", "abs": "elementwise.yaml", ...}: every overload of native/*.yaml."""
    out = {}
    for fname in sorted(os.listdir(native_dir)):
        if not fname.endswith(".yaml"):
            continue
        with open(os.path.join(native_dir, fname), encoding="utf-8") as f:
            for line in f:
                m = _FUNC.match(line)
                if m:
                    out[m.group(1) + ("." + m.group(2) if m.group(2) else "")] = fname
    return out


def overload_name(op):
    """The yaml spelling of an OpOverload: "add.Tensor", "abs" (default overload)."""
    return op.name().split("::", 1)[1]


class Recorder:
    """A pytest plugin: records the overloads run during the call phase of tests marked ``parity``."""

    def __init__(self, only_parity=True):
        self.only_parity = only_parity
        self.reached = defaultdict(int)     # overload -> calls (nested included)
        self.direct = defaultdict(int)      # overload -> top-level calls
        self.tests = 0
        self._local = threading.local()
        self._active = False

    def _observe(self, op):
        if not self._active:
            return None
        depth = getattr(self._local, "depth", 0)
        name = overload_name(op)
        self.reached[name] += 1
        if depth == 0:
            self.direct[name] += 1
        self._local.depth = depth + 1

        def end():
            self._local.depth = depth
        return end

    def pytest_collection_finish(self, session):
        from ember import _ops
        _ops.set_dispatch_observer(self._observe)

    def pytest_runtest_call(self, item):
        self._active = not self.only_parity or item.get_closest_marker("parity") is not None
        self.tests += self._active
        self._local.depth = 0

    def pytest_runtest_teardown(self, item):
        self._active = False

    def pytest_sessionfinish(self, session):
        try:
            from ember import _ops
            _ops.set_dispatch_observer(None)
        except ImportError:
            pass


def report(recorder, declared):
    unreached = sorted(o for o in declared if o not in recorder.reached)
    indirect = sorted(o for o in declared if o in recorder.reached and o not in recorder.direct)
    by_file = defaultdict(list)
    for o in unreached:
        by_file[declared[o]].append(o)
    return {
        "tests": recorder.tests,
        "declared": len(declared),
        "reached": sum(o in recorder.reached for o in declared),
        "called_directly": sum(o in recorder.direct for o in declared),
        "unreached": {f: names for f, names in sorted(by_file.items())},
        "reached_only_inside_other_ops": indirect,
        "not_declared_but_reached": sorted(o for o in recorder.reached if o not in declared),
    }


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("pytest_args", nargs="*", help="test selection and pytest options (default: tests)")
    ap.add_argument("--json", help="also write the full report here")
    ap.add_argument("--all-tests", action="store_true",
                    help="record every test, not only those marked parity")
    args, extra = ap.parse_known_args(argv)
    import pytest
    selection = args.pytest_args + extra or [os.path.join(ROOT, "tests")]
    if not args.all_tests and not any(a == "-m" for a in selection):
        selection += ["-m", "parity"]
    recorder = Recorder(only_parity=not args.all_tests)
    code = pytest.main([*selection, "-q", "-p", "no:cacheprovider", "--continue-on-collection-errors"],
                       plugins=[recorder])
    rep = report(recorder, declared_overloads())
    rep["pytest_exit_code"] = int(code)
    n = rep["declared"]
    kind = "tests" if args.all_tests else "parity tests"
    print(f"\n{rep['tests']} {kind}; overloads declared in native/*.yaml: {n}")
    print(f"  reached:          {rep['reached']} ({100 * rep['reached'] / n:.1f}%)")
    print(f"  called directly:  {rep['called_directly']} ({100 * rep['called_directly'] / n:.1f}%)")
    print(f"  never reached:    {n - rep['reached']}")
    for f, names in rep["unreached"].items():
        print(f"    {f}: {' '.join(names)}")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(rep, fh, indent=1)
    return rep


if __name__ == "__main__":
    sys.path.insert(0, os.path.join(ROOT, "src"))
    main()
