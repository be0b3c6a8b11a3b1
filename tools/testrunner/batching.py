"""Packing short test files into one pytest process each batch, and splitting results back per file.

Starting a pytest process that imports ember (and torch for parity tests) costs about two seconds,
which is most of the run time of a small test file. The runner therefore packs consecutive short
files into *batches* that share one process:

* a file runs alone when it is serial, when its recorded duration is unknown, or when it alone
  reaches the batch target;
* otherwise files are appended to the current batch until the recorded durations in it (less the
  start-up cost) reach the target (``--batch-seconds``), then a new batch starts. A batch runs
  where its first file stood, and a serial file closes the batch before it.

Results stay per file: every JUnit case is attributed to its file by node id (``path::...``) or,
for uncollected cases, by dotted module name. When a batch's process crashes, times out, has a
collection error, or writes a case that cannot be attributed, the runner forgets the batch run and
runs each of its files alone, so failures are always reported against the right file.
"""
from __future__ import annotations

from .reporting import Case

STARTUP_SECONDS = 2.0  # interpreter + pytest + imports: the part of a recorded duration batching saves


def plan(files: list[str], serial: set[str], times: dict[str, float], target: float) -> list[list[str]]:
    """Split *files* into batches; a batch of one is a file that runs alone.

    A batch takes the place of its first file in the order, and never reaches across a serial
    file, so everything before a serial file still runs before it."""
    if target <= 0:
        return [[f] for f in files]
    units: list[list[str]] = []
    current: list[str] | None = None
    budget = 0.0
    for f in files:
        t = times.get(f)
        own = None if t is None else max(t - STARTUP_SECONDS, 0.1)
        if f in serial:
            current = None
            units.append([f])
            continue
        if own is None or own >= target:
            units.append([f])
            continue
        if current is None:
            current, budget = [], 0.0
            units.append(current)
        current.append(f)
        budget += own
        if budget >= target:
            current = None
    return units


def module_of(path: str) -> str:
    return path.replace("/", ".").removesuffix(".py")


def split(paths: list[str], cases: list[Case]) -> dict[str, list[Case]] | None:
    """Cases per file, or None if any case cannot be attributed to exactly one of *paths*."""
    out: dict[str, list[Case]] = {p: [] for p in paths}
    modules = {module_of(p): p for p in paths}
    for c in cases:
        if c.collected:
            owner = c.nodeid.split("::", 1)[0]
            if owner not in out:
                return None
        else:
            head = c.nodeid.split("::", 1)[0]
            owner = modules.get(head)
            if owner is None:
                return None
        out[owner].append(c)
    return out
