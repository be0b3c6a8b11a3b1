"""A normalizing flow (RealNVP-style affine couplings over an Independent(Normal) base, trained by
maximum likelihood) and the torch.distributions pieces such flows are built from, run with `torch` bound to
ember and to torch: TransformedDistribution with AffineTransform (tensor loc/scale with gradients) and
SigmoidTransform, Independent, ComposeTransform inverse and log_abs_det_jacobian, MultivariateNormal with
scale_tril (log_prob gradient, entropy, covariance, kl_divergence), rsample shapes (draws differ: each
library has its own generator)."""
import math

import numpy as np
import pytest

import ember
from _porting import WeightSync, run_both, run_script, torch_fixture  # noqa: F401  (the `torch` fixture)

SCRIPT = '''
nn = torch.nn
D = torch.distributions
T = torch.distributions.transforms
torch.manual_seed(0)
rs = np.random.RandomState(0)
data = torch.from_numpy((rs.randn(64, 2) @ np.array([[1.0, 0.5], [0.0, 0.7]]) + [1.0, -1.0]).astype(np.float32))

class AffineCoupling(nn.Module):
    def __init__(self, flip):
        super().__init__()
        self.flip = flip
        self.net = nn.Sequential(nn.Linear(1, 16), nn.Tanh(), nn.Linear(16, 2))
    def forward(self, x):
        a, b = (x[:, 1:], x[:, :1]) if self.flip else (x[:, :1], x[:, 1:])
        st = self.net(a)
        s, t = torch.tanh(st[:, :1]), st[:, 1:]
        b = b * torch.exp(s) + t
        out = torch.cat([b, a], 1) if self.flip else torch.cat([a, b], 1)
        return out, s.sum(1)
    def inverse(self, y):
        a, b = (y[:, 1:], y[:, :1]) if self.flip else (y[:, :1], y[:, 1:])
        st = self.net(a)
        s, t = torch.tanh(st[:, :1]), st[:, 1:]
        b = (b - t) * torch.exp(-s)
        return torch.cat([b, a], 1) if self.flip else torch.cat([a, b], 1)

flows = nn.ModuleList([AffineCoupling(i % 2 == 1) for i in range(4)])
sync(flows)
base = D.Independent(D.Normal(torch.zeros(2), torch.ones(2)), 1)
opt = torch.optim.Adam(flows.parameters(), lr=1e-2)
nlls = []
for step in range(15):
    z, logdet = data, torch.zeros(data.shape[0])
    for f in flows:
        z, ld = f(z)
        logdet = logdet + ld
    loss = -(base.log_prob(z) + logdet).mean()
    opt.zero_grad(); loss.backward(); opt.step()
    nlls.append(loss.item())
with torch.no_grad():
    zz = torch.from_numpy(rs.randn(5, 2).astype(np.float32))
    for f in reversed(flows):
        zz = f.inverse(zz)
    samples = zz

# a TransformedDistribution: logit-normal via SigmoidTransform o AffineTransform
loc = torch.tensor([0.3, -0.2], requires_grad=True)
scale = torch.tensor([0.8, 1.5], requires_grad=True)
td = D.TransformedDistribution(D.Normal(torch.zeros(2), torch.ones(2)),
                               [T.AffineTransform(loc=loc, scale=scale), T.SigmoidTransform()])
ind = D.Independent(td, 1)
u = torch.tensor([[0.2, 0.7], [0.5, 0.9]])
lp = ind.log_prob(u)
lp.sum().backward()
gl, gs = loc.grad.clone(), scale.grad.clone()
torch.manual_seed(1)
rsamp = td.rsample((3,))
shapes = (tuple(td.batch_shape), tuple(td.event_shape), tuple(ind.batch_shape), tuple(ind.event_shape))
ct = T.ComposeTransform([T.AffineTransform(1.0, 2.0), T.ExpTransform()])
ctinv = ct.inv(ct(torch.tensor([0.5, 1.0])))
ladj = ct.log_abs_det_jacobian(torch.tensor([0.5]), ct(torch.tensor([0.5])))
# MultivariateNormal with scale_tril
L = torch.tensor([[1.0, 0.0], [0.6, 0.8]], requires_grad=True)
mvn = D.MultivariateNormal(torch.tensor([1.0, -1.0]), scale_tril=L)
mlp = mvn.log_prob(data).mean()
mlp.backward()
gL = L.grad.clone()
torch.manual_seed(2)
mrs = mvn.rsample((4,))
ent = mvn.entropy()
cov = mvn.covariance_matrix
kl = D.kl_divergence(mvn, D.MultivariateNormal(torch.zeros(2), torch.eye(2)))
'''


def _values(v):
    return v.detach().numpy() if hasattr(v, "detach") else np.asarray(v, dtype=np.float64)


def _check(env):
    assert len(env["nlls"]) == 15 and env["nlls"][-1] < env["nlls"][0]
    assert tuple(env["rsamp"].shape) == (3, 2) and tuple(env["mrs"].shape) == (4, 2)
    assert ((env["rsamp"] > 0) & (env["rsamp"] < 1)).all()
    assert env["shapes"] == ((2,), (), (), (2,))


def test_normalizing_flow_runs_with_ember():
    _check(run_script(SCRIPT, ember, np=np, sync=WeightSync()))


@pytest.mark.parity
def test_normalizing_flow_matches_torch(torch):
    want, got = run_both(lambda lib, sync: run_script(SCRIPT, lib, np=np, sync=sync), torch)
    _check(want)
    _check(got)
    for key in ('shapes',):
        assert got[key] == want[key], key
    for key, rtol, atol in (('nlls', 1e-05, 1e-06), ('samples', 1e-05, 1e-06), ('lp', 1e-06, 1e-06), ('gl', 1e-05, 1e-06), ('gs', 1e-05, 1e-06), ('ctinv', 1e-06, 1e-07), ('ladj', 1e-06, 1e-06), ('mlp', 1e-06, 1e-06), ('gL', 1e-05, 1e-06), ('ent', 1e-06, 1e-06), ('cov', 1e-06, 1e-07), ('kl', 1e-06, 1e-06)):
        np.testing.assert_allclose(_values(got[key]), _values(want[key]), rtol=rtol, atol=atol, err_msg=key)
