"""A model using the features of the PyTorch tutorials on autograd and mixed precision, run with `torch` bound
to ember and to torch: torch.utils.checkpoint.checkpoint(use_reentrant=False) around residual blocks,
register_forward_hook / register_full_backward_hook / register_forward_pre_hook on every Linear (and their
removal), torch.autograd.grad(create_graph=True) for a WGAN-style gradient penalty through the checkpointed
blocks, a three-operand einsum with a parameter, torch.cdist (p=2, 1, inf), then a forward and backward under
torch.autocast("cpu", dtype=torch.bfloat16). And the two checkpoint variants side by side: what they warn,
which gradients they give, kwargs and context_fn, RNG replay for dropout, checkpoint_sequential."""
import warnings

import numpy as np
import pytest

import ember
from _porting import WeightSync, outcome, run_both, run_script, torch_fixture  # noqa: F401

SCRIPT = '''
nn, F = torch.nn, torch.nn.functional
checkpoint = torch.utils.checkpoint.checkpoint
torch.manual_seed(0)
rs = np.random.RandomState(0)
x = torch.from_numpy(rs.randn(16, 8).astype(np.float32))
y = torch.from_numpy(rs.randn(16, 4).astype(np.float32))
centers = torch.from_numpy(rs.randn(5, 4).astype(np.float32))

class Block(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.lin1, self.lin2 = nn.Linear(d, 2 * d), nn.Linear(2 * d, d)
        self.norm = nn.LayerNorm(d)
    def forward(self, h):
        return self.norm(h + self.lin2(F.gelu(self.lin1(h))))

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.inp = nn.Linear(8, 16)
        self.blocks = nn.ModuleList([Block(16) for _ in range(2)])
        self.head = nn.Linear(16, 4)
        self.bilinear = nn.Parameter(torch.zeros(4, 4))
    def forward(self, x):
        h = self.inp(x)
        for blk in self.blocks:
            h = checkpoint(blk, h, use_reentrant=False)
        out = self.head(h)
        return out + torch.einsum("bi,ij,bj->b", out, self.bilinear, out).unsqueeze(1)

model = Net()
sync(model)
acts, grads_out, grads_in, calls = {}, {}, {}, []
def fwd_hook(name):
    def hook(module, inp, out):
        calls.append(("fwd", name, torch.is_grad_enabled()))
        acts[name] = out.detach()
    return hook
def bwd_hook(name):
    def hook(module, grad_input, grad_output):
        calls.append(("bwd", name))
        grads_out[name] = grad_output[0].detach().clone()
        grads_in[name] = None if grad_input[0] is None else grad_input[0].detach().clone()
    return hook
handles = []
for name, m in model.named_modules():
    if isinstance(m, nn.Linear):
        handles.append(m.register_forward_hook(fwd_hook(name)))
        handles.append(m.register_full_backward_hook(bwd_hook(name)))
pre_scale = model.head.register_forward_pre_hook(lambda m, args: (args[0] * 1.0,))

opt = torch.optim.Adam(model.parameters(), lr=1e-2)
losses, penalties = [], []
for step in range(5):
    opt.zero_grad()
    xi = x.clone().requires_grad_(True)
    out = model(xi)
    d = torch.cdist(out, centers)           # (16, 5) euclidean distances
    mse = F.mse_loss(out, y)
    loss = mse + 0.01 * d.min(dim=1).values.mean()
    g, = torch.autograd.grad(mse, xi, create_graph=True)
    gp = ((g.norm(2, dim=1) - 1) ** 2).mean()
    (loss + 0.1 * gp).backward()
    opt.step()
    losses.append(loss.item()); penalties.append(gp.item())
for h in handles:
    h.remove()
pre_scale.remove()
n_hooks_after = len(model.head._forward_hooks) + len(model.head._backward_hooks) + len(model.head._forward_pre_hooks)

cd_p1 = torch.cdist(centers, centers, p=1)
cd_inf = torch.cdist(centers.unsqueeze(0), centers.unsqueeze(0), p=float("inf"))
xa = x.clone().requires_grad_(True)
with torch.autocast("cpu", dtype=torch.bfloat16):
    ac_full = model(xa)
    ac_loss = F.mse_loss(ac_full, y)
ac_loss.backward()
ac_info = (ac_full.dtype, ac_loss.dtype, xa.grad.dtype, model.inp.weight.grad.dtype)
with torch.autocast("cpu", dtype=torch.bfloat16):
    ac_out = model.head(torch.ones(2, 16))
    ac_mm = torch.mm(torch.ones(2, 3), torch.ones(3, 2))
    ac_sum = torch.ones(3).sum()
cdist_p1 = cd_p1.sum().item()
cdist_inf_shape = tuple(cd_inf.shape)
ac_dtypes = tuple(str(d).split(".")[-1] for d in (ac_out.dtype, ac_mm.dtype, ac_sum.dtype) + ac_info)
ac_off_after = torch.is_autocast_enabled("cpu")
'''


