"""Crash-safe file replacement for checkpoints (what torch.save does not do: torch writes the
target in place); used by ``ember.save`` and ``ember.utils.safetensors.save_file``.

A save writes a hidden temporary file ``.<name>.<pid>.<hex>.tmp`` in the target's folder, holds
an exclusive ``fcntl.flock`` on it while writing, fsyncs it, renames it over the target and
fsyncs the folder, so neither a crash nor a power loss can leave a truncated or empty file in
place of the old one.  A process killed mid-save (SIGKILL, OOM killer, a job's time limit)
leaves its temporary file behind; the next save into the same folder removes such files, but
only those whose writer is gone: the pid in the name is no longer alive *and* the lock is free
(the kernel drops a flock when its owner dies).  A live writer's file is never touched.
"""
from __future__ import annotations

import os
import re
import secrets
import stat

try:
    import fcntl
except ImportError:   # Windows: no advisory locks, stale files are left alone
    fcntl = None

__all__ = ["atomic_write", "remove_stale_temporaries", "TMP_PATTERN"]

# .<target name>.<writer pid>.<12 hex digits>.tmp
TMP_PATTERN = re.compile(r"^\..+\.(\d+)\.[0-9a-f]{12}\.tmp$")


def _pid_alive(pid: int) -> bool:
    if pid <= 0:
        return True        # not a pid we wrote: treat as owned
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError):
        return True        # exists (another user's process) or cannot tell
    return True


def remove_stale_temporaries(folder: str) -> list[str]:
    """Delete the temporary files of dead writers in ``folder``; returns the removed paths."""
    if fcntl is None:
        return []
    removed = []
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return removed
    for entry in entries:
        m = TMP_PATTERN.match(entry.name)
        if m is None or _pid_alive(int(m.group(1))):
            continue
        try:
            if not entry.is_file(follow_symlinks=False):
                continue
            fd = os.open(entry.path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        except OSError:
            continue
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                continue           # someone holds it: a live writer (pid reused or namespaced)
            # same file still under that name (not replaced between scandir and open)?
            if os.path.samestat(os.fstat(fd), os.lstat(entry.path)):
                os.unlink(entry.path)
                removed.append(entry.path)
        except OSError:
            pass
        finally:
            os.close(fd)
    return removed


def _fsync_folder(folder: str) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return                      # e.g. Windows: folders cannot be opened
    try:
        os.fsync(fd)
    except OSError:
        pass                        # some filesystems refuse fsync on a folder
    finally:
        os.close(fd)


def _drop_cached_pages(path: str) -> None:
    """Ask the kernel to drop the page cache of the file about to be replaced (its clean pages;
    the file itself is untouched). Its pages are then free for the new file's data: measured on
    this project's VM, writing 200 MB next to a cached old version took 0.07-2.1 s, after the
    drop 0.06-0.1 s (fresh pages are slow to get there; just-freed ones are not)."""
    if not hasattr(os, "posix_fadvise"):
        return
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return                      # no old file (or not readable): nothing to drop
    try:
        if stat.S_ISREG(os.fstat(fd).st_mode):
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    except OSError:
        pass
    finally:
        os.close(fd)


def atomic_write(path: str, write_fn) -> None:
    """Write through ``write_fn(stream)`` into a temporary file next to ``path`` and rename it
    over ``path`` only once everything was written and flushed to disk."""
    path = os.path.realpath(path)     # replace the target of a symlink, not the link
    folder = os.path.dirname(path) or "."
    remove_stale_temporaries(folder)
    _drop_cached_pages(path)
    tmp = os.path.join(folder, f".{os.path.basename(path)}.{os.getpid()}.{secrets.token_hex(6)}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o666)
    try:
        if fcntl is not None:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        with os.fdopen(fd, "wb", buffering=1 << 16, closefd=False) as f:
            write_fn(f)
            f.flush()
        os.fsync(fd)
        try:
            mode = stat.S_IMODE(os.stat(path).st_mode)
            os.chmod(tmp, mode)            # keep the permissions of the file being replaced
        except FileNotFoundError:
            pass
        os.replace(tmp, path)
        tmp = None
        _fsync_folder(folder)
    except BaseException:
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass
        raise
    finally:
        os.close(fd)
