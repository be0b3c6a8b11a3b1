import io

import numpy as np
import pytest

import ember
import ember.nn as nn


def test_model_and_optimizer_checkpoint_loads_in_torch():
    torch = pytest.importorskip("torch")
    ember.manual_seed(0)
    m = nn.Sequential(nn.Linear(3, 2), nn.ReLU())
    o = ember.optim.Adam(m.parameters(), lr=0.01)
    for p in m.parameters():
        p.grad = ember.ones_like(p)
    o.step()
    buf = io.BytesIO()
    ember.save({"model": m.state_dict(), "optim": o.state_dict()}, buf)
    buf.seek(0)
    ck = torch.load(buf)
    t = torch.nn.Sequential(torch.nn.Linear(3, 2), torch.nn.ReLU())
    assert repr(t.load_state_dict(ck["model"])) == "<All keys matched successfully>"
    to = torch.optim.Adam(t.parameters(), lr=0.5)
    to.load_state_dict(ck["optim"])
    assert to.param_groups[0]["lr"] == 0.01 and to.state_dict()["state"][0]["step"].item() == 1.0
    np.testing.assert_array_equal(t[0].weight.detach().numpy(), m[0].weight.numpy(force=True))
    buf.seek(0)
    back = ember.load(buf)
    m2 = nn.Sequential(nn.Linear(3, 2), nn.ReLU())
    m2.load_state_dict(back["model"])
    o2 = ember.optim.Adam(m2.parameters())
    o2.load_state_dict(back["optim"])
    assert o2.state_dict()["state"][1]["exp_avg"].tolist() == o.state_dict()["state"][1]["exp_avg"].tolist()
