"""Sharding: every file in exactly one shard, balanced makespan, deterministic, times file."""
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from testrunner import sharding

names = st.lists(st.integers(0, 999), unique=True, max_size=40).map(
    lambda ids: [f"tests/g{i % 7}/test_{i}.py" for i in ids])
durations = st.floats(min_value=0.0, max_value=500.0, allow_nan=False)


@st.composite
def workloads(draw):
    files = draw(names)
    timed = draw(st.lists(st.sampled_from(files), unique=True)) if files else []
    times = {f: draw(durations) for f in timed}
    times.update(draw(st.dictionaries(st.just("tests/gone/test_old.py"), durations)))
    n = draw(st.integers(min_value=1, max_value=8))
    return files, times, n


@settings(max_examples=200, deadline=None)
@given(workloads())
def test_every_file_in_exactly_one_shard_and_makespan_bounded(work):
    files, times, n = work
    shards = sharding.calculate_shards(files, n, times)
    assert len(shards) == n
    flat = [f for s in shards for f in s]
    assert sorted(flat) == sorted(files)  # nothing lost, nothing duplicated
    for s in shards:  # original order kept inside each shard
        assert s == [f for f in files if f in s]
    loads = [sum(times.get(f, 0.0) for f in s) for s in shards]
    known = [times[f] for f in files if f in times]
    if known:
        # list-scheduling bound: never worse than the average load plus the longest file
        assert max(loads) <= sum(known) / n + max(known) + 1e-6


@settings(max_examples=80, deadline=None)
@given(workloads())
def test_untimed_files_spread_evenly(work):
    files, times, n = work
    shards = sharding.calculate_shards(files, n, times)
    counts = [sum(1 for f in s if f not in times) for s in shards]
    assert max(counts) - min(counts) <= 1


@settings(max_examples=50, deadline=None)
@given(workloads())
def test_deterministic_and_order_independent(work):
    files, times, n = work
    a = sharding.calculate_shards(files, n, times)
    b = sharding.calculate_shards(list(reversed(files)), n, times)
    assert [sorted(s) for s in a] == [sorted(s) for s in b]


def test_balances_a_known_example():
    times = {"a": 5, "b": 3, "c": 4, "d": 5, "e": 3, "f": 4, "g": 1}
    shards = sharding.calculate_shards(list("abcdefg"), 3, times)
    loads = sorted(sum(times[f] for f in s) for s in shards)
    assert loads == [8, 8, 9]


def test_zero_shards_rejected():
    with pytest.raises(ValueError):
        sharding.calculate_shards(["a"], 0, {})


def test_times_file_roundtrip_merge_and_prune(tmp_path):
    path = tmp_path / "times.json"
    assert sharding.load_times(str(path)) == {}
    path.write_text("not json")
    assert sharding.load_times(str(path)) == {}
    old = {"tests/a.py": 1.0, "tests/gone.py": 5.0, "tests/b.py": 2.0}
    sharding.save_times(str(path), old, {"tests/b.py": 3.14159}, {"tests/a.py", "tests/b.py"})
    assert json.loads(path.read_text()) == {"tests/a.py": 1.0, "tests/b.py": 3.142}
