"""Worker for test_ddp: DDP gradients equal single-process training on the concatenated batch; no_sync,
find_unused_parameters, buffer broadcast, parameter broadcast at construction, state_dict keys, sampler."""
import sys

import numpy as np

import ember
import ember.distributed as dist
from ember import nn

dist.init_process_group("gloo")
rank, n = dist.get_rank(), dist.get_world_size()
checks = failures = 0


def check(cond, what):
    global checks, failures
    checks += 1
    if not cond:
        failures += 1
        print(f"FAIL rank {rank}: {what}", flush=True)


def make():
    ember.manual_seed(0)
    return nn.Sequential(nn.Linear(5, 16), nn.ReLU(), nn.Linear(16, 3))


ember.manual_seed(100)
X, Y = ember.randn(8 * n, 5), ember.randn(8 * n, 3)
ref = make()
model = make()
if rank != 0:                               # DDP must broadcast rank 0's parameters
    with ember.no_grad():
        for p in model.parameters():
            p.add_(1.0)
ddp = nn.parallel.DistributedDataParallel(model, bucket_cap_mb=0.0002)     # several small buckets
check(len(ddp._buckets) > 1, "several buckets")
check(all(np.array_equal(a.detach().numpy(), b.detach().numpy()) for a, b in zip(ref.parameters(), model.parameters())),
      "parameters broadcast at construction")
check(list(ddp.state_dict())[0].startswith("module."), "state_dict keys have the module. prefix")
opt = ember.optim.SGD(ddp.parameters(), lr=0.1)
ref_opt = ember.optim.SGD(ref.parameters(), lr=0.1)
lo, hi = rank * 8, rank * 8 + 8
for step in range(3):
    opt.zero_grad()
    nn.functional.mse_loss(ddp(X[lo:hi]), Y[lo:hi]).backward()
    ref_opt.zero_grad()
    nn.functional.mse_loss(ref(X), Y).backward()
    for (name, p), q in zip(model.named_parameters(), ref.parameters()):
        check(np.allclose(p.grad.numpy(), q.grad.numpy(), atol=1e-6), f"step {step} grad {name}")
    opt.step()
    ref_opt.step()
check(all(np.allclose(a.detach().numpy(), b.detach().numpy(), atol=1e-6)
          for a, b in zip(ref.parameters(), model.parameters())), "parameters after 3 steps")

# no_sync: two micro-batches accumulate locally, then one synced backward
opt.zero_grad()
ref_opt.zero_grad()
half = 4
with ddp.no_sync():
    nn.functional.mse_loss(ddp(X[lo:lo + half]), Y[lo:lo + half]).backward()
local = [p.grad.numpy().copy() for p in model.parameters()]
nn.functional.mse_loss(ddp(X[lo + half:hi]), Y[lo + half:hi]).backward()
for i in range(n):
    a, b = i * 8, i * 8 + 8
    nn.functional.mse_loss(ref(X[a:a + half]), Y[a:a + half]).backward()
    nn.functional.mse_loss(ref(X[a + half:b]), Y[a + half:b]).backward()
check(all(np.allclose(p.grad.numpy(), q.grad.numpy() / n, atol=1e-5) for p, q in zip(model.parameters(),
                                                                                    ref.parameters())),
      "no_sync accumulation then sync")
check(n == 1 or not np.allclose(local[0], model[0].weight.grad.numpy()), "no_sync kept gradients local")


# find_unused_parameters: rank 0 uses a branch the others do not
class Branchy(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(3, 2)
        self.b = nn.Linear(3, 2)

    def forward(self, x, use_b):
        return self.a(x) + (self.b(x) if use_b else 0)


ember.manual_seed(1)
br = Branchy()
dbr = nn.parallel.DistributedDataParallel(br, find_unused_parameters=True)
x = ember.ones(2, 3) * (rank + 1)
dbr(x, rank == 0).sum().backward()
gb = br.b.weight.grad.numpy()
check(np.allclose(gb, (ember.ones(2, 3).sum(0).expand(2, 3).numpy()) / n), f"unused branch grad averaged {gb}")
dbr(x, rank == 0).sum().backward()          # a second iteration works (reduction finished)

# buffers: rank 0's BatchNorm running stats are broadcast at forward
bn = nn.BatchNorm1d(3)
dbn = nn.parallel.DistributedDataParallel(nn.Sequential(nn.Linear(3, 3), bn))
with ember.no_grad():
    bn.running_mean.fill_(float(rank + 5))
dbn.train()
dbn(ember.zeros(4, 3))
rm = bn.running_mean.numpy().copy()
allrm = [ember.zeros(3) for _ in range(n)]
dist.all_gather(allrm, bn.running_mean)
check(all(np.allclose(r.numpy(), rm) for r in allrm), "buffers broadcast before forward")

# DistributedSampler: disjoint shares covering the dataset
from ember.utils.data import DistributedSampler  # noqa: E402
s = DistributedSampler(list(range(10)), shuffle=True, seed=3)
s.set_epoch(1)
mine = list(s)
shares = [None] * n
dist.all_gather_object(shares, mine)
flat = sorted(sum(shares, []))
check(len(mine) == -(-10 // n) and set(flat) == set(range(10)) and len(flat) == len(mine) * n, f"sampler {shares}")
# distributed checkpoint: every rank writes its piece; the test loads it in one process (another world size)
if len(sys.argv) > 1:
    import ember.distributed.checkpoint as dcp
    sd = {"w": ember.arange(30.).reshape(10, 3), "b": ember.ones(5, dtype=ember.int64) * 7, "step": 3,
          "name": "x", "nested": {"m": ember.arange(4.), "lst": [1, 2]}, "scalar": ember.tensor(2.5),
          "model": ddp.state_dict()}
    meta = dcp.save(sd, checkpoint_id=sys.argv[1])
    check(len(meta["entries"]["w"]["pieces"]) == n, "one piece per rank")
    back = {"w": ember.zeros(10, 3), "b": ember.zeros(5, dtype=ember.int64), "step": 0, "name": "",
            "nested": {"m": ember.zeros(4), "lst": []}, "scalar": ember.tensor(0.0)}
    dcp.load(back, checkpoint_id=sys.argv[1])
    check(back["w"].tolist() == sd["w"].tolist() and back["b"].tolist() == [7] * 5 and back["step"] == 3
          and back["nested"]["lst"] == [1, 2] and back["scalar"].item() == 2.5, "dcp load at the same world size")
dist.destroy_process_group()
print(f"CHECKS {checks} FAILURES {failures}", flush=True)
sys.exit(1 if failures else 0)
