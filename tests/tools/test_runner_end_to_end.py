"""The runner end to end on fixture projects generated into tmp_path."""
import json
import os
import re
import textwrap

import pytest

from runner_helpers import run_runner

SUMMARY = re.compile(r"^\d+ passed, \d+ failed, \d+ skipped$")

GOOD = """
import pytest

def test_one():
    pass

def test_two():
    pass

@pytest.mark.parity
def test_parity_runs():
    pass

def test_skipped():
    pytest.skip("not today")
"""

FLAKY = """
import os

MARK = os.path.join(os.path.dirname(os.path.abspath(__file__)), "flaky.marker")

def test_stable():
    pass

def test_flaky_once():
    if not os.path.exists(MARK):
        open(MARK, "w").close()
        raise AssertionError("first attempt fails")
"""

BROKEN = """
def test_passes():
    pass

def test_always_fails():
    assert 1 + 1 == 3
"""

IMPORT_ERROR = """
import ember_module_that_does_not_exist

def test_never_collected():
    pass
"""


def last_line(out):
    return out.stdout.rstrip("\n").splitlines()[-1]


def test_mixed_run_counts_retries_and_reports(project, tmp_path):
    root = project({
        "tests/core/test_good.py": GOOD,
        "tests/core/test_flaky.py": FLAKY,
        "tests/ops/test_broken.py": BROKEN,
        "tests/ops/test_import_error.py": IMPORT_ERROR,
    })
    out = run_runner(root, "-j", "2", "--timeout", "30")
    assert out.returncode == 1, out.stdout + out.stderr
    assert last_line(out) == "6 passed, 2 failed, 1 skipped"
    assert SUMMARY.match(last_line(out))
    live = [line for line in out.stdout.splitlines() if re.match(r"^\[\d+/4\] ", line)]
    assert len(live) == 4
    assert any("FLAKY  tests/core/test_flaky.py (2 passed, 0 failed, 0 skipped;" in line for line in live)
    assert any("FAILED tests/ops/test_import_error.py (0 passed, 1 failed, 0 skipped;" in line
               for line in live)
    assert "ModuleNotFoundError" in out.stdout  # the import error's output is shown
    flaky_block = out.stdout.rsplit("\nflaky tests (", 1)[1].split("\nfailed tests:")[0]
    assert "tests/core/test_flaky.py::test_flaky_once" in flaky_block
    failed_block = out.stdout.rsplit("\nfailed tests:", 1)[1]
    assert "tests/ops/test_broken.py::test_always_fails" in failed_block
    assert "tests/ops/test_import_error.py (collection error" in failed_block
    assert "parity tests: 1 selected, 1 not skipped" in out.stdout
    reports = os.listdir(tmp_path / "test-reports")
    assert {"tests.core.test_good.xml", "tests.ops.test_broken.xml",
            "tests.ops.test_broken.rerun.xml", ".gitignore"} <= set(reports)


def test_all_green_exit_zero_and_update_times(project, tmp_path):
    root = project({"tests/core/test_a.py": "def test_a():\n    pass\n",
                    "tests/nn/test_b.py": "def test_b():\n    pass\n"})
    out = run_runner(root, "--update-times", "-j", "2")
    assert out.returncode == 0, out.stdout + out.stderr
    assert last_line(out) == "2 passed, 0 failed, 0 skipped"
    times = json.loads((tmp_path / "times.json").read_text())
    assert set(times) == {"tests/core/test_a.py", "tests/nn/test_b.py"}
    assert all(v > 0 for v in times.values())


def test_marker_expression_is_passed_to_pytest(project):
    root = project({"tests/core/test_m.py": """
        import pytest

        @pytest.mark.slow
        def test_slow():
            pass

        def test_fast():
            pass
    """})
    out = run_runner(root, "-m", "not slow")
    assert out.returncode == 0 and last_line(out) == "1 passed, 0 failed, 0 skipped"


PARITY_SKIPPED = """
import pytest

@pytest.mark.parity
def test_against_torch():
    pytest.skip("torch not installed")

def test_plain():
    pass
"""


