#!/usr/bin/env python3
"""ember's test runner (modelled on PyTorch's ``test/run_test.py``).

Usage::

    python tools/run_test.py [selection] [ordering/sharding] [execution] [reporting]

Selection (default: every ``tests/**/test_*.py``)
  --groups G [G ...]     named groups, space/comma separated, repeatable; also ``--core``,
                         ``--ops``, ... one flag per group. Groups -> directories under tests/:
                           core = core schema dispatch codegen   ops = ops
                           autograd = autograd                   nn = nn optim data
                           serialization = serialization         tools = tools
                           compile = compile                     distributed = distributed
                         (an existing top-level tests/ directory name works as a group too;
                         anything else is an error, exit 2)
  --include PAT [...]    glob patterns (``core/test_tensor``, ``tests/ops/*``, ``*autograd*``)
  --exclude PAT [...]    glob patterns removed from the selection
  TESTS_TO_INCLUDE=...   env var, space/comma separated, merged with the flags (group names
                         add groups, other entries are include patterns)
  -m EXPR                marker expression passed to pytest (``"not slow"``, ``parity``)

Ordering and sharding
  --changed-first [--base REF]   files covering what changed since REF (default main) first
  --shard I N            run shard I of N (1-based), balanced by tools/test_times.json
  --update-times         after the run, record each file's duration into the times file

Execution
  -j N / --jobs N        parallel pytest processes (default: os.cpu_count()); files with a
                         module-level ``pytestmark`` containing ``mark.serial`` run alone
  --timeout S            per-test timeout via pytest-timeout (default 300, 0 = off)
  --file-timeout S       whole-file timeout, process group killed (default 1200, 0 = off)
  --no-retry             do not re-run failed tests once
  --batch-seconds S      short files (recorded durations) share one pytest process until the
                         batch holds S seconds of tests (default 20; 0 = one process per file);
                         results stay per file, a broken batch is re-run file by file

Reporting
  --require-parity       exit 1 if parity tests were selected but every one was skipped
  --dry-run              list the selected files (per shard) and exit
  --reports-dir DIR      JUnit XML directory (default: ROOT/test-reports, self-gitignored)

Run order: longest recorded duration first (unrecorded files first of all), then
``--changed-first`` if given; ``--dry-run`` shows that order.

Output: one live line per finished file, failure output, flaky and failed lists, and as the
very last line exactly ``N passed, N failed, N skipped``. Exit 0 only when nothing failed;
bad input (unknown group, shard out of range, bad flag) is a one-line error and exit 2.

Parity detection: the runner loads its own pytest plugin (``testrunner/pytest_plugin.py``)
into every pytest process; it writes each test's marker names into the JUnit XML as a
``markers`` property, and the runner counts the cases marked ``parity`` and how many of
them were not skipped.
"""
from __future__ import annotations

import argparse
import os
import sys
import time

TOOLS_DIR = os.path.dirname(os.path.abspath(__file__))
if TOOLS_DIR not in sys.path:
    sys.path.insert(0, TOOLS_DIR)

from testrunner import execution, reporting, selection, sharding, target_determination  # noqa: E402

DEFAULT_ROOT = os.path.dirname(TOOLS_DIR)


class OneLineParser(argparse.ArgumentParser):
    """argparse, but usage errors are a single line on stderr and exit code 2."""

    def error(self, message):
        sys.stderr.write(f"run_test.py: error: {message}\n")
        sys.exit(2)


def build_parser() -> argparse.ArgumentParser:
    p = OneLineParser(
        prog="run_test.py",
        description="Run ember's test suite: one pytest process per file.",
        epilog="See the module docstring of tools/run_test.py for details.",
    )
    sel = p.add_argument_group("selection")
    sel.add_argument("--groups", "-g", nargs="+", action="extend", default=[], metavar="G",
                     help="test groups: " + ", ".join(selection.GROUPS))
    for name in selection.GROUPS:
        sel.add_argument(f"--{name}", dest="group_flags", action="append_const", const=name,
                         help=f"same as --groups {name}")
    sel.add_argument("--include", "-i", nargs="+", action="extend", default=[], metavar="PAT",
                     help="glob patterns of test files to add (e.g. core/test_tensor, 'tests/ops/*')")
    sel.add_argument("--exclude", "-x", nargs="+", action="extend", default=[], metavar="PAT",
                     help="glob patterns of test files to drop")
    sel.add_argument("-m", dest="marker_expr", metavar="EXPR", help="pytest marker expression")
    order = p.add_argument_group("ordering and sharding")
    order.add_argument("--changed-first", action="store_true",
                       help="run files covering what changed since --base first")
    order.add_argument("--base", default="main", metavar="REF", help="git base (default: main)")
    order.add_argument("--shard", nargs=2, type=int, metavar=("I", "N"),
                       help="run shard I of N (1-based), balanced by recorded durations")
    order.add_argument("--update-times", action="store_true",
                       help="record this run's per-file durations into the times file")
    order.add_argument("--times-file", default=sharding.default_times_path(TOOLS_DIR),
                       metavar="PATH", help="default: tools/test_times.json")
    ex = p.add_argument_group("execution")
    ex.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1, metavar="N",
                    help="parallel pytest processes (default: number of cores)")
    ex.add_argument("--timeout", type=float, default=300.0, metavar="S",
                    help="per-test timeout via pytest-timeout (default 300; 0 = off)")
    ex.add_argument("--file-timeout", type=float, default=1200.0, metavar="S",
                    help="whole-file timeout, process group killed (default 1200; 0 = off)")
    ex.add_argument("--no-retry", action="store_true", help="do not re-run failed tests once")
    ex.add_argument("--batch-seconds", type=float, default=20.0, metavar="S",
                    help="pack short files into one pytest process up to S recorded seconds (0 = off)")
    rep = p.add_argument_group("reporting")
    rep.add_argument("--require-parity", action="store_true",
                     help="fail if parity tests were selected but all of them were skipped")
    rep.add_argument("--dry-run", action="store_true",
                     help="list the selected files per shard, in run order, and exit")
    rep.add_argument("--reports-dir", metavar="DIR",
                     help="JUnit XML directory (default: ROOT/test-reports, self-gitignored)")
    rep.add_argument("--root", default=DEFAULT_ROOT, help="project root (default: this checkout)")
    return p


