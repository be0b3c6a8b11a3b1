"""Running test files: one pytest subprocess per file (or per batch of short files, see
:mod:`testrunner.batching`), timeouts, the single retry, scheduling.

Each file runs as ``sys.executable -m pytest FILE -q -p no:cacheprovider
-p testrunner.pytest_plugin --rootdir=ROOT --junitxml=REPORT [--timeout=T] [-m EXPR]`` in its own process
group (``start_new_session``), with the project root as working directory and this ``tools/``
directory on ``PYTHONPATH`` (for the plugin).

* Per-test timeout: pytest-timeout's ``--timeout`` (a hung test fails, the file goes on).
* Whole-file timeout: if the process is still running after ``file_timeout`` seconds, its
  whole process group is killed with SIGKILL and the file counts as failed ("timed out").
* A process that dies (signal, pytest internal/usage error, missing XML) counts as failed
  ("crashed") with its output shown; the run goes on with the next file.

Retry (once, in a fresh process):

* failed tests with known node ids are re-run by node id; those that pass are *flaky*
  (counted as passed, listed), those that fail again stay failed;
* a file that crashed or had collection errors is re-run whole; if that run is clean the file
  is listed as flaky, otherwise the first run's failure stands;
* a file that hit the whole-file timeout is not retried (it would cost the timeout again).

Scheduling keeps the given order: non-serial files are handed to ``jobs`` worker threads,
each driving one pytest subprocess; a serial file waits until every running file finished,
then runs alone, and the parallel files after it start only once it finished.
"""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from typing import Callable

from . import batching
from .reporting import PARITY, Case, FileResult, parse_junit

TOOLS_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OK_EXIT_CODES = (0, 1, 5)  # all passed / some failed / none collected


@dataclass
class Options:
    root: str
    reports_dir: str
    timeout: float = 300.0  # per test (pytest-timeout); 0 disables
    file_timeout: float = 1200.0  # per pytest process; 0 disables
    marker_expr: str | None = None
    retry: bool = True
    jobs: int = 1
    batch_seconds: float = 0.0  # pack short files into shared processes up to this much recorded time
    extra_pytest_args: list[str] = field(default_factory=list)


@dataclass
class Run:
    """One pytest process."""

    cases: list[Case] | None  # None: no readable XML
    returncode: int | None
    timed_out: bool
    output: str
    seconds: float

    @property
    def error(self) -> str | None:
        """File-level problem of this run, or None when it completed normally."""
        if self.timed_out:
            return f"timed out after {self.seconds:.0f}s (process group killed)"
        collect_errors = [c for c in self.cases or [] if not c.collected and c.outcome == "failed"]
        if collect_errors:
            return f"collection error (exit code {self.returncode})"
        if self.returncode not in OK_EXIT_CODES:
            return f"crashed (exit code {self.returncode})"
        if self.cases is None:
            return f"no JUnit XML written (exit code {self.returncode})"
        return None

    def failed_ids(self) -> list[str]:
        """Node ids of failed tests (collection errors have none and are left out)."""
        return [c.nodeid for c in self.cases or [] if c.outcome == "failed" and c.collected]


def have_pytest_timeout() -> bool:
    import importlib.util

    return importlib.util.find_spec("pytest_timeout") is not None


def report_path(reports_dir: str, path: str, suffix: str = "") -> str:
    name = path.replace("/", ".").removesuffix(".py")
    return os.path.join(reports_dir, f"{name}{suffix}.xml")


def pytest_command(targets: list[str], xml_path: str, opts: Options) -> list[str]:
    cmd = [sys.executable, "-m", "pytest", *targets, "-q", "-p", "no:cacheprovider",
           "-p", "testrunner.pytest_plugin", f"--rootdir={opts.root}", f"--junitxml={xml_path}"]
    if opts.timeout and have_pytest_timeout():
        cmd.append(f"--timeout={opts.timeout:g}")
    if opts.marker_expr:
        cmd += ["-m", opts.marker_expr]
    cmd += opts.extra_pytest_args
    return cmd


_LIVE: set[subprocess.Popen] = set()  # running pytest processes, for kill_all()
_LIVE_LOCK = threading.Lock()
_STOPPING = threading.Event()


def _kill_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def kill_all() -> None:
    """Kill every running pytest process group and start no new one (used on Ctrl-C)."""
    _STOPPING.set()
    with _LIVE_LOCK:
        for proc in list(_LIVE):
            _kill_group(proc)


