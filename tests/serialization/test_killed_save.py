"""A save killed with SIGKILL leaves the old checkpoint intact and its temporary file behind; the
next save into the folder removes it, but never the temporary file of a writer still alive.
Saves fsync the file before the rename and the folder after it."""
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

import ember
from ember.serialization import _atomic
from ember.utils import safetensors as sft

pytestmark = pytest.mark.skipif(_atomic.fcntl is None or not hasattr(signal, "SIGKILL"),
                                reason="needs POSIX signals and fcntl locks")

SRC = str(Path(ember.__file__).resolve().parents[1])

# a save that stops half-way through writing (after its first bytes reached the file)
_STALLED_SAVE = textwrap.dedent("""
    import sys, time
    import ember
    from ember.serialization import _serialization as S
    real = S._write_zip
    def stalled(stream, *args, **kwargs):
        stream.write(b"PK\\x03\\x04 half a checkpoint")
        stream.flush()
        print("writing", flush=True)
        time.sleep(120)
    S._write_zip = stalled
    ember.save({"w": ember.ones(10)}, sys.argv[1])
""")


def _temporaries(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


def _start_stalled_save(path: Path) -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=SRC + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.Popen([sys.executable, "-c", _STALLED_SAVE, str(path)],
                            stdout=subprocess.PIPE, env=env, text=True)
    line = proc.stdout.readline()
    assert line.strip() == "writing", line
    return proc


def _kill(proc: subprocess.Popen) -> None:
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    proc.stdout.close()


def test_killed_save_then_clean_save(tmp_path):
    path = tmp_path / "model.pt"
    ember.save({"w": ember.arange(4.0)}, path)
    proc = _start_stalled_save(path)
    _kill(proc)
    debris = _temporaries(tmp_path)
    assert len(debris) == 1 and f".{proc.pid}." in debris[0]
    assert ember.load(path)["w"].tolist() == [0.0, 1.0, 2.0, 3.0]     # the old file is intact
    ember.save({"w": ember.arange(3.0)}, path)
    assert _temporaries(tmp_path) == []
    assert ember.load(path)["w"].tolist() == [0.0, 1.0, 2.0]


def test_killed_real_save_midway(tmp_path):
    """No patching: kill a 64 MB save as soon as its temporary file has appeared."""
    path = tmp_path / "big.pt"
    ember.save({"w": ember.zeros(3)}, path)
    env = dict(os.environ, PYTHONPATH=SRC + os.pathsep + os.environ.get("PYTHONPATH", ""))
    code = "import sys, ember; ember.save({'w': ember.ones(1 << 24)}, sys.argv[1])"
    proc = subprocess.Popen([sys.executable, "-c", code, str(path)], env=env)
    deadline = time.monotonic() + 60
    while not _temporaries(tmp_path) and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.001)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    w = ember.load(path)["w"]                  # the old file or the finished new one, never half
    assert w.shape in ((3,), (1 << 24,))
    ember.save({"w": ember.arange(2.0)}, path)
    assert _temporaries(tmp_path) == []
    assert ember.load(path)["w"].tolist() == [0.0, 1.0]


def test_a_live_writers_file_is_left_alone(tmp_path):
    proc = _start_stalled_save(tmp_path / "a.pt")
    try:
        live = _temporaries(tmp_path)
        assert len(live) == 1
        ember.save({"x": ember.ones(2)}, tmp_path / "b.pt")
        sft.save_file({"x": ember.ones(2)}, tmp_path / "c.safetensors")
        assert _temporaries(tmp_path) == live
    finally:
        _kill(proc)
    sft.save_file({"x": ember.ones(2)}, tmp_path / "c.safetensors")    # safetensors cleans too
    assert _temporaries(tmp_path) == []


def _dead_pid() -> int:
    p = subprocess.Popen([sys.executable, "-c", "pass"])
    p.wait()
    return p.pid


def test_only_dead_unlocked_temporaries_are_removed(tmp_path):
    dead, alive = _dead_pid(), os.getpid()
    names = {
        f".m.pt.{dead}.0123456789ab.tmp": False,      # dead writer: removed
        f".m.pt.{alive}.0123456789ab.tmp": True,      # live pid (this process): kept
        ".m.pt.0123456789ab.tmp": True,               # no pid (older ember): kept
        f"m.pt.{dead}.0123456789ab.tmp": True,        # not hidden: not ours
        f".m.pt.{dead}.0123456789ab.tmp.keep": True,
    }
    for n in names:
        (tmp_path / n).write_bytes(b"x")
    os.symlink(tmp_path / "elsewhere", tmp_path / f".l.pt.{dead}.0123456789ab.tmp")
    (tmp_path / "elsewhere").write_bytes(b"y")
    locked = tmp_path / f".k.pt.{dead}.ba9876543210.tmp"      # dead pid, but the lock is held
    locked.write_bytes(b"z")
    fd = os.open(locked, os.O_RDONLY)
    _atomic.fcntl.flock(fd, _atomic.fcntl.LOCK_EX)
    try:
        removed = _atomic.remove_stale_temporaries(str(tmp_path))
    finally:
        os.close(fd)
    assert [Path(r).name for r in removed] == [f".m.pt.{dead}.0123456789ab.tmp"]
    for n, kept in names.items():
        assert (tmp_path / n).exists() == kept, n
    assert locked.exists() and (tmp_path / "elsewhere").exists()


def test_save_fsyncs_file_then_folder(tmp_path, monkeypatch):
    events = []
    real_fsync, real_replace = os.fsync, os.replace

    def fsync(fd):
        events.append(("fsync", os.path.isdir(f"/proc/self/fd/{fd}") if
                       os.path.exists("/proc/self/fd") else None))
        real_fsync(fd)

    def replace(a, b):
        events.append(("replace", None))
        real_replace(a, b)
    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(os, "replace", replace)
    ember.save({"x": ember.ones(3)}, tmp_path / "x.pt")
    kinds = [e[0] for e in events]
    assert kinds == ["fsync", "replace", "fsync"]
    if events[0][1] is not None:
        assert events[0][1] is False and events[2][1] is True     # the file, then its folder


def test_failed_save_removes_its_temporary(tmp_path, monkeypatch):
    from ember.serialization import _serialization as S
    path = tmp_path / "x.pt"
    ember.save({"x": ember.ones(2)}, path)

    def failing(stream, *args, **kwargs):
        stream.write(b"PK\x03\x04 half")
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(S, "_write_zip", failing)
    with pytest.raises(OSError, match="No space"):
        ember.save({"x": ember.zeros(2)}, path)
    assert _temporaries(tmp_path) == []
    np.testing.assert_array_equal(ember.load(path)["x"].numpy(), [1.0, 1.0])
