"""The committed _generated/ modules must equal what the codegen produces from the schema files."""
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_generated_files_match_codegen():
    r = subprocess.run([sys.executable, "-m", "tools.codegen.gen", "--check"], cwd=ROOT, capture_output=True, text=True)
    assert r.returncode == 0, f"generated files are stale; run `python -m tools.codegen.gen`:\n{r.stderr}"


def test_generated_files_are_marked():
    gen = os.path.join(ROOT, "src", "ember", "_generated")
    for name in os.listdir(gen):
        if name.endswith(".py"):
            with open(os.path.join(gen, name)) as f:
                assert "@generated" in f.readline(), name


def test_every_schema_round_trips():
    sys.path.insert(0, ROOT)
    from tools.codegen.model import load_native_functions
    fns = load_native_functions()
    assert len(fns) > 50
    for f in fns:
        assert str(f.func) == str(type(f.func).parse(str(f.func)))
