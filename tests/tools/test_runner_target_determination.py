"""--changed-first ordering on a throwaway git repository."""
import os
import subprocess

import pytest

from runner_helpers import run_runner, write_project
from testrunner import target_determination as td

GIT_ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.invalid"}


def git(root, *args):
    env = dict(os.environ, **GIT_ENV)
    subprocess.run(["git", *args], cwd=root, check=True, capture_output=True, env=env)


@pytest.fixture
def repo(tmp_path):
    root = write_project(tmp_path, {
        "src/ember/__init__.py": "",
        "src/ember/foo.py": "X = 1\n",
        "src/ember/bar.py": "Y = 2\n",
        "src/ember/nn/__init__.py": "",
        "src/ember/nn/functional.py": "Z = 3\n",
        "tests/core/test_alpha.py": "def test_a():\n    pass\n",
        "tests/core/test_foo.py": "def test_f():\n    pass\n",
        "tests/core/test_uses_bar.py": "from ember import bar\n\ndef test_b():\n    pass\n",
        "tests/nn/test_f.py": "import ember.nn.functional as F\n\ndef test_n():\n    pass\n",
        "tests/ops/test_zeta.py": "def test_z():\n    pass\n",
    })
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "base")
    git(root, "checkout", "-q", "-b", "work")
    return root


def order(root, base="main"):
    files = sorted(["tests/core/test_alpha.py", "tests/core/test_foo.py",
                    "tests/core/test_uses_bar.py", "tests/nn/test_f.py", "tests/ops/test_zeta.py"])
    return td.order_changed_first(root, files, td.changed_files(root, base))


def test_nothing_changed_keeps_order(repo):
    assert order(repo)[0] == "tests/core/test_alpha.py"


def test_import_heuristic_committed_change(repo):
    with open(os.path.join(repo, "src/ember/bar.py"), "a") as fh:
        fh.write("W = 4\n")
    git(repo, "commit", "-qam", "change bar")
    assert order(repo)[0] == "tests/core/test_uses_bar.py"


def test_mirror_heuristic_and_changed_test_first(repo):
    with open(os.path.join(repo, "src/ember/foo.py"), "a") as fh:  # uncommitted
        fh.write("V = 5\n")
    with open(os.path.join(repo, "tests/ops/test_zeta.py"), "a") as fh:
        fh.write("\ndef test_more():\n    pass\n")
    got = order(repo)
    assert got[:2] == ["tests/ops/test_zeta.py", "tests/core/test_foo.py"]
    assert got[2:] == ["tests/core/test_alpha.py", "tests/core/test_uses_bar.py", "tests/nn/test_f.py"]


def test_package_module_import(repo):
    with open(os.path.join(repo, "src/ember/nn/functional.py"), "a") as fh:
        fh.write("U = 6\n")
    assert order(repo)[0] == "tests/nn/test_f.py"


def test_imported_modules_parser():
    text = "import os, ember.a as A\nfrom ember.b import (\n    c,\n    d as e,\n)\nfrom . import rel\n"
    assert td.imported_modules(text) == {"os", "ember.a", "ember.b", "ember.b.c", "ember.b.d"}


def test_cli_dry_run_changed_first_and_bad_base(repo):
    with open(os.path.join(repo, "src/ember/bar.py"), "a") as fh:
        fh.write("W = 4\n")
    out = run_runner(repo, "--dry-run", "--changed-first")
    assert out.returncode == 0, out.stderr
    listed = [line.strip() for line in out.stdout.splitlines() if line.startswith("  ")]
    assert listed[0] == "tests/core/test_uses_bar.py"
    bad = run_runner(repo, "--dry-run", "--changed-first", "--base", "no-such-ref")
    assert bad.returncode == 0 and "--changed-first ignored" in bad.stderr
