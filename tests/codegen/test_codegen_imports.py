"""The codegen loads ember's schema parser alone without putting src/ember on sys.path: there, ember's
subpackages (onnx, cuda, distributed, ...) would shadow the real packages of those names for every test
that shares the process (the runner batches short files into one pytest process)."""
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_codegen_leaves_src_ember_off_sys_path():
    code = (
        "import os, sys\n"
        f"sys.path.insert(0, {ROOT!r})\n"
        "from tools.codegen import model, gen_python, gen_autograd\n"
        f"bad = os.path.join({ROOT!r}, 'src', 'ember')\n"
        "assert all(os.path.abspath(p) != bad for p in sys.path), sys.path\n"
        "assert model.FunctionSchema.__module__.startswith('_schema')\n"
        "import importlib.util\n"
        "spec = importlib.util.find_spec('onnx')\n"
        "assert spec is None or 'src/ember' not in (spec.origin or ''), spec.origin\n"
        "print('ok')\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stderr[-2000:]
