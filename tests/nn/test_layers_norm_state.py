"""BatchNorm running statistics (momentum, momentum=None cumulative average, eval, track_running_stats),
state_dict interchange with torch, and wrong-rank/channel errors."""
import numpy as np
import pytest

import ember
import ember.nn as nn
from conftest import arr
from _parity import copy_state


@pytest.mark.parity
@pytest.mark.parametrize("momentum", [0.1, None, 0.5])
@pytest.mark.parametrize("cls,shape", [("BatchNorm1d", (6, 3)), ("BatchNorm1d", (4, 3, 5)),
                                       ("BatchNorm2d", (4, 3, 5, 2))])
def test_batchnorm_running_stats_match_torch(torch, cls, shape, momentum):
    e = getattr(nn, cls)(3, momentum=momentum)
    t = getattr(torch.nn, cls)(3, momentum=momentum)
    for step in range(3):
        x = arr(*shape, seed=step)
        ye, yt = e(ember.tensor(x)), t(torch.tensor(x))
        np.testing.assert_allclose(ye.numpy(force=True), yt.detach().numpy(), rtol=1e-4, atol=1e-5)
    for k, v in t.state_dict().items():
        np.testing.assert_allclose(e.state_dict()[k].numpy(), v.numpy(), rtol=1e-5, atol=1e-6, err_msg=k)
    assert int(e.num_batches_tracked.item()) == 3
    e.eval()
    t.eval()
    x = arr(*shape, seed=10)
    np.testing.assert_allclose(e(ember.tensor(x)).detach().numpy(), t(torch.tensor(x)).detach().numpy(), rtol=1e-4,
                               atol=1e-5)


@pytest.mark.parity
def test_batchnorm_without_running_stats(torch):
    e = nn.BatchNorm2d(3, track_running_stats=False, affine=False)
    t = torch.nn.BatchNorm2d(3, track_running_stats=False, affine=False)
    assert repr(e) == repr(t) and list(e.state_dict()) == list(t.state_dict()) == []
    e.eval()
    t.eval()
    x = arr(2, 3, 4, 4)
    np.testing.assert_allclose(e(ember.tensor(x)).detach().numpy(), t(torch.tensor(x)).detach().numpy(), rtol=1e-4, atol=1e-5)


@pytest.mark.parity
def test_batchnorm_state_dict_loads_into_torch_and_back(torch):
    e = nn.BatchNorm2d(3)
    e(ember.tensor(arr(2, 3, 4, 4)))
    t = torch.nn.BatchNorm2d(3)
    copy_state(e, t, torch)
    e2 = nn.BatchNorm2d(3)
    res = e2.load_state_dict({k: ember.tensor(v.numpy()) for k, v in t.state_dict().items()})
    assert res.missing_keys == [] and res.unexpected_keys == []
    np.testing.assert_allclose(e2.running_mean.numpy(), e.running_mean.numpy())
    # a version-1 state dict without num_batches_tracked still loads
    sd = e.state_dict()
    del sd["num_batches_tracked"]
    sd._metadata[""]["version"] = 1
    assert nn.BatchNorm2d(3).load_state_dict(sd).missing_keys == []


def test_wrong_rank_and_channels_raise():
    with pytest.raises(RuntimeError, match=r"expected input\[2, 5, 8, 8\] to have 3 channels"):
        nn.Conv2d(3, 4, 3)(ember.randn(2, 5, 8, 8))
    with pytest.raises(RuntimeError, match=r"Expected 3D \(unbatched\) or 4D \(batched\) input to conv2d, but got "
                                           r"input of size: \[2, 3\]"):
        nn.Conv2d(3, 4, 3)(ember.randn(2, 3))
    with pytest.raises(ValueError, match=r"expected 4D input \(got 3D input\)"):
        nn.BatchNorm2d(3)(ember.randn(2, 3, 4))
    with pytest.raises(RuntimeError, match="should contain 5 elements not 3"):
        nn.BatchNorm1d(3)(ember.randn(4, 5))
    with pytest.raises(RuntimeError, match=r"normalized_shape=\[3\], expected input with shape \[\*, 3\]"):
        nn.LayerNorm(3)(ember.randn(2, 5))
    with pytest.raises(ValueError, match="in_channels must be divisible by groups"):
        nn.Conv2d(3, 4, 3, groups=2)
    with pytest.raises(ValueError, match="padding='same' is not supported for strided convolutions"):
        nn.Conv1d(3, 4, 3, stride=2, padding="same")
    with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1, but got 1.5"):
        nn.Dropout(1.5)
    with pytest.raises(ValueError, match="num_channels must be divisible by num_groups"):
        nn.GroupNorm(4, 6)


@pytest.mark.parity
def test_default_init_statistics(torch):
    ember.manual_seed(0)
    c = nn.Conv2d(16, 32, 3)
    bound = 1 / np.sqrt(16 * 9)
    w = c.weight.detach().numpy()
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.95 * bound
    assert np.abs(c.bias.detach().numpy()).max() <= bound
    e = nn.Embedding(100, 16, padding_idx=3)
    assert abs(e.weight.detach().numpy().std() - 1) < 0.1 and (e.weight.detach().numpy()[3] == 0).all()
    ct = nn.ConvTranspose2d(8, 4, 3)
    assert tuple(ct.weight.shape) == (8, 4, 3, 3)
    assert np.abs(ct.weight.detach().numpy()).max() <= 1 / np.sqrt(4 * 9)


@pytest.mark.parity
def test_embedding_from_pretrained_and_freeze(torch):
    w = ember.tensor(arr(5, 3))
    e = nn.Embedding.from_pretrained(w, padding_idx=1)
    t = torch.nn.Embedding.from_pretrained(torch.tensor(arr(5, 3)), padding_idx=1)
    assert repr(e) == repr(t) and e.weight.requires_grad is False
    idx = np.array([[0, 1], [4, 2]])
    np.testing.assert_allclose(e(ember.tensor(idx)).numpy(), t(torch.tensor(idx)).detach().numpy())
    assert nn.Embedding.from_pretrained(w, freeze=False).weight.requires_grad


def test_dropout_modes():
    ember.manual_seed(0)
    d = nn.Dropout(0.5)
    x = ember.ones(1000)
    y = d(x).numpy()
    assert set(np.unique(y)) <= {0.0, 2.0} and 350 < (y == 0).sum() < 650
    d.eval()
    assert (d(x).numpy() == 1).all()
    d2 = nn.Dropout2d(0.5)
    y = d2(ember.ones(4, 8, 3, 3)).numpy()
    assert ((y == y[:, :, :1, :1]).all())
    assert repr(d) == "Dropout(p=0.5, inplace=False)"
