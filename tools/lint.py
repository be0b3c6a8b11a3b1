"""The lint step of CI: ruff over the tree (rules in pyproject.toml) and commit subjects of 72 characters or fewer.

Subjects are checked from BASELINE on (the commit that introduced this rule); older history keeps its long lines.
Run: python tools/lint.py
"""
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BASELINE = "effef38"          # "Take src/ember.egg-info out of git": the first commit under the 72-character rule
MAX_SUBJECT = 72
# Commits merged before the check ran on them; history is not rewritten once other branches hold it.
GRANDFATHERED = {"91cae20", "884ecc1", "f5fff68", "4523db1", "7376582", "4f27970", "91a1885", "47a31db", "6631da3", "9fbcaef", "eb0b4ed", "71328f8", "3bc4345", "7bb6c4b", "18fbb92", "59aa4a0", "0fae543", "a2a3b0e", "111a473", "7e79471", "c2c89d8", "1dba6f8"}
PATHS = ["src", "tools", "tests", "examples", "benchmarks"]


def run_ruff():
    r = subprocess.run([sys.executable, "-m", "ruff", "check", *PATHS], cwd=ROOT)
    return r.returncode == 0


def long_subjects():
    """(hash, subject) of every commit after BASELINE whose subject is too long; [] outside a git checkout."""
    r = subprocess.run(["git", "log", "--format=%h %s", f"{BASELINE}..HEAD"], cwd=ROOT, capture_output=True, text=True)
    if r.returncode != 0:
        print(f"lint: cannot read git history ({r.stderr.strip()}); subject check skipped")
        return []
    out = []
    for line in r.stdout.splitlines():
        h, _, subject = line.partition(" ")
        if len(subject) > MAX_SUBJECT and h[:7] not in GRANDFATHERED:
            out.append((h, subject))
    return out


def main():
    ok = run_ruff()
    bad = long_subjects()
    for h, subject in bad:
        print(f"lint: commit {h} has a subject of {len(subject)} characters (at most {MAX_SUBJECT}): {subject}")
    return 0 if ok and not bad else 1


if __name__ == "__main__":
    sys.exit(main())
