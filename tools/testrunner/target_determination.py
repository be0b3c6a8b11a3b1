"""``--changed-first``: run the test files most likely to cover the current change first.

Changed files are those that differ between the merge base of ``--base`` (default ``main``)
and ``HEAD``, plus uncommitted and untracked changes in the work tree
(``git diff --name-only MERGE_BASE`` and ``git ls-files --others --exclude-standard``).

Each selected test file gets a rank, and files are stably sorted by it (so the order inside a
rank is the selection order):

0. the test file itself changed;
1. the test file *covers* a changed Python module, by either heuristic:

   * **mirrored path** -- the test is named after the module: ``test_X.py`` where ``X`` is the
     module's file name (or, for ``pkg/__init__.py``, the package name ``pkg``), e.g.
     ``src/ember/nn/functional.py`` -> ``tests/nn/test_functional.py``;
   * **imports** -- the test file's text imports the module (``import a.b``,
     ``from a.b import c``, ``from a import b``). A changed file ``src/ember/a/b.py`` is the
     module ``ember.a.b`` (a leading ``src/`` is dropped); an import names it when it equals it,
     is a submodule of it, or equals a dotted tail of it (``testrunner.sharding`` for
     ``tools/testrunner/sharding.py``);

2. everything else.

This is a cheap textual heuristic: it never removes a test, it only reorders.
"""
from __future__ import annotations

import os
import re
import subprocess

_IMPORT = re.compile(r"^[ \t]*import[ \t]+([^\n#;]+)", re.M)
_FROM_PAREN = re.compile(r"^[ \t]*from[ \t]+([\w.]+)[ \t]+import[ \t]*\(([^)]*)\)", re.M)
_FROM = re.compile(r"^[ \t]*from[ \t]+([\w.]+)[ \t]+import[ \t]+([^\n#;(]+)", re.M)


class GitError(RuntimeError):
    pass


def _git(root: str, *args: str) -> str:
    proc = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True)
    if proc.returncode != 0:
        raise GitError(proc.stderr.strip() or f"git {' '.join(args)} failed")
    return proc.stdout


def changed_files(root: str, base: str = "main") -> set[str]:
    """Root-relative paths changed since the merge base of *base* and HEAD (incl. work tree)."""
    try:
        merge_base = _git(root, "merge-base", base, "HEAD").strip()
    except GitError:
        merge_base = _git(root, "rev-parse", "--verify", base).strip()
    out = _git(root, "diff", "--name-only", merge_base)
    out += _git(root, "ls-files", "--others", "--exclude-standard")
    return {line.strip() for line in out.splitlines() if line.strip()}


def module_name(path: str) -> str | None:
    """Dotted module name of a changed ``.py`` path (``src/`` prefix and ``__init__`` dropped)."""
    if not path.endswith(".py"):
        return None
    parts = path[:-3].split("/")
    if parts and parts[0] == "src":
        parts = parts[1:]
    if parts and parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts) or None


def imported_modules(text: str) -> set[str]:
    """Dotted names a test file imports (``from a import b`` yields ``a`` and ``a.b``)."""
    names: set[str] = set()
    for m in _IMPORT.finditer(text):
        for item in m.group(1).split(","):
            names.add(item.strip().split(" ")[0])
    for m in list(_FROM_PAREN.finditer(text)) + list(_FROM.finditer(text)):
        pkg = m.group(1)
        if pkg.startswith("."):
            continue
        names.add(pkg)
        for item in re.sub(r"#[^\n]*", "", m.group(2)).split(","):
            word = item.strip().split(" ")[0].strip()
            if word and word != "*":
                names.add(f"{pkg}.{word}")
    names.discard("")
    return names


def _names_module(imported: str, module: str) -> bool:
    return (
        imported == module
        or imported.startswith(module + ".")
        or module.endswith("." + imported)
    )


def covers(test_path: str, test_text: str, module: str) -> bool:
    """Whether the test file at *test_path* covers the dotted *module* (see module docstring)."""
    stem = os.path.basename(test_path)[:-3]
    if stem.startswith("test_") and stem[len("test_"):] == module.rsplit(".", 1)[-1]:
        return True
    return any(_names_module(name, module) for name in imported_modules(test_text))


def rank(root: str, test_path: str, changed: set[str], modules: list[str]) -> int:
    if test_path in changed:
        return 0
    try:
        with open(os.path.join(root, test_path), encoding="utf-8", errors="replace") as fh:
            text = fh.read()
    except OSError:
        text = ""
    if any(covers(test_path, text, m) for m in modules):
        return 1
    return 2


def order_changed_first(root: str, files: list[str], changed: set[str]) -> list[str]:
    """*files* stably sorted so tests of *changed* paths come first (ranks 0, 1, 2)."""
    modules = sorted({m for m in map(module_name, changed) if m})
    ranks = {f: rank(root, f, changed, modules) for f in files}
    return sorted(files, key=lambda f: ranks[f])
