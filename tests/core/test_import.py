"""`import ember` never imports torch, stays light (no ml_dtypes until bfloat16/float8 are used)."""
import os
import subprocess
import sys

SRC = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "src")


def _run(code):
    r = subprocess.run([sys.executable, "-c", f"import sys; sys.path.insert(0, {SRC!r}); " + code],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return r.stdout.strip()


def test_library_never_imports_torch():
    out = _run("import ember; x = ember.tensor([1.0, 2.0]); (x + x).sum() if hasattr(x, 'sum') else None; "
               "print('torch' in sys.modules, 'torchgen' in sys.modules)")
    assert out == "False False"


def test_no_source_file_imports_torch():
    import re
    pat = re.compile(r"^\s*(import torch|from torch)\b", re.M)
    for root, _, files in os.walk(os.path.join(SRC, "ember")):
        for f in files:
            if f.endswith(".py"):
                with open(os.path.join(root, f)) as fh:
                    assert not pat.search(fh.read()), os.path.join(root, f)


def test_heavy_parts_load_lazily():
    out = _run("import ember; print(sorted(m for m in ('ml_dtypes', 'ember.nn', 'ember.optim', 'ember.serialization', "
               "'ember.autograd', 'yaml') if m in sys.modules))")
    assert out == "[]"


def test_bfloat16_loads_ml_dtypes_on_demand():
    out = _run("import ember; t = ember.tensor([1.5], dtype=ember.bfloat16); print(t.dtype, 'ml_dtypes' in sys.modules)")
    assert out == "ember.bfloat16 True"
