"""Warm start: a new process whose disk cache (EMBER_CACHE_DIR) was filled by an earlier process compiles the same
model with ember.compile's default backend without running the C compiler, and computes the same values."""
import json
import os
import shutil
import subprocess
import sys

import pytest

from ember import _cc

pytestmark = pytest.mark.skipif(not _cc.available(), reason="needs a C compiler")

SRC = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "src")

_CHILD = r"""
import json, sys, warnings
sys.path.insert(0, {src!r})
warnings.simplefilter("ignore")
import ember
from ember._cc import build
from ember._dynamo.backends.registry import _BACKENDS
ember.manual_seed(0)
model = ember.nn.Sequential(ember.nn.Linear(8, 16), ember.nn.GELU(), ember.nn.LayerNorm(16), ember.nn.Linear(16, 3))
x = ember.randn(4, 8)
y = ember.tensor([0, 2, 1, 0])
ember.nn.functional.cross_entropy(model(x), y).backward()      # ember's own kernels: loaded before counting
model.zero_grad()
before = build.stats["builds"]
loss = ember.nn.functional.cross_entropy(ember.compile(model)(x), y)
loss.backward()
print(json.dumps({{"generated_builds": build.stats["builds"] - before, "builds": build.stats["builds"],
                  "loss": loss.item(), "grad": model[0].weight.grad.sum().item(),
                  "inductor": "inductor" in _BACKENDS}}))
"""


def _run(cache):
    env = dict(os.environ, EMBER_CACHE_DIR=str(cache))
    r = subprocess.run([sys.executable, "-c", _CHILD.format(src=SRC)], capture_output=True, text=True, env=env,
                       timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    return json.loads(r.stdout.strip().splitlines()[-1])


def _seed_with_ember_kernels(root):
    """Run the children's model eagerly here, then copy the libraries of ember's hand-written kernels this process
    has loaded into `root`, so the children do not spend their time building those."""
    import ember
    from ember._cc import build
    ember.manual_seed(0)
    model = ember.nn.Sequential(ember.nn.Linear(8, 16), ember.nn.GELU(), ember.nn.LayerNorm(16), ember.nn.Linear(16, 3))
    ember.nn.functional.cross_entropy(model(ember.randn(4, 8)), ember.tensor([0, 2, 1, 0])).backward()
    dst = os.path.join(root, "c")
    os.makedirs(dst, exist_ok=True)
    for lib in list(build._LOADED.values()):
        for f in (lib._name, lib._name[:-3] + ".protos.json"):
            if os.path.exists(f) and not os.path.basename(f).startswith("ember_inductor"):
                shutil.copy2(f, dst)


def test_second_process_compiles_without_gcc(tmp_path):
    _seed_with_ember_kernels(tmp_path)
    first = _run(tmp_path)
    if not first["inductor"]:
        pytest.skip("ember._inductor has not registered the inductor backend yet: no generated code to cache")
    assert first["generated_builds"] > 0                       # the first process built generated kernels
    second = _run(tmp_path)
    assert second["builds"] == 0                               # the second one built nothing at all
    assert second["loss"] == first["loss"] and second["grad"] == first["grad"]
