"""Helpers for the porting suite: the `torch` fixture (real torch, or the test is skipped), and running a
torch-style snippet with `torch` bound to ember or to real torch to compare what each returned or raised.
(No conftest.py here: tests/nn imports `arr` from its conftest by module name, which another conftest
collected in the same run would shadow.)"""
import contextlib

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


def run_script(source, module, **extra):
    """exec a script with `torch` resolved to `module` (and `extra` as more globals); returns its globals (the
    script's results)."""
    env = {"torch": module, "__name__": "__porting__", **extra}
    exec(compile(source, "<porting script>", "exec"), env)
    return env


class WeightSync:
    """The `sync(model)` a parity script calls right after building (and initialising) each model. The two
    libraries draw different random numbers, so a parity test runs the script with torch first, which records
    each model's initial state_dict, then with ember, which copies the recorded tensors in: both then train
    from the same start. Without a recording (ember alone) it does nothing."""

    def __init__(self):
        self.saved = []
        self.replay = None

    def __call__(self, model):
        sd = model.state_dict()
        if self.replay is None:
            self.saved.append({k: v.detach().numpy().copy() for k, v in sd.items()})
            return
        want = self.saved[self.replay]
        self.replay += 1
        assert list(want) == list(sd)
        lib = type(next(iter(sd.values()))).__module__.split(".")[0]
        lib = __import__(lib)
        with lib.no_grad():
            for k, v in sd.items():
                v.copy_(lib.from_numpy(want[k]))

    def start_replay(self):
        self.replay = 0


@contextlib.contextmanager
def torch_one_thread(torch):
    """Run real torch on one intra-op thread for a whole-program parity run: its spinning pool threads make a
    small training loop 10x slower on a busy 2-core machine (results do not depend on it)."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(before)


def run_both(run, torch):
    """(torch's results, ember's) of `run(lib, sync)` for a whole-program parity test: torch first on one thread,
    recording each model's initial weights (WeightSync), then ember from the same weights."""
    import ember
    sync = WeightSync()
    with torch_one_thread(torch):
        want = run(torch, sync)
    sync.start_replay()
    return want, run(ember, sync)
