"""The parametrizations and pruning tutorials, run with `torch` bound to ember and to torch:
register_parametrization (Symmetric; Skew then MatrixExponential), parametrized names and state_dict keys,
training through it, parametrize.cached(), remove_parametrizations; weight_norm and spectral_norm in both the
parametrizations API and the old hook API (state_dict keys, outputs, sigma ~ 1 after power iterations),
orthogonal; nn.utils.prune random/l1_unstructured, ln_structured, remove, global_unstructured, is_pruned,
identity (torch does not import nn.utils.prune with torch.nn: the script imports it by name)."""
import math

import numpy as np
import pytest

import ember
from _porting import WeightSync, run_both, run_script, torch_fixture  # noqa: F401  (the `torch` fixture)

SCRIPT = '''
nn = torch.nn
P = torch.nn.utils.parametrize
import importlib
prune = importlib.import_module(torch.__name__ + ".nn.utils.prune")
torch.manual_seed(0)
rs = np.random.RandomState(0)
class Symmetric(nn.Module):
    def forward(self, X):
        return X.triu() + X.triu(1).transpose(-1, -2)
class MatrixExponential(nn.Module):
    def forward(self, X):
        return torch.matrix_exp(X)
class Skew(nn.Module):
    def forward(self, X):
        A = X.triu(1)
        return A - A.transpose(-1, -2)
    def right_inverse(self, A):
        return A.triu(1)
layer = nn.Linear(4, 4)
sync(layer)
P.register_parametrization(layer, "weight", Symmetric())
sym_ok = torch.allclose(layer.weight, layer.weight.T)
names = sorted(k for k, _ in layer.named_parameters())
sd_keys = sorted(layer.state_dict())
orig = layer.parametrizations.weight.original.detach().clone()
is_p = (P.is_parametrized(layer), P.is_parametrized(layer, "weight"), P.is_parametrized(layer, "bias"))
rep = repr(layer)
x = torch.from_numpy(rs.randn(3, 4).astype(np.float32))
opt = torch.optim.SGD(layer.parameters(), lr=0.1)
ls = []
for _ in range(3):
    loss = layer(x).pow(2).sum(); opt.zero_grad(); loss.backward(); opt.step(); ls.append(loss.item())
with P.cached():
    w1 = layer.weight; w2 = layer.weight
cached_same = w1 is w2
P.remove_parametrizations(layer, "weight", leave_parametrized=True)
after_remove = type(layer.weight).__name__
l2 = nn.Linear(3, 3); sync(l2)
P.register_parametrization(l2, "weight", Skew())
P.register_parametrization(l2, "weight", MatrixExponential())
orth = (l2.weight @ l2.weight.T)
skw_err = None
skw = l2.weight
# weight_norm / spectral_norm (new and old APIs)
wn = nn.utils.parametrizations.weight_norm(nn.Linear(4, 3)); sync(wn)
wn_keys = sorted(wn.state_dict())
g0 = wn.parametrizations.weight.original0
wn_out = wn(x)
owl = nn.Linear(4, 3); sync(owl)
import warnings
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    owl = nn.utils.weight_norm(owl, name="weight", dim=0)
own_keys = sorted(owl.state_dict())
own_out = owl(x)
owl = nn.utils.remove_weight_norm(owl)
sn = nn.Linear(4, 5); sync(sn)
sn = nn.utils.parametrizations.spectral_norm(sn)
sn_keys = sorted(sn.state_dict())
torch.manual_seed(3)
sn.train()
for _ in range(5):
    sn(x)
sn.eval()
sigma = torch.linalg.matrix_norm(sn.weight, 2).item()
old_sn = nn.Linear(4, 5); sync(old_sn)
old_sn = nn.utils.spectral_norm(old_sn, n_power_iterations=3)
old_sn_keys = sorted(old_sn.state_dict())
orth_l = nn.utils.parametrizations.orthogonal(nn.Linear(4, 4))
oo = (orth_l.weight @ orth_l.weight.T - torch.eye(4)).abs().max().item() < 1e-5
# pruning
conv = nn.Conv2d(2, 4, 3); sync(conv)
prune.random_unstructured(conv, name="weight", amount=0.3)
prune.l1_unstructured(conv, name="bias", amount=2)
pr_keys = sorted(conv.state_dict())
bias_mask = conv.bias_mask.clone()
prune.ln_structured(conv, name="weight", amount=0.5, n=2, dim=0)
zero_rows = int((conv.weight.flatten(1).abs().sum(1) == 0).sum())
hooks = len(conv._forward_pre_hooks)
prune.remove(conv, "weight")
pr_after = sorted(k for k, _ in conv.named_parameters())
m2 = nn.Sequential(nn.Linear(4, 8), nn.Linear(8, 2)); sync(m2)
prune.global_unstructured([(m2[0], "weight"), (m2[1], "weight")], pruning_method=prune.L1Unstructured, amount=0.4)
sparsity = float((m2[0].weight == 0).sum() + (m2[1].weight == 0).sum()) / 48
is_pruned = prune.is_pruned(m2)
ident = nn.Linear(2, 2); prune.identity(ident, "weight")
'''


def _values(v):
    return v.detach().numpy() if hasattr(v, "detach") else np.asarray(v, dtype=np.float64)


def _check(env):
    assert env["sym_ok"] and env["cached_same"] and env["oo"] and env["is_pruned"]
    assert env["after_remove"] == "Parameter" and env["zero_rows"] == 2
    assert abs(env["sigma"] - 1) < 1e-3


def test_parametrize_prune_runs_with_ember():
    _check(run_script(SCRIPT, ember, np=np, sync=WeightSync()))


@pytest.mark.parity
def test_parametrize_prune_matches_torch(torch):
    want, got = run_both(lambda lib, sync: run_script(SCRIPT, lib, np=np, sync=sync), torch)
    _check(want)
    _check(got)
    for key in ('names', 'sd_keys', 'is_p', 'wn_keys', 'own_keys', 'sn_keys', 'old_sn_keys', 'pr_keys', 'hooks', 'pr_after', 'sparsity', 'zero_rows'):
        assert got[key] == want[key], key
    for key, rtol, atol in (('ls', 1e-05, 1e-06), ('orth', 1e-05, 1e-06), ('skw', 1e-05, 1e-06), ('g0', 1e-06, 1e-07), ('wn_out', 1e-05, 1e-06), ('own_out', 1e-05, 1e-06), ('sigma', 1e-05, 0)):
        np.testing.assert_allclose(_values(got[key]), _values(want[key]), rtol=rtol, atol=atol, err_msg=key)
