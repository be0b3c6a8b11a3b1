"""Helpers for the porting suite: the `torch` fixture (real torch, or the test is skipped), and running a
torch-style snippet with `torch` bound to ember or to real torch to compare what each returned or raised.
(No conftest.py here: tests/nn imports `arr` from its conftest by module name, which another conftest
collected in the same run would shadow.)"""
import pytest


@pytest.fixture(name="torch")
def torch_fixture():
    return pytest.importorskip("torch")


def outcome(fn):
    """("ok", value) or ("raise", exception type name, message) of calling fn()."""
    try:
        return ("ok", fn())
    except Exception as e:     # noqa: BLE001  (the outcome is what is compared)
        return ("raise", type(e).__name__, str(e))


def run_script(source, module):
    """exec a script with `torch` resolved to `module`; returns its globals (the script's results)."""
    env = {"torch": module, "__name__": "__porting__"}
    exec(compile(source, "<porting script>", "exec"), env)
    return env
