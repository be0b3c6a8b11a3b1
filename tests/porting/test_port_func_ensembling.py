"""The torch.func tutorials on per-sample gradients and model ensembling, run with `torch` bound to ember and
to torch: vmap(grad(...)) over functional_call of a small CNN checked against a loop of backward() calls,
stack_module_state with a base model moved to 'meta', vmap over (params, buffers, data) with in_dims
0 and None, and jacrev / vmap(jacrev) / hessian / jacfwd of a small function."""
import math

import numpy as np
import pytest

import ember
from _porting import WeightSync, run_both, run_script, torch_fixture  # noqa: F401  (the `torch` fixture)

SCRIPT = '''
nn = torch.nn
F = torch.nn.functional
functional_call, vmap, grad, jacrev, stack_module_state = torch.func.functional_call, torch.func.vmap, torch.func.grad, torch.func.jacrev, torch.func.stack_module_state
import copy
torch.manual_seed(0)
rs = np.random.RandomState(0)
class SimpleCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 4, 3, 1)
        self.fc1 = nn.Linear(4 * 3 * 3, 5)
    def forward(self, x):
        x = F.relu(self.conv1(x))
        x = F.max_pool2d(x, 2)
        x = torch.flatten(x, 1)
        return F.log_softmax(self.fc1(x), dim=1)
model = SimpleCNN()
sync(model)
data = torch.from_numpy(rs.randn(6, 1, 8, 8).astype(np.float32))
targets = torch.from_numpy(rs.randint(5, size=6))
params = {k: v.detach() for k, v in model.named_parameters()}
buffers = {k: v.detach() for k, v in model.named_buffers()}
def compute_loss(params, buffers, sample, target):
    batch = sample.unsqueeze(0)
    targets = target.unsqueeze(0)
    predictions = functional_call(model, (params, buffers), (batch,))
    return F.nll_loss(predictions, targets)
ft_compute_grad = grad(compute_loss)
ft_compute_sample_grad = vmap(ft_compute_grad, in_dims=(None, None, 0, 0))
ft_per_sample_grads = ft_compute_sample_grad(params, buffers, data, targets)
loop_grads = []
for i in range(6):
    model.zero_grad()
    F.nll_loss(model(data[i:i+1]), targets[i:i+1]).backward()
    loop_grads.append(model.fc1.weight.grad.clone())
psg_err = (ft_per_sample_grads["fc1.weight"] - torch.stack(loop_grads)).abs().max().item()
psg = ft_per_sample_grads["conv1.weight"]
# ensembling
class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(8, 16); self.fc2 = nn.Linear(16, 3)
    def forward(self, x):
        return self.fc2(F.relu(self.fc1(x.flatten(1))))
models = [MLP() for _ in range(3)]
for m in models: sync(m)
minibatches = torch.from_numpy(rs.randn(3, 4, 8).astype(np.float32))
params, buffers = stack_module_state(models)
base_model = copy.deepcopy(models[0]).to('meta')
def fmodel(params, buffers, x):
    return functional_call(base_model, (params, buffers), (x,))
pred_diff = vmap(fmodel)(params, buffers, minibatches)
pred_same = vmap(fmodel, in_dims=(0, 0, None))(params, buffers, minibatches[0])
ref = torch.stack([m(minibatches[0]) for m in models])
ens_err = (pred_same - ref).abs().max().item()
# jacrev
def f(x):
    return x.sin() * x.sum()
xx = torch.linspace(0.1, 1.0, 4)
jac = jacrev(f)(xx)
jac2 = vmap(jacrev(f))(torch.stack([xx, xx * 2]))
hess = torch.func.hessian(lambda x: (x ** 3).sum())(xx)
jf = torch.func.jacfwd(f)(xx)
'''


def _values(v):
    return v.detach().numpy() if hasattr(v, "detach") else np.asarray(v, dtype=np.float64)


def _check(env):
    assert env["psg_err"] < 1e-6 and env["ens_err"] < 1e-6
    assert tuple(env["psg"].shape) == (6, 4, 1, 3, 3) and tuple(env["pred_diff"].shape) == (3, 4, 3)
    assert tuple(env["jac2"].shape) == (2, 4, 4) and tuple(env["hess"].shape) == (4, 4)


def test_func_ensembling_runs_with_ember():
    _check(run_script(SCRIPT, ember, np=np, sync=WeightSync()))


@pytest.mark.parity
def test_func_ensembling_matches_torch(torch):
    want, got = run_both(lambda lib, sync: run_script(SCRIPT, lib, np=np, sync=sync), torch)
    _check(want)
    _check(got)
    for key in ():
        assert got[key] == want[key], key
    for key, rtol, atol in (('psg', 1e-05, 1e-06), ('pred_diff', 1e-05, 1e-06), ('jac', 1e-06, 1e-06), ('jac2', 1e-06, 1e-06), ('hess', 1e-06, 1e-06), ('jf', 1e-06, 1e-06)):
        np.testing.assert_allclose(_values(got[key]), _values(want[key]), rtol=rtol, atol=atol, err_msg=key)


def _vmap_edges(lib):
    from _porting import outcome
    f, F = lib.func, lib.nn.functional
    x = lib.ones(2, 3)
    lib.manual_seed(0)
    same = f.vmap(lambda t: t + lib.rand(()), randomness="same")(x)
    diff = f.vmap(lambda t: t + lib.rand(()), randomness="different")(x)

    def named(t):
        return t

    return [outcome(lambda: f.vmap(named, in_dims=2)(x)), outcome(lambda: f.vmap(lambda t: t, in_dims=-3)(x)),
            outcome(lambda: f.vmap(lambda a, b: a, in_dims=(0, 0))(x, 3)),
            tuple(f.vmap(lambda a, b: a * b, in_dims=(0, None))(x, 3).shape),
            outcome(lambda: f.vmap(lambda t: t + lib.rand(1))(x)),
            outcome(lambda: f.vmap(lambda t: F.dropout(t, 0.5), randomness="error")(x)),
            tuple(f.vmap(lambda t: F.dropout(t, 0.5, training=False))(x).shape),
            outcome(lambda: f.vmap(lambda t: t, randomness="foo")(x)),
            bool((same == same[0, 0]).all()), bool(diff[0, 0] != diff[1, 0])]


@pytest.mark.parity
def test_vmap_in_dims_and_randomness_as_torch(torch):
    """vmap's checks of in_dims (a dimension out of range, a non-tensor input) and its randomness modes:
    "error" (the default) refuses a random op, "same" gives every sample the same draws, "different" not."""
    assert _vmap_edges(ember) == _vmap_edges(torch)