def _check(env):
    assert len(env["losses"]) == 5 and env["losses"][-1] < env["losses"][0]
    assert env["n_hooks_after"] == 0
    assert sorted(env["grads_out"]) == ["blocks.0.lin1", "blocks.0.lin2", "blocks.1.lin1", "blocks.1.lin2",
                                        "head", "inp"]
    # the first forward runs the checkpointed blocks with grad enabled (non-reentrant), the recomputation again
    assert ("fwd", "blocks.0.lin1", True) in env["calls"][:6]
    assert env["calls"].count(("fwd", "blocks.0.lin1", True)) == 5 * 3
    assert env["ac_dtypes"] == ("bfloat16", "bfloat16", "float32", "bfloat16", "float32", "float32", "float32")
    assert env["ac_off_after"] is False


def test_checkpoint_hooks_gradient_penalty_with_ember():
    _check(run_script(SCRIPT, ember, np=np, sync=WeightSync()))


@pytest.mark.parity
def test_checkpoint_hooks_gradient_penalty_match_torch(torch):
    want, got = run_both(lambda lib, sync: run_script(SCRIPT, lib, np=np, sync=sync), torch)
    _check(want)
    _check(got)
    np.testing.assert_allclose(got["losses"], want["losses"], rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(got["penalties"], want["penalties"], rtol=1e-4, atol=1e-6)
    assert got["calls"] == want["calls"]
    for name in want["grads_out"]:
        np.testing.assert_allclose(got["grads_out"][name].numpy(), want["grads_out"][name].numpy(), rtol=1e-3,
                                   atol=1e-5)
    assert got["cdist_p1"] == pytest.approx(want["cdist_p1"], rel=1e-6)
    assert got["cdist_inf_shape"] == want["cdist_inf_shape"]
    assert got["ac_dtypes"] == want["ac_dtypes"]
    np.testing.assert_allclose(got["ac_full"].float().detach().numpy(), want["ac_full"].float().detach().numpy(),
                               rtol=0.02, atol=0.02)


def _variants(t):
    ck = t.utils.checkpoint
    lin = t.nn.Linear(3, 3)
    with t.no_grad():
        lin.weight.copy_(t.arange(9.).reshape(3, 3) / 10)
        lin.bias.fill_(0.1)
    x = t.ones(2, 3)
    res = {}
    for ur in (False, True, None):
        lin.zero_grad()
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            y = ck.checkpoint(lin, x) if ur is None else ck.checkpoint(lin, x, use_reentrant=ur)
        if y.requires_grad:
            y.sum().backward()
        res[ur] = (y.requires_grad, [str(m.message)[:40] for m in w], lin.weight.grad is not None)
    res["kwargs_reentrant"] = outcome(lambda: ck.checkpoint(lambda a, scale: a * scale, x, scale=2.0,
                                                            use_reentrant=True))
    res["kwargs"] = outcome(lambda: ck.checkpoint(lambda a, scale: a * scale, x, scale=2.0,
                                                  use_reentrant=False).tolist())
    res["context_fn_reentrant"] = outcome(lambda: ck.checkpoint(lin, x, use_reentrant=True, debug=True))
    # create_graph through the recomputation: a gradient penalty's second-order terms reach the parameters
    xi = t.ones(2, 3, requires_grad=True)
    f = lambda a: t.nn.functional.layer_norm(t.tanh(lin(a)) * 2, (3,)).exp()      # noqa: E731
    grads = []
    for use in (False, True):
        lin.zero_grad()
        xi.grad = None
        y = ck.checkpoint(f, xi, use_reentrant=False) if use else f(xi)
        g, = t.autograd.grad(y.pow(2).sum(), xi, create_graph=True)
        (g.pow(2).sum() + y.sum()).backward()
        grads.append((lin.weight.grad.numpy().copy(), xi.grad.numpy().copy()))
    res["create_graph_close"] = all(np.allclose(a, b, rtol=1e-5, atol=1e-6) for a, b in zip(*grads))
    # dropout inside: the recomputation replays the forward's mask
    t.manual_seed(3)
    d = t.nn.Dropout(0.5)
    xd = t.ones(4, 8, requires_grad=True)
    y = ck.checkpoint(d, xd, use_reentrant=False)
    y.sum().backward()
    res["dropout_replayed"] = bool(((y.detach() != 0) == (xd.grad != 0)).all())
    seq = t.nn.Sequential(*[t.nn.Linear(3, 3) for _ in range(5)])
    out = ck.checkpoint_sequential(seq, 2, xi, use_reentrant=False)
    out.sum().backward()
    res["sequential"] = (all(p.grad is not None for p in seq.parameters()), out.grad_fn.name())
    return res


@pytest.mark.parity
def test_checkpoint_variants_match_torch(torch):
    """ember's checkpoint was the reentrant variant whatever use_reentrant said: with no input requiring grad
    the parameters got no gradient (silently), a create_graph gradient did not reach them, hooks inside saw
    grad mode off."""
    got, want = _variants(ember), _variants(torch)
    assert got.keys() == want.keys()
    for k in want:
        if isinstance(want[k], tuple) and want[k][0] == "raise":
            assert got[k][:2] == want[k][:2] and got[k][2] == want[k][2]
        else:
            assert got[k] == want[k], k


def _double_backward_under_hooks(t):
    import contextlib
    w = t.nn.Parameter(t.tensor([[0.5, -0.3], [0.2, 0.8]]))
    x = t.tensor([[1.0, 2.0]], requires_grad=True)
    hooks = {"plain": contextlib.nullcontext, "save_on_cpu": t.autograd.graph.save_on_cpu,
             "detach": lambda: t.autograd.graph.saved_tensors_hooks(lambda a: a.detach(), lambda a: a),
             "clone": lambda: t.autograd.graph.saved_tensors_hooks(lambda a: a.clone(), lambda a: a)}
    res = {}
    for name, ctx in hooks.items():
        w.grad = x.grad = None
        with ctx():
            h = x @ w
            y = (t.tanh(h).exp() * h.sigmoid()).sum()
        g, = t.autograd.grad(y, x, create_graph=True)
        (g ** 2).sum().backward()
        res[name] = (g.requires_grad, w.grad.numpy().copy(), x.grad.numpy().copy())
    return res


@pytest.mark.parity
def test_double_backward_through_unpack_hooks_matches_torch(torch):
    """A saved tensor's unpack hook result is given the saved tensor's place in the graph (torch's
    SavedVariable): with save_on_cpu or a detaching hook the gradient of a gradient used to come out without
    history (or wrong), which non-reentrant checkpointing relies on too."""
    got, want = _double_backward_under_hooks(ember), _double_backward_under_hooks(torch)
    for name in want:
        assert got[name][0] is want[name][0] is True
        np.testing.assert_allclose(got[name][1], want[name][1], rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(got[name][2], want[name][2], rtol=1e-5, atol=1e-6)
