"""Shared helpers for the runner's own tests (imported by the test modules)."""
import os
import subprocess
import sys
import textwrap

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOOLS = os.path.join(REPO, "tools")
RUN_TEST = os.path.join(TOOLS, "run_test.py")
if TOOLS not in sys.path:
    sys.path.insert(0, TOOLS)

# Fixture projects skip hypothesis's pytest plugin: importing it costs about a second per
# pytest process, and these tests start dozens of them.
PYTEST_INI = """\
[pytest]
addopts = -p no:hypothesispytest
markers =
    parity: compares against real PyTorch
    slow: long-running test
    serial: must not run in parallel with other test files
"""


def write_project(root, files):
    """Create ``root/<path>`` for every ``{path: source}`` (dedented) plus a pytest.ini."""
    root = str(root)
    with open(os.path.join(root, "pytest.ini"), "w") as fh:
        fh.write(PYTEST_INI)
    for rel, text in files.items():
        path = os.path.join(root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as fh:
            fh.write(textwrap.dedent(text))
    return root


def run_runner(root, *args, env=None, timeout=120):
    """Run ``tools/run_test.py --root ROOT ARGS`` and return the CompletedProcess (text)."""
    full_env = dict(os.environ)
    full_env.pop("TESTS_TO_INCLUDE", None)
    full_env.update(env or {})
    return subprocess.run(
        [sys.executable, RUN_TEST, "--root", str(root), "--times-file",
         os.path.join(str(root), "times.json"), *args],
        capture_output=True, text=True, env=full_env, timeout=timeout,
    )

