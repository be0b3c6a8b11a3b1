"""Worker for test_collectives: under a real mpiexec (PMI from hydra, no MASTER_ADDR) the MPI world is used as is."""
import ember, ember.distributed as dist
dist.init_process_group("mpi")
r = dist.get_rank(); n = dist.get_world_size()
x = ember.ones(4) * (r + 1); dist.all_reduce(x)
o = [None] * n; dist.all_gather_object(o, r)
print("MPIEXEC", r, n, x.tolist(), o, flush=True)
dist.destroy_process_group()
