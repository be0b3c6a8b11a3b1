"""A torchrun-style DDP program (the pytorch/examples ddp tutorial's shape), run under ember-run or torchrun.
PORT_LIB names the library bound to `torch`; PORT_OUT is the folder for rank 0's checkpoint and results."""
import importlib
import json
import os
import sys

import numpy as np

torch = importlib.import_module(os.environ.get("PORT_LIB", "torch"))
nn = torch.nn
dist = torch.distributed
DDP = torch.nn.parallel.DistributedDataParallel
DistributedSampler = torch.utils.data.distributed.DistributedSampler
SHUFFLE = os.environ.get("PORT_SHUFFLE") == "1"     # the libraries draw different permutations


class ToyModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.net1 = nn.Linear(10, 16)
        self.relu = nn.ReLU()
        self.net2 = nn.Linear(16, 3)

    def forward(self, x):
        return self.net2(self.relu(self.net1(x)))


def main():
    dist.init_process_group(backend="gloo")
    rank, world = dist.get_rank(), dist.get_world_size()
    local_rank = int(os.environ["LOCAL_RANK"])
    assert rank == int(os.environ["RANK"]) and world == int(os.environ["WORLD_SIZE"]) == 2
    torch.set_num_threads(1)
    rs = np.random.RandomState(0)
    X = torch.from_numpy(rs.randn(40, 10).astype(np.float32))
    Y = torch.from_numpy(rs.randint(3, size=40))
    model = ToyModel()
    with torch.no_grad():            # the same start in both libraries (and on both ranks before DDP's broadcast)
        for p in model.parameters():
            p.copy_(torch.from_numpy(rs.randn(*p.shape).astype(np.float32) * 0.3))
    ddp_model = DDP(model)
    ds = torch.utils.data.TensorDataset(X, Y)
    sampler = DistributedSampler(ds, shuffle=SHUFFLE, seed=7)
    loader = torch.utils.data.DataLoader(ds, batch_size=5, sampler=sampler)
    opt = torch.optim.SGD(ddp_model.parameters(), lr=0.1, momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()
    losses, seen = [], []
    for epoch in range(3):
        sampler.set_epoch(epoch)
        seen.append([int(i) for i in sampler])
        for x, y in loader:
            opt.zero_grad()
            loss = loss_fn(ddp_model(x), y)
            loss.backward()
            opt.step()
            t = loss.detach().clone()
            dist.all_reduce(t, op=dist.ReduceOp.SUM)
            losses.append(t.item() / world)
    gathered = [None] * world
    dist.all_gather_object(gathered, seen)
    w = ddp_model.module.net2.weight.detach().clone()
    ws = [torch.zeros_like(w) for _ in range(world)]
    dist.all_gather(ws, w)
    same = all(torch.equal(ws[0], v) for v in ws)
    out = os.environ["PORT_OUT"]
    if rank == 0:
        torch.save(ddp_model.state_dict(), os.path.join(out, "checkpoint.pt"))
    dist.barrier()
    map_location = {"cuda:%d" % 0: "cpu:%d" % local_rank}
    sd = torch.load(os.path.join(out, "checkpoint.pt"), map_location=map_location, weights_only=True)
    ddp_model.load_state_dict(sd)
    if rank == 0:
        with open(os.path.join(out, "result.json"), "w") as f:
            json.dump({"losses": losses, "seen": gathered, "same": same, "keys": sorted(sd),
                       "w": w.numpy().tolist()}, f)
    dist.destroy_process_group()


if __name__ == "__main__":
    sys.exit(main())