def test_require_parity(project):
    root = project({"tests/core/test_p.py": PARITY_SKIPPED})
    plain = run_runner(root)
    assert plain.returncode == 0 and last_line(plain) == "1 passed, 0 failed, 1 skipped"
    strict = run_runner(root, "--require-parity")
    assert strict.returncode == 1
    assert "--require-parity: all 1 selected parity tests were skipped" in strict.stdout
    assert last_line(strict) == "1 passed, 0 failed, 1 skipped"
    # no parity test selected at all: nothing to require
    none = run_runner(root, "--require-parity", "-m", "not parity")
    assert none.returncode == 0


def test_serial_file_runs_alone(project, tmp_path):
    log = tmp_path / "log.txt"
    body = """
        import os, time

        def test_record():
            start = time.time()
            time.sleep(0.4)
            with open({log!r}, "a") as fh:
                fh.write(f"{{os.path.basename(__file__)}} {{start}} {{time.time()}}\\n")
    """
    body = textwrap.dedent(body)
    serial = "import pytest\n\npytestmark = pytest.mark.serial\n" + body
    root = project({
        "tests/core/test_p1.py": body.format(log=str(log)),
        "tests/core/test_p2.py": body.format(log=str(log)),
        "tests/core/test_s.py": serial.format(log=str(log)),
        "tests/core/test_t1.py": body.format(log=str(log)),
    })
    dry = run_runner(root, "--dry-run")
    assert "tests/core/test_s.py [serial]" in dry.stdout
    out = run_runner(root, "-j", "3")
    assert out.returncode == 0, out.stdout
    spans = {}
    for line in log.read_text().splitlines():
        name, start, end = line.split()
        spans[name] = (float(start), float(end))
    s_start, s_end = spans.pop("test_s.py")
    for start, end in spans.values():
        assert end <= s_start or start >= s_end  # nothing overlaps the serial file


def test_dry_run_shards_partition_the_files(project, tmp_path):
    files = {f"tests/{g}/test_{i}.py": "def test_x():\n    pass\n"
             for g in ("core", "ops", "nn") for i in range(4)}
    root = project(files)
    (tmp_path / "times.json").write_text(json.dumps({"tests/core/test_0.py": 30.0,
                                                     "tests/ops/test_1.py": 20.0}))

    def listed(*args):
        out = run_runner(root, "--dry-run", *args)
        assert out.returncode == 0, out.stderr
        return [line.split()[0] for line in out.stdout.splitlines() if line.startswith("  ")]

    shards = [listed("--shard", str(i), "3") for i in (1, 2, 3)]
    flat = [f for s in shards for f in s]
    assert sorted(flat) == sorted(files)
    assert "tests/core/test_0.py" in shards[0] and "tests/ops/test_1.py" in shards[1]
    assert listed()[-2:] == ["tests/core/test_0.py", "tests/ops/test_1.py"]  # longest first, unrecorded before


def test_env_var_merges_with_flags(project):
    root = project({f"tests/{g}/test_{g}.py": "def test_x():\n    pass\n"
                    for g in ("core", "ops", "autograd", "nn")})
    out = run_runner(root, "--dry-run", "--ops", env={"TESTS_TO_INCLUDE": "autograd nn/test_nn"})
    listed = [line.strip() for line in out.stdout.splitlines() if line.startswith("  ")]
    assert listed == ["tests/autograd/test_autograd.py", "tests/nn/test_nn.py", "tests/ops/test_ops.py"]


@pytest.mark.parametrize("args,message", [
    (["--groups", "nope"], "unknown test group 'nope'"),
    (["--shard", "0", "2"], "--shard 0 2"),
    (["--shard", "3", "2"], "--shard 3 2"),
    (["--shard", "1", "0"], "--shard 1 0"),
    (["-j", "0"], "-j must be at least 1"),
    (["--shard", "x", "2"], "invalid int value"),
])
def test_bad_input_is_one_line_and_exit_2(project, args, message):
    root = project({"tests/core/test_a.py": "def test_a():\n    pass\n"})
    out = run_runner(root, *args)
    assert out.returncode == 2
    assert out.stdout == ""
    lines = out.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("run_test.py: error: ") and message in lines[0]
