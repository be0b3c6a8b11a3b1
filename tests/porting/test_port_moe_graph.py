"""A mixture-of-experts layer and a message-passing graph layer on synthetic data, run with `torch` bound to
ember and to torch: top-k routing (softmax with dtype, topk, F.one_hot, torch.where on the mask),
index_add_ of expert outputs, bincount counts and a Switch-style load-balancing loss, scatter_add_ and
gather; then index_select messages reduced with scatter_reduce("amax", include_self=False) plus mean
aggregation through a dense adjacency built with index_put_(accumulate=True) (ember has no sparse
tensors: torch.sparse_coo_tensor raises an error naming it), and scatter_reduce("mean")."""
import math

import numpy as np
import pytest

import ember
from _porting import WeightSync, run_both, run_script, torch_fixture  # noqa: F401  (the `torch` fixture)

SCRIPT = '''
nn = torch.nn
F = torch.nn.functional
torch.manual_seed(0)
rs = np.random.RandomState(0)
D, E, K, N = 8, 4, 2, 32
X = torch.from_numpy(rs.randn(N, D).astype(np.float32))
Y = torch.from_numpy(rs.randn(N, D).astype(np.float32))

class MoE(nn.Module):
    def __init__(self):
        super().__init__()
        self.gate = nn.Linear(D, E, bias=False)
        self.experts = nn.ModuleList([nn.Sequential(nn.Linear(D, 16), nn.GELU(), nn.Linear(16, D)) for _ in range(E)])
    def forward(self, x):
        logits = self.gate(x)
        probs = F.softmax(logits, dim=-1, dtype=torch.float)
        w, idx = torch.topk(probs, K, dim=-1)
        w = w / w.sum(dim=-1, keepdim=True)
        out = torch.zeros_like(x)
        flat_idx = idx.flatten()
        counts = torch.bincount(flat_idx, minlength=E)
        mask = F.one_hot(idx, num_classes=E).permute(2, 1, 0)
        for e, expert in enumerate(self.experts):
            kk, tok = torch.where(mask[e])
            if tok.numel() == 0:
                continue
            y = expert(x[tok]) * w[tok, kk, None]
            out.index_add_(0, tok, y.to(x.dtype))
        # load-balancing loss (Switch style)
        frac = counts.float() / flat_idx.numel()
        lb = E * (frac * probs.mean(0)).sum()
        # the same via scatter_add_ and gather
        out2 = torch.zeros(N, D).scatter_add_(0, torch.arange(N)[:, None].expand(N, D), out)
        gp = probs.gather(1, idx)
        return out2, lb, counts, gp

model = MoE()
sync(model)
opt = torch.optim.AdamW(model.parameters(), lr=1e-2)
losses, lbs, cnts = [], [], []
for step in range(6):
    out, lb, counts, gp = model(X)
    loss = F.mse_loss(out, Y) + 0.01 * lb
    opt.zero_grad()
    loss.backward()
    opt.step()
    losses.append(loss.item()); lbs.append(lb.item()); cnts.append(counts.tolist())

# graph network: mean/max message passing
nn_, ne = 10, 30
src = torch.from_numpy(rs.randint(nn_, size=ne)); dst = torch.from_numpy(rs.randint(nn_, size=ne))
edge_index = torch.stack([src, dst])
feat = torch.from_numpy(rs.randn(nn_, 5).astype(np.float32))
lin = nn.Linear(5, 5)
sync(lin)
adj = torch.zeros(nn_, nn_).index_put_((dst, src), torch.ones(ne), accumulate=True)
deg = adj.sum(1).clamp(min=1)
gopt = torch.optim.Adam(lin.parameters(), lr=0.05)
glosses = []
for step in range(5):
    h = lin(feat)
    msg = h.index_select(0, src)
    agg = torch.zeros(nn_, 5).scatter_reduce(0, dst[:, None].expand(-1, 5), msg, reduce="amax", include_self=False)
    aggm = (adj @ h) / deg[:, None]
    loss = (agg.relu() + aggm).pow(2).mean()
    gopt.zero_grad(); loss.backward(); gopt.step()
    glosses.append(loss.item())
nnz = int(torch.count_nonzero(adj))
sr = torch.zeros(3).scatter_reduce(0, torch.tensor([0, 0, 2]), torch.tensor([1., 2., 3.]), reduce="mean")
'''


def _values(v):
    return v.detach().numpy() if hasattr(v, "detach") else np.asarray(v, dtype=np.float64)


def _check(env):
    assert len(env["losses"]) == 6 and all(math.isfinite(v) for v in env["losses"] + env["glosses"])
    assert all(sum(c) == 64 for c in env["cnts"])
    assert env["nnz"] <= 30


def test_moe_graph_runs_with_ember():
    _check(run_script(SCRIPT, ember, np=np, sync=WeightSync()))


@pytest.mark.parity
def test_moe_graph_matches_torch(torch):
    want, got = run_both(lambda lib, sync: run_script(SCRIPT, lib, np=np, sync=sync), torch)
    _check(want)
    _check(got)
    for key in ('cnts', 'nnz'):
        assert got[key] == want[key], key
    for key, rtol, atol in (('losses', 1e-05, 1e-06), ('lbs', 1e-05, 1e-06), ('glosses', 1e-05, 1e-06), ('sr', 0, 0)):
        np.testing.assert_allclose(_values(got[key]), _values(want[key]), rtol=rtol, atol=atol, err_msg=key)


def test_sparse_tensors_are_refused_by_name():
    """A graph script's sparse adjacency (torch.sparse_coo_tensor / torch.sparse.mm / layout=torch.sparse_coo)
    meets an error naming the torch feature ember lacks, never a silently dense tensor."""
    x = ember.eye(3)
    with pytest.raises(NotImplementedError, match="torch.sparse_coo_tensor"):
        ember.sparse_coo_tensor(ember.tensor([[0, 1], [1, 2]]), ember.ones(2), (3, 3))
    with pytest.raises(NotImplementedError, match="torch.sparse yet"):
        ember.sparse.mm(x, x)
    with pytest.raises(NotImplementedError, match="torch.sparse_coo tensors"):
        ember.zeros(3, 3, layout=ember.sparse_coo)
    assert not x.is_sparse and x.layout is ember.strided
