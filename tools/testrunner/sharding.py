"""``--shard I N``: split test files over N shards, balanced by recorded durations.

Recorded per-file durations live in ``tools/test_times.json`` (a flat ``{path: seconds}``
object, written by ``--update-times``).

Algorithm (deterministic, so every CI shard computes the same split on its own):

1. files *with* a record are placed longest first (ties by path) onto the shard with the
   smallest total so far (ties by lowest shard index) -- greedy "longest processing time",
   whose makespan is at most ``total / N + longest file``;
2. files *without* a record are dealt round-robin in path order starting at shard 1, so the
   shards' counts of unrecorded files differ by at most one.

Every file lands in exactly one shard. Inside a shard the files keep the order they were
given in (e.g. the ``--changed-first`` order).
"""
from __future__ import annotations

import json
import os


def load_times(path: str) -> dict[str, float]:
    try:
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {str(k): float(v) for k, v in data.items() if isinstance(v, (int, float)) and v >= 0}


def save_times(path: str, old: dict[str, float], new: dict[str, float], existing: set[str]) -> None:
    """Merge *new* durations into *old*, drop files that no longer exist, write sorted JSON."""
    merged = {k: v for k, v in old.items() if k in existing}
    merged.update({k: round(v, 3) for k, v in new.items()})
    with open(path, "w", encoding="utf-8") as fh:
        json.dump(dict(sorted(merged.items())), fh, indent=2)
        fh.write("\n")


def calculate_shards(files: list[str], n: int, times: dict[str, float]) -> list[list[str]]:
    """Split *files* into *n* lists (see module docstring)."""
    if n < 1:
        raise ValueError("number of shards must be >= 1")
    totals = [0.0] * n
    owner: dict[str, int] = {}
    timed = sorted((f for f in set(files) if f in times), key=lambda f: (-times[f], f))
    for f in timed:
        i = min(range(n), key=lambda k: (totals[k], k))
        owner[f] = i
        totals[i] += times[f]
    untimed = sorted(f for f in set(files) if f not in times)
    for j, f in enumerate(untimed):
        owner[f] = j % n
    shards: list[list[str]] = [[] for _ in range(n)]
    seen = set()
    for f in files:
        if f not in seen:
            seen.add(f)
            shards[owner[f]].append(f)
    return shards


def estimated_seconds(files: list[str], times: dict[str, float]) -> float:
    return sum(times.get(f, 0.0) for f in files)


def default_times_path(tools_dir: str) -> str:
    return os.path.join(tools_dir, "test_times.json")
