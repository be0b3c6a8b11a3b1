"""Worker for test_rendezvous: init by the method in argv[1], one all_reduce, a barrier, destroy; prints RESULT."""
import os
import sys
from datetime import timedelta

import ember
import ember.distributed as dist

method = sys.argv[1]
kw = {}
if method != "env://":
    kw = dict(rank=int(os.environ["RANK"]), world_size=int(os.environ["WORLD_SIZE"]))
dist.init_process_group("gloo", init_method=method, timeout=timedelta(seconds=60), **kw)
t = ember.ones(3) * (dist.get_rank() + 1)
dist.all_reduce(t)
dist.barrier()
print(f"RESULT rank={dist.get_rank()} size={dist.get_world_size()} sum={t.tolist()}", flush=True)
dist.destroy_process_group()
