"""The graph-level disk cache (ember/_inductor/fxgraph_cache.py): a second process compiling the same graph skips
AOT autograd, lowering and the C compiler and gets equal results; a changed graph or config misses."""
import json
import os
import subprocess
import sys

import pytest

import ember
from ember import _cc
from ember.testing import assert_close

from ._compiled import fresh_caches
from .test_warm_start import SRC, _seed_with_ember_kernels

pytestmark = pytest.mark.skipif(not _cc.available(), reason="needs a C compiler")
_fresh = pytest.fixture(autouse=True)(fresh_caches)

_CHILD = r"""
import json, sys, warnings
sys.path.insert(0, {src!r})
warnings.simplefilter("ignore")
import ember
from ember._cc import build
from ember._dynamo.utils import counters
from ember._inductor import config
config.cpp.simdlen = {simdlen!r}
ember.manual_seed(0)
model = ember.nn.Sequential(ember.nn.Linear(8, {hidden}), ember.nn.GELU(), ember.nn.LayerNorm({hidden}),
                            ember.nn.Linear({hidden}, 3))
x = ember.randn(4, 8)
y = ember.tensor([0, 2, 1, 0])
ember.nn.functional.cross_entropy(model(x), y).backward()      # ember's own kernels: loaded before counting
model.zero_grad()
before = build.stats["builds"]
f = ember.compile(model)
losses = []
for _ in range(2):
    loss = ember.nn.functional.cross_entropy(f(x), y)
    loss.backward()
    losses.append(loss.item())
with ember.no_grad():
    out = f(x).sum().item()                                   # grad mode off: not the cached signature
print(json.dumps({{"generated_builds": build.stats["builds"] - before, "losses": losses, "out": out,
                  "grad": model[0].weight.grad.sum().item(), "counters": dict(counters["inductor"])}}))
"""


def _run(cache, hidden=16, simdlen=None):
    env = dict(os.environ, EMBER_CACHE_DIR=str(cache))
    env.pop("EMBER_INDUCTOR_FX_GRAPH_CACHE", None)
    r = subprocess.run([sys.executable, "-c", _CHILD.format(src=SRC, hidden=hidden, simdlen=simdlen)],
                       capture_output=True, text=True, env=env, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    return json.loads(r.stdout.strip().splitlines()[-1])


def test_second_process_skips_aot_lowering_and_gcc(tmp_path):
    _seed_with_ember_kernels(tmp_path)
    first = _run(tmp_path)
    assert first["counters"].get("fxgraph_cache_miss") == 2 and first["counters"].get("fxgraph_cache_saved") == 2
    assert first["counters"]["graphs"] == 3                   # forward, backward, inference lowered
    second = _run(tmp_path)
    c = second["counters"]
    # the training graph and the grad-mode-off (inference) one both come from the cache: nothing is lowered
    assert c.get("fxgraph_cache_hit") == 2 and not c.get("fxgraph_cache_miss")
    assert second["generated_builds"] == 0 and not c.get("graphs")
    assert second["losses"] == first["losses"] and second["grad"] == first["grad"] and second["out"] == first["out"]

    changed_graph = _run(tmp_path, hidden=12)                  # another graph: a miss
    assert changed_graph["counters"].get("fxgraph_cache_miss") == 2
    assert not changed_graph["counters"].get("fxgraph_cache_hit")
    changed_config = _run(tmp_path, simdlen=4)                 # another config: a miss
    assert changed_config["counters"].get("fxgraph_cache_miss") == 2
    assert not changed_config["counters"].get("fxgraph_cache_hit")


def test_hit_in_the_same_process_gives_eager_results(tmp_path, monkeypatch):
    monkeypatch.setenv("EMBER_CACHE_DIR", str(tmp_path))
    from ember._dynamo.utils import counters
    from ember._inductor import config
    monkeypatch.setattr(config, "fx_graph_cache", True)
    ember.manual_seed(0)
    model = ember.nn.Sequential(ember.nn.Linear(5, 7), ember.nn.Tanh(), ember.nn.Linear(7, 2))
    x = ember.randn(3, 5)
    ember.compile(model)(x).sum().backward()
    g1 = model[0].weight.grad.clone()
    model.zero_grad()
    ember._dynamo.reset()
    hits = counters["inductor"]["fxgraph_cache_hit"]
    out = ember.compile(model)(x)
    assert counters["inductor"]["fxgraph_cache_hit"] == hits + 1
    out.sum().backward()
    assert_close(out, model(x))
    assert_close(model[0].weight.grad, g1)


def test_cache_off_by_config(tmp_path, monkeypatch):
    monkeypatch.setenv("EMBER_CACHE_DIR", str(tmp_path))
    from ember._dynamo.utils import counters
    from ember._inductor import config
    x = ember.randn(6)
    assert not config.fx_graph_cache             # the fixture's (fresh_caches) default for these tests
    with config.patch(fx_graph_cache=False):
        before = dict(counters["inductor"])
        ember.compile(lambda t: t.exp() + 1)(x)
        assert counters["inductor"]["fxgraph_cache_miss"] == before.get("fxgraph_cache_miss", 0)
        assert counters["inductor"]["fxgraph_cache_hit"] == before.get("fxgraph_cache_hit", 0)
    assert not os.path.exists(os.path.join(tmp_path, "fxgraph"))
