"""Results: JUnit XML parsing, per-file live lines and the closing summary.

Counting rules (the closing line sums them over all files):

* a test case is *failed* when its JUnit ``<testcase>`` has a ``<failure>`` or ``<error>``
  child (collection errors, e.g. an import error, appear as such a case), *skipped* when it
  has ``<skipped>`` (xfail included), *passed* otherwise;
* a test that failed and then passed on its retry is *flaky*: counted as passed and listed;
* a file whose pytest process crashed, timed out, or wrote no usable XML without any failed
  case in it counts one synthetic failure, so the run can never look green.

The closing line is exactly ``N passed, N failed, N skipped`` and is the last line printed.
"""
from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass, field

from . import pytest_plugin

PARITY = "parity"


@dataclass(frozen=True)
class Case:
    nodeid: str
    outcome: str  # "passed" | "failed" | "skipped"
    markers: tuple[str, ...] = ()
    collected: bool = True  # False for collection errors / module-level skips (no node id)
    seconds: float = 0.0  # the <testcase time=...> pytest recorded (setup + call + teardown)


def parse_junit(path: str) -> list[Case] | None:
    """Cases in a pytest JUnit XML file, one per node id (failed wins); None if unreadable."""
    try:
        tree = ET.parse(path)
    except (OSError, ET.ParseError):
        return None
    order: list[str] = []
    cases: dict[str, Case] = {}
    for tc in tree.getroot().iter("testcase"):
        props = {p.get("name"): p.get("value", "") for p in tc.iter("property")}
        nodeid = props.get(pytest_plugin.NODEID_PROPERTY)
        collected = nodeid is not None
        if nodeid is None:
            classname, name = tc.get("classname", ""), tc.get("name", "")
            nodeid = f"{classname}::{name}" if classname else name
        tags = {child.tag for child in tc}
        if tags & {"failure", "error"}:
            outcome = "failed"
        elif "skipped" in tags:
            outcome = "skipped"
        else:
            outcome = "passed"
        markers = tuple(m for m in props.get(pytest_plugin.MARKERS_PROPERTY, "").split(",") if m)
        try:
            seconds = float(tc.get("time", 0) or 0)
        except ValueError:
            seconds = 0.0
        case = Case(nodeid, outcome, markers, collected, seconds)
        if nodeid not in cases:
            order.append(nodeid)
            cases[nodeid] = case
        elif outcome == "failed":
            cases[nodeid] = case
    return [cases[n] for n in order]


@dataclass
class FileResult:
    path: str
    passed: int = 0
    failed: int = 0
    skipped: int = 0
    seconds: float = 0.0
    flaky: list[str] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    error: str | None = None  # file-level problem: crash, timeout, collection error
    output: str = ""  # pytest output shown when the file failed
    parity_selected: int = 0
    parity_ran: int = 0

    @property
    def ok(self) -> bool:
        return self.failed == 0

    @property
    def status(self) -> str:
        if not self.ok:
            return "FAILED"
        return "FLAKY" if self.flaky else "PASSED"


def counts_line(passed: int, failed: int, skipped: int) -> str:
    return f"{passed} passed, {failed} failed, {skipped} skipped"


def live_line(result: FileResult, index: int, total: int) -> str:
    width = len(str(total))
    line = (
        f"[{index:>{width}}/{total}] {result.status:<6} {result.path} "
        f"({counts_line(result.passed, result.failed, result.skipped)}; {result.seconds:.2f}s)"
    )
    if result.flaky:
        line += f" flaky: {len(result.flaky)}"
    if result.error:
        line += f" -- {result.error}"
    return line


def tail(text: str, max_lines: int = 200) -> str:
    lines = text.rstrip("\n").splitlines()
    if len(lines) <= max_lines:
        return "\n".join(lines)
    return "\n".join([f"... ({len(lines) - max_lines} earlier lines cut)"] + lines[-max_lines:])


@dataclass
class Totals:
    passed: int = 0
    failed: int = 0
    skipped: int = 0
    parity_selected: int = 0
    parity_ran: int = 0
    flaky: list[str] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)

    def add(self, r: FileResult) -> None:
        self.passed += r.passed
        self.failed += r.failed
        self.skipped += r.skipped
        self.parity_selected += r.parity_selected
        self.parity_ran += r.parity_ran
        self.flaky += r.flaky
        self.failures += r.failures


def summarize(results: list[FileResult]) -> Totals:
    totals = Totals()
    for r in results:
        totals.add(r)
    return totals


def closing_lines(totals: Totals, files: int, seconds: float) -> list[str]:
    """Lines printed after all files finished; the last one is the exact summary line."""
    lines = []
    if totals.flaky:
        lines.append(f"flaky tests (failed, then passed on retry; counted as passed): {len(totals.flaky)}")
        lines += [f"  {n}" for n in totals.flaky]
    if totals.failures:
        lines.append(f"failed tests: {len(totals.failures)}")
        lines += [f"  {n}" for n in totals.failures]
    lines.append(
        f"ran {files} test file(s) in {seconds:.1f}s; parity tests: "
        f"{totals.parity_selected} selected, {totals.parity_ran} not skipped"
    )
    lines.append(counts_line(totals.passed, totals.failed, totals.skipped))
    return lines
