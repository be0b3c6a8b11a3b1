"""torch.histogramdd against torch: bin counts, ranges, edge tensors, weights, density, batched points, the
result type and torch's argument errors."""
import numpy as np
import pytest

import ember


def _points(shape, dt, seed=0):
    x = np.random.default_rng(seed).standard_normal(shape).astype(dt)
    return x


def _call(lib, x, kw):
    k = dict(kw)
    if isinstance(k.get("bins"), list) and k["bins"] and not isinstance(k["bins"][0], int):
        k["bins"] = [lib.tensor(b) for b in k["bins"]]
    if "weight" in k:
        k["weight"] = lib.tensor(k["weight"])
    return lib.histogramdd(lib.tensor(x), **k)


@pytest.mark.parity
@pytest.mark.parametrize("dt", ["float32", "float64"])
@pytest.mark.parametrize("case", ["counts", "int", "range-density", "edges-weight", "weight-density", "batched",
                                  "three-d", "nan", "constant"])
def test_matches_torch(case, dt):
    torch = pytest.importorskip("torch")
    x = _points((40, 2), dt)
    w = np.random.default_rng(1).random(40).astype(dt)
    kw = {"counts": {"bins": [3, 4]}, "int": {"bins": 5}, "range-density": {"bins": 3, "range": [-1., 1., -2., 2.],
                                                                             "density": True},
          "edges-weight": {"bins": [np.array([-1., 0, 1], dt), np.array([-2., -0.5, 0, 2.], dt)], "weight": w},
          "weight-density": {"bins": [4, 2], "weight": w, "density": True}}.get(case, {"bins": 3})
    if case == "batched":
        x = _points((3, 5, 2), dt)
    elif case == "three-d":
        x = _points((30, 3), dt)
        kw = {"bins": [2, 3, 4], "range": [-1., 1., -1., 1., -2., 2.]}
    elif case == "nan":
        x[3, 0] = np.nan
        kw = {"bins": 3, "range": [-1., 1., -1., 1.]}
    elif case == "constant":
        x[:, 1] = 2.0
    t, e = _call(torch, x, kw), _call(ember, x, kw)
    assert type(e).__name__ == "histogramdd" and e._fields == ("hist", "bin_edges")
    assert e.hist.dtype == getattr(ember, dt) and isinstance(e.bin_edges, tuple)
    np.testing.assert_allclose(e.hist.numpy(), t.hist.numpy(), rtol=1e-6)
    assert len(e.bin_edges) == len(t.bin_edges)
    for a, b in zip(t.bin_edges, e.bin_edges):
        np.testing.assert_allclose(b.numpy(), a.numpy(), rtol=1e-6)


@pytest.mark.parity
@pytest.mark.parametrize("kw", [{"bins": [3]}, {"bins": 0}, {"bins": [3, -1]}, {"bins": 3, "range": [0., 1.]},
                                {"bins": 3, "range": [1., 0., 0., 1.]}, {"bins": 3, "weight": np.ones(3, np.float32)},
                                {"bins": [np.zeros((2, 2), np.float32), np.zeros(2, np.float32)]},
                                {"bins": [np.zeros(2, np.float64), np.zeros(2, np.float64)]}])
def test_errors_match_torch(kw):
    torch = pytest.importorskip("torch")
    x = _points((10, 2), "float32")
    errs = []
    for lib in (torch, ember):
        with pytest.raises(Exception) as info:
            _call(lib, x, kw)
        errs.append((type(info.value), str(info.value)))
    assert errs[1] == errs[0]
    with pytest.raises(NotImplementedError, match="\"histogramdd\" not implemented for 'Long'"):
        ember.histogramdd(ember.zeros(4, 2, dtype=ember.int64), bins=3)