def fail_input(message: str) -> int:
    sys.stderr.write(f"run_test.py: error: {message}\n")
    return 2


def prepare_reports_dir(path: str) -> None:
    os.makedirs(path, exist_ok=True)
    ignore = os.path.join(path, ".gitignore")
    if not os.path.exists(ignore):
        with open(ignore, "w") as fh:
            fh.write("# written by tools/run_test.py: JUnit reports are never committed\n*\n")


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    root = os.path.abspath(args.root)
    if args.batch_seconds < 0:
        return fail_input(f"--batch-seconds must be >= 0, got {args.batch_seconds:g}")
    if args.jobs < 1:
        return fail_input(f"-j must be at least 1, got {args.jobs}")
    if args.shard:
        index, count = args.shard
        if count < 1 or not 1 <= index <= count:
            return fail_input(f"--shard {index} {count}: need 1 <= I <= N and N >= 1")

    try:
        chosen = selection.select(
            root, groups=args.groups + (args.group_flags or []), include=args.include,
            exclude=args.exclude, env_value=os.environ.get(selection.ENV_VAR),
        )
    except selection.SelectionError as exc:
        return fail_input(str(exc))
    for pattern in chosen.unmatched_includes:
        print(f"run_test.py: warning: include pattern {pattern!r} matches no test file", file=sys.stderr)
    files = chosen.files

    # Run order: longest recorded first (files without a record count as longest), which
    # shortens the parallel makespan; --changed-first then stably moves relevant files ahead.
    times = sharding.load_times(args.times_file)
    files = sorted(files, key=lambda f: -times.get(f, float("inf")))

    if args.changed_first:
        try:
            changed = target_determination.changed_files(root, args.base)
            files = target_determination.order_changed_first(root, files, changed)
        except (target_determination.GitError, OSError) as exc:
            print(f"run_test.py: warning: --changed-first ignored: {exc}", file=sys.stderr)

    index, count = args.shard or (1, 1)
    shards = sharding.calculate_shards(files, count, times)
    serial = {f for f in files if selection.is_serial(root, f)}

    if args.dry_run:
        shown = range(count) if not args.shard else [index - 1]
        for k in shown:
            est = sharding.estimated_seconds(shards[k], times)
            print(f"shard {k + 1}/{count}: {len(shards[k])} file(s), ~{est:.1f}s recorded")
            for f in shards[k]:
                print(f"  {f}" + (" [serial]" if f in serial else ""))
        return 0

    mine = shards[index - 1]
    if not mine:
        print("run_test.py: no test files selected", file=sys.stderr)
    reports_dir = os.path.abspath(args.reports_dir or os.path.join(root, "test-reports"))
    prepare_reports_dir(reports_dir)
    opts = execution.Options(
        root=root, reports_dir=reports_dir, timeout=args.timeout, file_timeout=args.file_timeout,
        marker_expr=args.marker_expr, retry=not args.no_retry, jobs=args.jobs,
        batch_seconds=args.batch_seconds,
    )
    if args.timeout and not execution.have_pytest_timeout():
        print("run_test.py: warning: pytest-timeout is not installed; no per-test timeout",
              file=sys.stderr)
    shard_note = f" (shard {index}/{count})" if args.shard else ""
    print(f"running {len(mine)} test file(s){shard_note} with -j {args.jobs}, "
          f"{len(serial & set(mine))} serial", flush=True)

    done = [0]

    def on_done(result: reporting.FileResult) -> None:
        done[0] += 1
        print(reporting.live_line(result, done[0], len(mine)), flush=True)
        if not result.ok and result.output:
            print(reporting.tail(result.output), flush=True)

    start = time.monotonic()
    try:
        results = execution.run_all(mine, serial, opts, on_done, times)
    except KeyboardInterrupt:
        print("run_test.py: interrupted; running test processes killed", file=sys.stderr)
        return 130
    elapsed = time.monotonic() - start
    totals = reporting.summarize(results)

    if args.update_times:
        measured = {r.path: r.seconds for r in results if r.error is None}
        sharding.save_times(args.times_file, times, measured, set(selection.discover(root)))
        print(f"updated {len(measured)} duration(s) in {args.times_file}")

    parity_failed = args.require_parity and totals.parity_selected > 0 and totals.parity_ran == 0
    lines = reporting.closing_lines(totals, len(results), elapsed)
    if parity_failed:
        lines.insert(-1, f"--require-parity: all {totals.parity_selected} selected parity tests "
                         "were skipped (is torch installed?)")
    sys.stderr.flush()
    print("\n".join(lines), flush=True)
    return 0 if totals.failed == 0 and not parity_failed else 1


if __name__ == "__main__":
    sys.exit(main())
