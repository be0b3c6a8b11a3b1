"""ember._schema must be stdlib-only and cheap to import."""
import json
import subprocess
import sys
import os

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

_PROBE = r"""
import json, sys, time
sys.path.insert(0, {src!r})
import ember  # whatever the top-level package pulls in is not our concern
before = set(sys.modules)
t0 = time.perf_counter()
import ember._schema
dt = time.perf_counter() - t0
new = sorted(set(sys.modules) - before)
print(json.dumps({{"seconds": dt, "new": new}}))
"""


def _probe(pycache=None):
    code = _PROBE.format(src=os.path.join(ROOT, "src"))
    env = dict(os.environ)
    if pycache is not None:  # measure like an installed package: bytecode already compiled
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(pycache)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env)
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_imports_only_stdlib():
    new = _probe()["new"]
    third_party = [m for m in new if m.split(".")[0] not in sys.stdlib_module_names and m.split(".")[0] != "ember"]
    assert third_party == []
    assert not any(m.split(".")[0] in ("numpy", "torch", "torchgen", "yaml") for m in new)


def test_import_is_fast(tmp_path):
    _probe(tmp_path)  # warm the bytecode cache
    best = min(_probe(tmp_path)["seconds"] for _ in range(3))
    assert best < 0.05, f"import ember._schema took {best * 1000:.1f} ms"
