"""nn.Module state dicts cross between ember and real torch through checkpoint files, both ways."""
import numpy as np
import pytest

import ember


def _models(torch):
    def build(lib):
        nn = lib.nn
        return nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(), nn.MaxPool2d(2),
                             nn.Flatten(), nn.Linear(4 * 4 * 4, 10), nn.LayerNorm(10))
    return build(ember), build(torch)


@pytest.mark.parity
def test_ember_checkpoint_loads_into_torch_model(tmp_path):
    torch = pytest.importorskip("torch")
    em, tm = _models(torch)
    em.train()
    em(ember.randn(4, 1, 8, 8))                     # move BatchNorm running stats off their defaults
    path = tmp_path / "ember_model.pt"
    ember.save(em.state_dict(), path)
    sd = torch.load(path, weights_only=True)
    assert list(sd.keys()) == list(em.state_dict().keys())
    assert sd._metadata[""] == {"version": 1} and "1" in sd._metadata
    result = tm.load_state_dict(sd)
    assert not result.missing_keys and not result.unexpected_keys
    em.eval()
    tm.eval()
    x = np.random.default_rng(0).standard_normal((2, 1, 8, 8)).astype(np.float32)
    with ember.no_grad():
        ours = em(ember.from_numpy(x)).numpy()
    with torch.no_grad():
        theirs = tm(torch.from_numpy(x)).numpy()
    np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-5)


@pytest.mark.parity
def test_torch_checkpoint_loads_into_ember_model(tmp_path):
    torch = pytest.importorskip("torch")
    em, tm = _models(torch)
    tm.train()
    tm(torch.randn(4, 1, 8, 8))
    path = tmp_path / "torch_model.pt"
    torch.save(tm.state_dict(), path)
    sd = ember.load(path)
    result = em.load_state_dict(sd)
    assert not result.missing_keys and not result.unexpected_keys
    assert em[1].num_batches_tracked.item() == 1
    em.eval()
    tm.eval()
    x = np.random.default_rng(1).standard_normal((2, 1, 8, 8)).astype(np.float32)
    with ember.no_grad():
        ours = em(ember.from_numpy(x)).numpy()
    with torch.no_grad():
        theirs = tm(torch.from_numpy(x)).numpy()
    np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-5)


@pytest.mark.parity
def test_parameters_round_trip_as_parameters(tmp_path):
    torch = pytest.importorskip("torch")
    p = ember.nn.Parameter(ember.randn(3, 2))
    path = tmp_path / "param.pt"
    ember.save({"w": p}, path)
    tp = torch.load(path, weights_only=True)["w"]
    assert isinstance(tp, torch.nn.Parameter) and tp.requires_grad
    back = ember.load(path)["w"]
    assert isinstance(back, ember.nn.Parameter) and back.requires_grad and back.tolist() == p.tolist()
