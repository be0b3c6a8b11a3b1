"""Short files sharing one pytest process: the plan, per-file results, and the fallback on a broken batch."""
import json
import re

from runner_helpers import run_runner
from testrunner import batching
from testrunner.reporting import Case


def test_plan_packs_short_files_in_order_and_keeps_others_alone():
    times = {"a": 3.0, "b": 3.0, "c": 3.0, "d": 50.0, "e": 3.0}
    # a, b, c each bring 1 s of tests beyond start-up; target 2 s closes the batch after b
    units = batching.plan(["d", "a", "b", "s", "c", "new", "e"], {"s"}, {**times, "s": 1.0}, 2.0)
    # long, serial and unknown files run alone; a batch stands where its first file stood
    assert units == [["d"], ["a", "b"], ["s"], ["c", "e"], ["new"]]
    assert batching.plan(["a", "b"], set(), times, 0) == [["a"], ["b"]]      # 0 turns batching off


def test_plan_never_loses_or_duplicates_a_file():
    files = [f"f{i}" for i in range(30)]
    times = {f: 2.0 + (i % 5) for i, f in enumerate(files) if i % 7}
    units = batching.plan(files, {"f3"}, times, 6.0)
    flat = [f for u in units for f in u]
    assert sorted(flat) == sorted(files) and len(flat) == len(files)
    # a serial file is a barrier: what came before it still runs before it
    cut = flat.index("f3")
    assert set(flat[:cut]) == set(files[:3])
    assert any(len(u) > 1 for u in units)


def test_split_attributes_cases_and_refuses_strays():
    cases = [Case("tests/a/test_x.py::test_1", "passed"), Case("tests/b/test_y.py::T::test_2", "failed"),
             Case("tests.b.test_y", "failed", collected=False)]
    got = batching.split(["tests/a/test_x.py", "tests/b/test_y.py"], cases)
    assert [c.nodeid for c in got["tests/a/test_x.py"]] == ["tests/a/test_x.py::test_1"]
    assert len(got["tests/b/test_y.py"]) == 2
    assert batching.split(["tests/a/test_x.py"], cases) is None


def _times(tmp_path, files, seconds=2.5):
    (tmp_path / "times.json").write_text(json.dumps({f: seconds for f in files}))


def test_batched_files_report_per_file_with_retry(project, tmp_path):
    files = {
        "tests/core/test_a.py": "def test_a1():\n    pass\n\ndef test_a2():\n    pass\n",
        "tests/core/test_b.py": "def test_b():\n    assert 1 + 1 == 3\n",
        "tests/core/test_c.py": "import pytest\n\ndef test_c():\n    pytest.skip('no')\n",
    }
    root = project(files)
    _times(tmp_path, files)
    out = run_runner(root, "-j", "1", "--batch-seconds", "100")
    assert out.returncode == 1, out.stdout + out.stderr
    assert out.stdout.rstrip().splitlines()[-1] == "2 passed, 1 failed, 1 skipped"
    live = [line for line in out.stdout.splitlines() if re.match(r"^\[\d+/3\] ", line)]
    assert any("PASSED tests/core/test_a.py (2 passed, 0 failed, 0 skipped" in line for line in live)
    assert any("FAILED tests/core/test_b.py (0 passed, 1 failed, 0 skipped" in line for line in live)
    assert "tests/core/test_b.py::test_b" in out.stdout.rsplit("failed tests:", 1)[1]
    reports = {p.name for p in (tmp_path / "test-reports").iterdir()}
    assert "tests.core.test_a.batch.xml" in reports or "tests.core.test_b.batch.xml" in reports \
        or "tests.core.test_c.batch.xml" in reports                       # they did share a process
    assert "tests.core.test_b.rerun.xml" in reports                       # the failure was retried alone


def test_broken_batch_falls_back_to_one_process_per_file(project, tmp_path):
    files = {
        "tests/core/test_a.py": "def test_a():\n    pass\n",
        "tests/core/test_bad.py": "import module_that_does_not_exist\n\ndef test_x():\n    pass\n",
        "tests/core/test_c.py": "def test_c():\n    pass\n",
    }
    root = project(files)
    _times(tmp_path, files)
    out = run_runner(root, "-j", "1", "--batch-seconds", "100")
    assert out.returncode == 1, out.stdout + out.stderr
    assert out.stdout.rstrip().splitlines()[-1] == "2 passed, 1 failed, 0 skipped"
    assert re.search(r"FAILED tests/core/test_bad.py \(0 passed, 1 failed", out.stdout)
    assert re.search(r"PASSED tests/core/test_a.py \(1 passed", out.stdout)
    assert re.search(r"PASSED tests/core/test_c.py \(1 passed", out.stdout)


def test_negative_batch_seconds_is_bad_input(project):
    root = project({"tests/core/test_a.py": "def test_a():\n    pass\n"})
    out = run_runner(root, "--batch-seconds", "-1")
    assert out.returncode == 2
    assert "--batch-seconds" in out.stderr
