"""Timeouts and crashes: a hung test, a hung file (process group killed), a crashing file."""
from runner_helpers import run_runner


def last_line(out):
    return out.stdout.rstrip("\n").splitlines()[-1]


def test_per_test_timeout_fails_the_test_and_the_file_goes_on(project):
    root = project({"tests/core/test_hang.py": """
        import time

        def test_hangs():
            time.sleep(60)

        def test_after_the_hang():
            pass
    """})
    out = run_runner(root, "--timeout", "1", "--no-retry")
    assert out.returncode == 1
    assert "Timeout" in out.stdout
    assert last_line(out) == "1 passed, 1 failed, 0 skipped"


def test_whole_file_timeout_kills_the_group_and_the_run_goes_on(project):
    root = project({
        "tests/core/test_hang.py": """
            import subprocess, sys, time

            def test_hangs_with_a_child():
                subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
                time.sleep(60)
        """,
        "tests/core/test_zfine.py": "def test_fine():\n    pass\n",
    })
    # generous file timeout: a loaded machine can take seconds just to start pytest
    out = run_runner(root, "--timeout", "0", "--file-timeout", "8", "-j", "2", timeout=60)
    assert out.returncode == 1
    assert "tests/core/test_hang.py (timed out after 8s" in out.stdout
    assert "PASSED tests/core/test_zfine.py" in out.stdout
    assert last_line(out) == "1 passed, 1 failed, 0 skipped"


def test_crash_then_clean_rerun_is_flaky_and_twice_is_failed(project):
    root = project({
        "tests/core/test_crash_once.py": """
            import os

            MARK = os.path.join(os.path.dirname(os.path.abspath(__file__)), "crash.marker")

            def test_crashes_first_time():
                if not os.path.exists(MARK):
                    open(MARK, "w").close()
                    os._exit(3)
        """,
        "tests/core/test_crash_always.py": "import os\n\ndef test_x():\n    os._exit(4)\n",
    })
    out = run_runner(root, "-j", "2")
    assert out.returncode == 1
    assert "tests/core/test_crash_once.py (whole file; first run: crashed (exit code 3))" in out.stdout
    assert "tests/core/test_crash_always.py (crashed (exit code 4))" in out.stdout
    assert last_line(out) == "1 passed, 1 failed, 0 skipped"