def run_pytest(targets: list[str], xml_path: str, opts: Options) -> Run:
    """Run pytest on *targets* in a new process group; kill the group on the file timeout."""
    if os.path.exists(xml_path):
        os.remove(xml_path)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (TOOLS_DIR, env.get("PYTHONPATH")) if p)
    start = time.monotonic()
    with _LIVE_LOCK:
        if _STOPPING.is_set():
            raise KeyboardInterrupt
        proc = subprocess.Popen(
            pytest_command(targets, xml_path, opts), cwd=opts.root, env=env,
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        _LIVE.add(proc)
    timed_out = False
    try:
        out, _ = proc.communicate(timeout=opts.file_timeout or None)
    except subprocess.TimeoutExpired:
        timed_out = True
        _kill_group(proc)
        out, _ = proc.communicate()
    finally:
        with _LIVE_LOCK:
            _LIVE.discard(proc)
    seconds = time.monotonic() - start
    text = out.decode("utf-8", errors="replace")
    if timed_out:
        text += f"\n[run_test] file timeout: killed after {opts.file_timeout:g}s\n"
    return Run(parse_junit(xml_path), proc.returncode, timed_out, text, seconds)


def _count(result: FileResult, cases: list[Case]) -> None:
    for c in cases:
        setattr(result, c.outcome, getattr(result, c.outcome) + 1)
        if PARITY in c.markers:
            result.parity_selected += 1
            result.parity_ran += c.outcome != "skipped"


def run_file(path: str, opts: Options) -> FileResult:
    """Run one test file (with its single retry) and fold everything into a FileResult."""
    first = run_pytest([path], report_path(opts.reports_dir, path), opts)
    result = FileResult(path, seconds=first.seconds)
    retry_xml = report_path(opts.reports_dir, path, ".rerun")
    error = first.error

    if error is not None:
        retry = None
        if opts.retry and not first.timed_out:
            retry = run_pytest([path], retry_xml, opts)
            if retry.error is None and not retry.failed_ids():
                _count(result, retry.cases or [])
                result.flaky.append(f"{path} (whole file; first run: {error})")
                return result
        _count(result, first.cases or [])
        result.error = error
        result.failures = first.failed_ids() + [f"{path} ({error})"]
        if result.failed == 0:
            result.failed += 1  # crash/timeout without any failed case: one synthetic failure
        result.output = first.output
        if retry is not None:
            result.output += f"\n[run_test] retry of the whole file: {retry.error or 'failed again'}\n"
        return result

    _count(result, first.cases or [])
    return _retry_failed(result, first.failed_ids(), first.output, path, opts)


def _retry_failed(result: FileResult, failed: list[str], output: str, path: str, opts: Options) -> FileResult:
    """Re-run *failed* node ids of *path* once; those that pass are flaky, the rest stay failed."""
    if not failed:
        return result
    if not opts.retry:
        result.failures = failed
        result.output = output
        return result
    retry = run_pytest(failed, report_path(opts.reports_dir, path, ".rerun"), opts)
    again = {c.nodeid: c.outcome for c in retry.cases or []}
    for nodeid in failed:
        if retry.error is None and again.get(nodeid) == "passed":
            result.flaky.append(nodeid)
            result.failed -= 1
            result.passed += 1
        else:
            result.failures.append(nodeid)
    if result.failures:
        result.output = output + "\n[run_test] retry of the failed tests:\n" + retry.output
    return result


def run_batch(paths: list[str], opts: Options) -> list[FileResult]:
    """Run several files in one pytest process; results per file (see :mod:`testrunner.batching`)."""
    if len(paths) == 1:
        return [run_file(paths[0], opts)]
    first = run_pytest(paths, report_path(opts.reports_dir, paths[0], ".batch"), opts)
    per_file = batching.split(paths, first.cases) if first.error is None and first.cases is not None else None
    if per_file is None:  # a crash, timeout or stray case: run every file alone for exact attribution
        return [run_file(p, opts) for p in paths]
    results = []
    for path in paths:
        cases = per_file[path]
        # estimated duration alone, so the times file keeps one meaning whether a file was batched or not
        result = FileResult(path, seconds=batching.STARTUP_SECONDS + sum(c.seconds for c in cases))
        _count(result, cases)
        failed = [c.nodeid for c in cases if c.outcome == "failed" and c.collected]
        results.append(_retry_failed(result, failed, first.output, path, opts))
    return results


def run_all(
    files: list[str],
    serial: set[str],
    opts: Options,
    on_done: Callable[[FileResult], None],
    times: dict[str, float] | None = None,
) -> list[FileResult]:
    """Run *files* in order (see module docstring); call *on_done* as each file finishes.

    With ``opts.batch_seconds`` and recorded *times*, short files share processes
    (:func:`testrunner.batching.plan`)."""
    os.makedirs(opts.reports_dir, exist_ok=True)
    lock = threading.Lock()
    results: dict[str, FileResult] = {}

    def task(paths: list[str]) -> None:
        if _STOPPING.is_set():
            return
        try:
            done = run_batch(paths, opts)
        except KeyboardInterrupt:
            return
        except Exception as exc:  # the runner itself broke on these files: report, go on
            done = [FileResult(p, failed=1, error=f"runner error: {exc!r}", failures=[f"{p} (runner error)"])
                    for p in paths]
        with lock:
            for res in done:
                results[res.path] = res
                on_done(res)

    pool = ThreadPoolExecutor(max_workers=max(1, opts.jobs))
    try:
        pending = []
        for unit in batching.plan(files, serial, times or {}, opts.batch_seconds):
            if unit[0] in serial:
                wait(pending)
                pending = []
                pool.submit(task, unit).result()
            else:
                pending.append(pool.submit(task, unit))
        wait(pending)
    except BaseException:  # Ctrl-C: our children live in their own sessions, kill them
        kill_all()
        pool.shutdown(wait=True, cancel_futures=True)
        raise
    pool.shutdown(wait=True)
    return [results[f] for f in files if f in results]
