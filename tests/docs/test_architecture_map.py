"""docs/architecture.md stays a true map: every package under src/ember is named in it, and it stays short."""
import os
import re

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SRC = os.path.join(ROOT, "src", "ember")
DOC = os.path.join(ROOT, "docs", "architecture.md")


def _packages():
    """Every folder of src/ember that holds Python or data files, as 'ember/<path>/'."""
    out = []
    for dirpath, dirnames, filenames in os.walk(SRC):
        dirnames[:] = sorted(d for d in dirnames if d != "__pycache__" and not d.endswith(".egg-info"))
        if any(f.endswith((".py", ".yaml", ".c", ".h")) for f in filenames):
            rel = os.path.relpath(dirpath, os.path.dirname(SRC)).replace(os.sep, "/")
            out.append(rel + "/")
    return out


def _doc():
    with open(DOC) as f:
        return f.read()


def test_every_package_is_on_the_map():
    doc = _doc()
    named = set(re.findall(r"`(ember/(?:[A-Za-z0-9_/]+/)?)`", doc))
    missing = [p for p in _packages() if p not in named]
    assert not missing, f"docs/architecture.md does not name these folders (write `ember/x/` in backticks): {missing}"


def test_map_names_no_folder_that_does_not_exist():
    doc = _doc()
    named = set(re.findall(r"`(ember/(?:[A-Za-z0-9_/]+/)?)`", doc))
    gone = sorted(p for p in named if not os.path.isdir(os.path.join(os.path.dirname(SRC), p)))
    assert not gone, f"docs/architecture.md names folders that do not exist: {gone}"


def test_map_is_short():
    n = len(_doc().splitlines())
    assert n <= 160, f"docs/architecture.md has {n} lines; it is a map of about 100 lines (notes go beside their code)"
