"""ember-run (torchrun's flags): the ranks' environment, output prefixes, restarts, the failed rank's exit code."""
import pytest

from . import _launch

pytestmark = [pytest.mark.serial]


def test_launcher_environment(tmp_path):
    script = tmp_path / "env.py"
    script.write_text("import os\nprint('ENV', *[os.environ[k] for k in ('RANK', 'LOCAL_RANK', 'WORLD_SIZE', "
                      "'LOCAL_WORLD_SIZE', 'GROUP_RANK', 'ROLE_RANK', 'ROLE_NAME', 'GROUP_WORLD_SIZE', "
                      "'ROLE_WORLD_SIZE', 'OMP_NUM_THREADS', 'TORCHELASTIC_RESTART_COUNT', 'MASTER_ADDR')])\n")
    r = _launch.ember_run(["--nproc-per-node", 2, script])
    assert r.returncode == 0, r.stderr
    assert "[rank0]:ENV 0 0 2 2 0 0 default 1 2 1 0 127.0.0.1" in r.stdout
    assert "[rank1]:ENV 1 1 2 2 0 1 default 1 2 1 0 127.0.0.1" in r.stdout


def test_restarts_then_exit_code(tmp_path):
    script = tmp_path / "flaky.py"
    script.write_text("import os, sys\n"
                      "attempt = int(os.environ['TORCHELASTIC_RESTART_COUNT'])\n"
                      "print('attempt', attempt, 'max', os.environ['TORCHELASTIC_MAX_RESTARTS'])\n"
                      "sys.exit(3 if attempt == 0 and os.environ['RANK'] == '1' else 0)\n")
    r = _launch.ember_run(["--nproc-per-node", 2, "--max-restarts", 1, script])
    assert r.returncode == 0, r.stderr
    assert "[rank1]:attempt 1 max 1" in r.stdout
    assert "rank 1 failed with exit code 3; restarting the job (1/1)" in r.stderr
    r = _launch.ember_run(["--nproc-per-node", 2, script])
    assert r.returncode == 3
    assert "rank 1 failed with exit code 3; job ended (restarts used: 0/0)" in r.stderr


def test_module_flag_and_script_arguments(tmp_path):
    (tmp_path / "mymod.py").write_text("import sys\nprint('ARGS', sys.argv[1:])\n")
    r = _launch.ember_run(["--nproc_per_node", 1, "-m", "mymod", "--lr", "0.1"], PYTHONPATH=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "[rank0]:ARGS ['--lr', '0.1']" in r.stdout
