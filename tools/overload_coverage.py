"""Which operator overloads do the parity tests reach? (torch has no such tool; its OpInfo coverage
checks are the nearest.)

Runs a pytest selection (default: every test marked ``parity``, plus the op database's ``test_out`` and
``test_inplace``, which compare the out=/in-place forms with the functional form that ``test_parity``
compares with torch) with a dispatch observer installed (``ember._ops.set_dispatch_observer``), records
each OpOverload called while such a test runs, and sorts every overload declared in
``src/ember/native/*.yaml`` into

- *reached*: a selected test called it directly (at the top, not nested inside another op's kernel
  or decomposition, so its own result is what the test compares); ``tools/overload_reached.txt``
  records each with the first test that reached it;
- *reasoned*: not reached, with a written reason in ``tools/overload_reasons.txt`` (a backward-only
  overload checked through its forward op's gradient tests, an op torch does not expose, ...);
- *unexplained*: neither. The goal is none: ``tests/tools/test_overload_coverage.py`` reads the two
  files (without running the suite) and fails on a declared overload in neither. Known gaps are
  listed in the reasons file as ``name: TODO ...`` (counted as unexplained, but they do not fail the
  test), so only a *new* unexplained overload fails it.

    python tools/overload_coverage.py                          # all parity tests (slow: minutes)
    python tools/overload_coverage.py --write                  # ... and rewrite overload_reached.txt
    python tools/overload_coverage.py --write --merge tests/ops/test_ops.py -k eig   # add a selection's
    python tools/overload_coverage.py --static                 # the two files only (no test run)
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
REACHED = os.path.join(ROOT, "tools", "overload_reached.txt")
REASONS = os.path.join(ROOT, "tools", "overload_reasons.txt")
OPDB_VARIANT_TESTS = ("test_out", "test_inplace")   # tests/ops/test_ops.py: out=/in-place == functional
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


def _entries(path):
    """Lines `name [name ...]: text` of a reviewed list ('#' comments and blank lines skipped):
    {name: text}. A name given twice is an error."""
    out = {}
    if not os.path.exists(path):
        return out
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            names, sep, text = line.partition(":")
            if not sep or not text.strip() or not names.split():
                raise ValueError(f"{path}:{n}: expected 'overload [overload ...]: text', got {line!r}")
            for name in names.split():
                if name in out:
                    raise ValueError(f"{path}:{n}: {name} is listed twice")
                out[name] = text.strip()
    return out


def load_reasons(path=REASONS):
    """{overload: why no parity test reaches it} from tools/overload_reasons.txt."""
    return _entries(path)


def load_reached(path=REACHED):
    """{overload: the first test that called it} from tools/overload_reached.txt (written by --write)."""
    return _entries(path)


TODO = "TODO"   # a reasons entry starting with this is a known gap (still unexplained), not a reason


def classify(declared, reached, reasons):
    """Sort the declared overloads into reached / reasoned / unexplained (those with a "TODO: ..." entry
    are unexplained too, but known: listed in "known_gaps"), and list the entries of the two files that
    no longer fit: reasons for overloads that are reached (drop the reason), and names in either file
    that native/*.yaml does not declare."""
    got = {"reached": [], "reasoned": [], "unexplained": [], "known_gaps": []}
    for o in sorted(declared):
        if o in reached:
            got["reached"].append(o)
        elif o in reasons and not reasons[o].startswith(TODO):
            got["reasoned"].append(o)
        else:
            got["unexplained"].append(o)
            if o in reasons:
                got["known_gaps"].append(o)
    got["reason_but_reached"] = sorted(o for o in reasons if o in reached)
    got["not_declared"] = sorted(o for o in set(reasons) | set(reached) if o not in declared)
    return got


def overload_name(op):
    """The yaml spelling of an OpOverload: "add.Tensor", "abs" (default overload)."""
    return op.name().split("::", 1)[1]


def _selected(item):
    """A parity test, or an op-database test comparing out=/in-place with the functional form."""
    if item.get_closest_marker("parity") is not None:
        return True
    name = getattr(item, "originalname", item.name)
    return name in OPDB_VARIANT_TESTS and item.fspath.basename == "test_ops.py"


class Recorder:
    """A pytest plugin: records the overloads run during the call phase of the selected tests (parity
    tests and the op database's out=/in-place tests; every test with only_parity=False)."""

    def __init__(self, only_parity=True):
        self.only_parity = only_parity
        self.reached = defaultdict(int)     # overload -> calls (nested included)
        self.direct = defaultdict(int)      # overload -> top-level calls
        self.first = {}                     # overload -> id of the first test that called it directly
        self.tests = 0
        self._local = threading.local()
        self._active = False
        self._test = None

    def pytest_collection_modifyitems(self, session, config, items):
        if self.only_parity:
            keep = [i for i in items if _selected(i)]
            config.hook.pytest_deselected(items=[i for i in items if not _selected(i)])
            items[:] = keep

    def _observe(self, op):
        if not self._active:
            return None
        depth = getattr(self._local, "depth", 0)
        name = overload_name(op)
        self.reached[name] += 1
        if depth == 0:
            self.direct[name] += 1
            self.first.setdefault(name, self._test)
        self._local.depth = depth + 1

        def end():
            self._local.depth = depth
        return end

    def pytest_collection_finish(self, session):
        from ember import _ops
        _ops.set_dispatch_observer(self._observe)

    def pytest_runtest_call(self, item):
        self._active = not self.only_parity or _selected(item)
        self.tests += self._active
        self._test = os.path.relpath(str(item.fspath), ROOT) + "::" + item.name
        self._local.depth = 0

    def pytest_runtest_teardown(self, item):
        self._active = False

    def pytest_sessionfinish(self, session):
        try:
            from ember import _ops
            _ops.set_dispatch_observer(None)
        except ImportError:
            pass


def report(recorder, declared, reasons=None):
    reasons = load_reasons() if reasons is None else reasons
    unreached = sorted(o for o in declared if o not in recorder.reached)
    indirect = sorted(o for o in declared if o in recorder.reached and o not in recorder.direct)
    by_file = defaultdict(list)
    for o in unreached:
        by_file[declared[o]].append(o)
    c = classify(declared, recorder.direct, reasons)
    return {
        "tests": recorder.tests,
        "declared": len(declared),
        "reached": sum(o in recorder.reached for o in declared),
        "called_directly": sum(o in recorder.direct for o in declared),
        "reasoned": len(c["reasoned"]),
        "unexplained": c["unexplained"],
        "reason_but_reached": c["reason_but_reached"],
        "unreached": {f: names for f, names in sorted(by_file.items())},
        "reached_only_inside_other_ops": indirect,
        "not_declared_but_reached": sorted(o for o in recorder.reached if o not in declared),
        "first_test": {o: recorder.first[o] for o in sorted(recorder.first) if o in declared},
    }


def write_reached(first, path=REACHED):
    with open(path, "w", encoding="utf-8") as f:
        f.write("# @generated by `python tools/overload_coverage.py --write`: every overload declared in\n"
                "# src/ember/native/*.yaml that a parity test (or the op database's out=/in-place test) calls\n"
                "# directly, with the first such test. Regenerate after adding op-db entries or samples.\n")
        for o in sorted(first):
            f.write(f"{o}: {first[o]}\n")


def _print_classes(declared, c, unexplained_by_file=True):
    n = len(declared)
    print(f"  reached:          {len(c['reached'])} ({100 * len(c['reached']) / n:.1f}%)")
    print(f"  reasoned:         {len(c['reasoned'])} (tools/overload_reasons.txt)")
    print(f"  unexplained:      {len(c['unexplained'])} (known gaps marked TODO in the reasons file: "
          f"{len(c['known_gaps'])})")
    by_file = defaultdict(list)
    for o in c["unexplained"]:
        by_file[declared[o]].append(o)
    for f, names in sorted(by_file.items()):
        print(f"    {f}: {' '.join(names)}")
    if c["reason_but_reached"]:
        print(f"  reached but still given a reason (drop the reason): {' '.join(c['reason_but_reached'])}")
    if c.get("not_declared"):
        print(f"  named in the lists but not declared: {' '.join(c['not_declared'])}")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("pytest_args", nargs="*", help="test selection and pytest options (default: tests)")
    ap.add_argument("--json", help="also write the full report here")
    ap.add_argument("--all-tests", action="store_true",
                    help="record every test, not only those marked parity")
    ap.add_argument("--write", action="store_true",
                    help="rewrite tools/overload_reached.txt from this run (use with the default selection)")
    ap.add_argument("--merge", action="store_true",
                    help="with --write: keep the overloads already in overload_reached.txt (a selection's update)")
    ap.add_argument("--static", action="store_true",
                    help="no test run: classify from tools/overload_reached.txt and overload_reasons.txt")
    args, extra = ap.parse_known_args(argv)
    declared = declared_overloads()
    if args.static:
        c = classify(declared, load_reached(), load_reasons())
        print(f"overloads declared in native/*.yaml: {len(declared)} (recorded in tools/overload_reached.txt)")
        _print_classes(declared, c)
        return c
    import pytest
    selection = args.pytest_args + extra or [os.path.join(ROOT, "tests")]
    recorder = Recorder(only_parity=not args.all_tests)
    code = pytest.main([*selection, "-q", "-p", "no:cacheprovider", "--continue-on-collection-errors"],
                       plugins=[recorder])
    rep = report(recorder, declared)
    rep["pytest_exit_code"] = int(code)
    n = rep["declared"]
    kind = "tests" if args.all_tests else "parity (and op-db out=/in-place) tests"
    print(f"\n{rep['tests']} {kind}; overloads declared in native/*.yaml: {n}")
    print(f"  reached at all:   {rep['reached']} ({100 * rep['reached'] / n:.1f}%), "
          f"only inside other ops: {len(rep['reached_only_inside_other_ops'])}")
    print(f"  never reached:    {n - rep['reached']}")
    for f, names in rep["unreached"].items():
        print(f"    {f}: {' '.join(names)}")
    print("called directly (reached), with a reason, neither:")
    _print_classes(declared, classify(declared, recorder.direct, load_reasons()))
    if args.write:
        first = rep["first_test"]
        if args.merge:
            first = {**{o: t for o, t in load_reached().items() if o in declared}, **first}
        write_reached(first)
        print(f"wrote {os.path.relpath(REACHED, ROOT)} ({len(first)} overloads)")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(rep, fh, indent=1)
    return rep


if __name__ == "__main__":
    sys.path.insert(0, os.path.join(ROOT, "src"))
    main()
