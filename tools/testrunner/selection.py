"""Which test files run.

Discovery: every ``tests/**/test_*.py`` under the project root (``__pycache__`` and hidden
directories ignored), as root-relative POSIX paths, sorted.

Groups: a group is a named set of top-level directories under ``tests/`` (see ``GROUPS``).
A name that is not a group but is an existing top-level directory of ``tests/`` is accepted
as a one-directory group; anything else is an error (:class:`SelectionError`).

Combining the inputs::

    chosen = all files                              if no group and no include was given
           = files of the groups  ∪  include matches  otherwise
    chosen = chosen - exclude matches

``TESTS_TO_INCLUDE`` (space- or comma-separated) is merged into the flags: an entry that is a
group name adds that group, anything else is treated as an ``--include`` pattern.

A pattern ``P`` matches a file ``F`` (e.g. ``tests/core/test_tensor.py``) when any of these
fnmatch globs matches: ``P``, ``P.py``, ``tests/P``, ``tests/P.py`` (so ``core/test_tensor``,
``tests/core/*``, ``*tensor*`` all work), or when ``P`` names a directory that contains ``F``
(``tests/core`` or ``core``).

Serial files: a file is serial when it sets a module-level ``pytestmark`` that mentions
``mark.serial`` (found by a cheap text scan, no import) or is listed in ``SERIAL_FILES``.
"""
from __future__ import annotations

import fnmatch
import os
import re
from dataclasses import dataclass, field

#: group name -> top-level directories under tests/
GROUPS: dict[str, tuple[str, ...]] = {
    "core": ("core", "schema", "dispatch", "codegen"),
    "ops": ("ops",),
    "autograd": ("autograd",),
    "nn": ("nn", "optim", "data"),
    "serialization": ("serialization",),
    "tools": ("tools",),
    "compile": ("compile",),
    "distributed": ("distributed",),
}

#: files that must run alone although they carry no ``pytestmark`` (root-relative paths)
SERIAL_FILES: frozenset[str] = frozenset()

ENV_VAR = "TESTS_TO_INCLUDE"


class SelectionError(ValueError):
    """Bad selection input (e.g. an unknown group name)."""


def discover(root: str) -> list[str]:
    """All ``tests/**/test_*.py`` files under *root*, root-relative with ``/``, sorted."""
    tests_dir = os.path.join(root, "tests")
    found = []
    for dirpath, dirnames, filenames in os.walk(tests_dir):
        dirnames[:] = [d for d in dirnames if not d.startswith(".") and d != "__pycache__"]
        for name in filenames:
            if name.startswith("test_") and name.endswith(".py"):
                rel = os.path.relpath(os.path.join(dirpath, name), root)
                found.append(rel.replace(os.sep, "/"))
    return sorted(found)


def top_level_dirs(root: str) -> set[str]:
    tests_dir = os.path.join(root, "tests")
    if not os.path.isdir(tests_dir):
        return set()
    return {d for d in os.listdir(tests_dir) if os.path.isdir(os.path.join(tests_dir, d))}


def group_dirs(name: str, root: str) -> tuple[str, ...]:
    """Directories of group *name*; raises :class:`SelectionError` for an unknown name."""
    if name in GROUPS:
        return GROUPS[name]
    if name in top_level_dirs(root):
        return (name,)
    known = ", ".join(sorted(GROUPS))
    raise SelectionError(f"unknown test group {name!r} (known groups: {known})")


def split_list(text: str | None) -> list[str]:
    """Split a space- and/or comma-separated list, dropping empties."""
    if not text:
        return []
    return [part for part in re.split(r"[\s,]+", text) if part]


def matches(path: str, pattern: str) -> bool:
    pattern = pattern.strip().replace(os.sep, "/")
    if not pattern:
        return False
    globs = (pattern, pattern + ".py", "tests/" + pattern, "tests/" + pattern + ".py")
    if any(fnmatch.fnmatchcase(path, g) for g in globs):
        return True
    prefix = pattern.rstrip("/") + "/"
    return path.startswith(prefix) or path.startswith("tests/" + prefix)


def in_dirs(path: str, dirs: tuple[str, ...]) -> bool:
    parts = path.split("/")
    return len(parts) > 2 and parts[0] == "tests" and parts[1] in dirs


@dataclass
class Selection:
    files: list[str]
    unmatched_includes: list[str] = field(default_factory=list)


def select(root: str, groups=(), include=(), exclude=(), env_value: str | None = None) -> Selection:
    """Apply groups/include/exclude/env (see module docstring) to the discovered files."""
    groups = [g for item in groups for g in split_list(item)]
    include = [p for item in include for p in split_list(item)]
    exclude = [p for item in exclude for p in split_list(item)]
    for entry in split_list(env_value):
        if entry in GROUPS:
            groups.append(entry)
        else:
            include.append(entry)

    dirs: tuple[str, ...] = ()
    for name in groups:
        dirs += group_dirs(name, root)  # validates every name, even if it selects nothing

    every = discover(root)
    if not groups and not include:
        chosen = list(every)
    else:
        chosen = [f for f in every if in_dirs(f, dirs) or any(matches(f, p) for p in include)]
    chosen = [f for f in chosen if not any(matches(f, p) for p in exclude)]
    unmatched = [p for p in include if not any(matches(f, p) for f in every)]
    return Selection(chosen, unmatched)


_PYTESTMARK = re.compile(r"^pytestmark\s*[:=][^\n]*(?:\n[ \t)\]][^\n]*)*", re.M)


def is_serial(root: str, path: str) -> bool:
    """True when *path* is in ``SERIAL_FILES`` or sets a module-level serial ``pytestmark``."""
    if path in SERIAL_FILES:
        return True
    try:
        with open(os.path.join(root, path), encoding="utf-8", errors="replace") as fh:
            text = fh.read()
    except OSError:
        return False
    return any(re.search(r"\bmark\.serial\b", m.group(0)) for m in _PYTESTMARK.finditer(text))
