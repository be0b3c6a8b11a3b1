"""The digits CNN of train_digits.py trained data-parallel: an ordinary torch DDP script with `import ember as torch`.

    ember-run --nproc-per-node 2 examples/train_digits_ddp.py            # or: python -m ember.distributed.run ...
    ember-run --nproc-per-node 2 examples/train_digits_ddp.py --quick    # a few steps (CI); or EMBER_QUICK=1

Each rank trains on its DistributedSampler share of every epoch; DistributedDataParallel averages the gradients,
so the ranks' models stay identical.  Rank 0 reports the test accuracy and saves a checkpoint whose keys carry
DDP's `module.` prefix, as torch's do.
"""
import argparse
import os
import sys
import time

import ember as torch
import ember.nn.functional as F
from ember.nn.parallel import DistributedDataParallel as DDP
from ember.utils.data import DataLoader
from ember.utils.data.distributed import DistributedSampler

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from train_digits import DigitsCNN, evaluate, load_data  # noqa: E402

dist = torch.distributed


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--epochs", type=int, default=12)
    ap.add_argument("--batch-size", type=int, default=16, help="per rank")
    ap.add_argument("--lr", type=float, default=2e-3)
    ap.add_argument("--quick", action="store_true", default=os.environ.get("EMBER_QUICK") == "1")
    args = ap.parse_args(argv)
    dist.init_process_group("gloo")
    rank, world = dist.get_rank(), dist.get_world_size()
    torch.manual_seed(0)
    train_ds, test_ds = load_data()
    sampler = DistributedSampler(train_ds, shuffle=True, seed=0)
    train = DataLoader(train_ds, batch_size=args.batch_size, sampler=sampler)
    test = DataLoader(test_ds, batch_size=256)
    model = DDP(DigitsCNN())
    opt = torch.optim.Adam(model.parameters(), lr=args.lr)
    epochs = 1 if args.quick else args.epochs
    max_steps = 20 if args.quick else None
    start = time.time()
    acc = 0.0
    for epoch in range(1, epochs + 1):
        sampler.set_epoch(epoch)
        model.train()
        total = torch.zeros(2)
        for i, (xb, yb) in enumerate(train, 1):
            loss = F.cross_entropy(model(xb), yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += torch.tensor([loss.item() * yb.shape[0], float(yb.shape[0])])
            if max_steps is not None and i >= max_steps:
                break
        dist.all_reduce(total)
        acc = evaluate(model.module, test)
        if rank == 0:
            print(f"epoch {epoch:2d}/{epochs} | train loss {(total[0] / total[1]).item():.4f} | test accuracy "
                  f"{acc * 100:.2f}% | {world} ranks | {time.time() - start:.1f}s", flush=True)
    # the replicas are identical: check it as DDP promises
    flat = torch.cat([p.detach().reshape(-1) for p in model.parameters()])
    hi, lo = flat.clone(), flat.clone()
    dist.all_reduce(hi, op=dist.ReduceOp.MAX)
    dist.all_reduce(lo, op=dist.ReduceOp.MIN)
    assert bool((hi == lo).all()), "replicas diverged"
    if rank == 0:
        keys = list(model.state_dict())
        print(f"replicas identical; checkpoint keys start with {keys[0]!r}; final test accuracy {acc * 100:.2f}%")
    dist.destroy_process_group()
    return acc


if __name__ == "__main__":
    main()
