"""Worker for test_collectives: every collective and dtype against a numpy reference; prints one line per failure
and `CHECKS <n> FAILURES <m>` at the end (run under ember-run or with env:// variables)."""
import sys

import numpy as np

import ember
import ember.distributed as dist

init = sys.argv[1] if len(sys.argv) > 1 else "env://"
if init.startswith("file://") or init.startswith("tcp://"):
    import os
    dist.init_process_group("gloo", init_method=init, rank=int(os.environ["RANK"]),
                            world_size=int(os.environ["WORLD_SIZE"]))
else:
    dist.init_process_group("mpi" if "mpi" in sys.argv else "gloo")
rank, n = dist.get_rank(), dist.get_world_size()
checks = failures = 0


def check(cond, what):
    global checks, failures
    checks += 1
    if not cond:
        failures += 1
        print(f"FAIL rank {rank}: {what}", flush=True)


DTYPES = ["bool", "uint8", "int8", "int16", "uint16", "int32", "uint32", "int64", "uint64", "float16", "bfloat16",
          "float32", "float64", "complex64", "complex128", "float8_e4m3fn"]


def value(r, dt, shape=(2, 3)):
    base = (np.arange(np.prod(shape)).reshape(shape) + r) % 3 + 1
    if dt == "bool":
        return ember.from_numpy(((base + r) % 2).astype(bool))
    if dt.startswith("complex"):
        return ember.from_numpy((base + 1j * (base * 2 if r % 2 else -base)).astype(dt))
    return ember.tensor(base.astype(np.float64).tolist(), dtype=ember.float64).to(getattr(ember, dt))


def same(a, b):
    """Bitwise equality of two tensors (works for every dtype)."""
    x, y = np.ascontiguousarray(a.numpy()), np.ascontiguousarray(b.numpy())
    return x.shape == y.shape and x.tobytes() == y.tobytes()


def np64(t):
    a = t.numpy() if t.dtype.is_complex or t.dtype == ember.bool else t.to(ember.float64).numpy()
    return a.astype(np.complex128) if t.dtype.is_complex else a.astype(np.float64) if t.dtype != ember.bool else a


OPS = {"SUM": lambda a: sum(a), "PRODUCT": lambda a: np.prod(a, axis=0), "MIN": lambda a: np.min(a, axis=0),
       "MAX": lambda a: np.max(a, axis=0), "AVG": lambda a: sum(a) / len(a)}
BITS = {"BAND": np.bitwise_and.reduce, "BOR": np.bitwise_or.reduce, "BXOR": np.bitwise_xor.reduce}
LOGIC = {"SUM": np.logical_or.reduce, "MAX": np.logical_or.reduce, "BOR": np.logical_or.reduce,
         "PRODUCT": np.logical_and.reduce, "MIN": np.logical_and.reduce, "BAND": np.logical_and.reduce,
         "BXOR": np.logical_xor.reduce}


def expected_reduce(dt, op, ranks):
    vals = [value(r, dt) for r in ranks]
    if dt == "bool":
        return LOGIC[op](np.stack([v.numpy() for v in vals]))
    if op in BITS:
        return BITS[op](np.stack([v.numpy() for v in vals]))
    return OPS[op](np.stack([np64(v) for v in vals]))


def close(t, ref, dt):
    got = np64(t) if dt != "bool" else t.numpy()
    if dt in ("float16", "bfloat16", "float8_e4m3fn"):
        return np.allclose(got, ref, rtol=0.07)
    return np.allclose(got, ref, rtol=1e-6) if got.dtype.kind in "fc" else np.array_equal(got, ref)


def valid(dt, op):
    if dt == "bool":
        return op != "AVG"
    fl = dt.startswith("float") or dt.startswith("bfloat")
    cx = dt.startswith("complex")
    if op in BITS:
        return not (fl or cx)
    if op in ("MIN", "MAX"):
        return not cx
    if op == "AVG":
        return fl or cx
    return True


ALL_OPS = ["SUM", "AVG", "PRODUCT", "MIN", "MAX", "BAND", "BOR", "BXOR"]
for dt in DTYPES:
    for op in ALL_OPS:
        if dt == "float8_e4m3fn" and op == "PRODUCT":
            continue
        t = value(rank, dt)
        rop = getattr(dist.ReduceOp, op)
        if not valid(dt, op):
            try:
                dist.all_reduce(t, op=rop)
                check(False, f"all_reduce {dt} {op} should raise")
            except RuntimeError:
                check(True, "")
            continue
        dist.all_reduce(t, op=rop)
        check(close(t, expected_reduce(dt, op, range(n)), dt), f"all_reduce {dt} {op}: {t}")
        if op in ("SUM", "MAX"):
            t = value(rank, dt)
            dist.reduce(t, dst=n - 1, op=rop)
            if rank == n - 1:
                check(close(t, expected_reduce(dt, op, range(n)), dt), f"reduce {dt} {op}")
            else:
                check(close(t, expected_reduce(dt, op, [rank]), dt), f"reduce {dt} {op} changed a non-root")
    # data movement
    t = value(rank, dt)
    dist.broadcast(t, src=n - 1)
    check(close(t, expected_reduce(dt, "MAX", [n - 1]) if dt != "bool" else value(n - 1, dt).numpy(), dt),
          f"broadcast {dt}")
    outs = [ember.zeros(2, 3, dtype=getattr(ember, dt)) for _ in range(n)]
    dist.all_gather(outs, value(rank, dt))
    check(all(same(o, value(r, dt)) for r, o in enumerate(outs)), f"all_gather {dt}")
    big = ember.zeros(2 * n, 3, dtype=getattr(ember, dt))
    dist.all_gather_into_tensor(big, value(rank, dt))
    ref = ember.cat([value(r, dt) for r in range(n)])
    check(same(big, ref), f"all_gather_into_tensor {dt}")
    sc = ember.zeros(2, 3, dtype=getattr(ember, dt))
    dist.scatter(sc, [value(r + 10, dt) for r in range(n)] if rank == 0 else None, src=0)
    check(same(sc, value(rank + 10, dt)), f"scatter {dt}")
    gl = [ember.zeros(2, 3, dtype=getattr(ember, dt)) for _ in range(n)] if rank == 0 else None
    dist.gather(value(rank, dt), gl, dst=0)
    if rank == 0:
        check(all(same(g, value(r, dt)) for r, g in enumerate(gl)), f"gather {dt}")

# reduce_scatter / reduce_scatter_tensor (float32, int64)
for dt in ("float32", "int64", "bfloat16"):
    out = ember.zeros(2, 3, dtype=getattr(ember, dt))
    dist.reduce_scatter(out, [value(rank * n + j, dt) for j in range(n)])
    ref = sum(np64(value(r * n + rank, dt)) for r in range(n))
    check(close(out, ref, dt), f"reduce_scatter {dt}")
    inp = ember.cat([value(rank * n + j, dt) for j in range(n)])
    out = ember.zeros(2, 3, dtype=getattr(ember, dt))
    dist.reduce_scatter_tensor(out, inp, op=dist.ReduceOp.MAX)
    ref = np.max(np.stack([np64(value(r * n + rank, dt)) for r in range(n)]), axis=0)
    check(close(out, ref, dt), f"reduce_scatter_tensor {dt}")

# all_to_all and all_to_all_single (even and uneven splits)
ins = [ember.full((2,), float(rank * 10 + j)) for j in range(n)]
outs = [ember.zeros(2) for _ in range(n)]
dist.all_to_all(outs, ins)
check(all(o.tolist() == [float(j * 10 + rank)] * 2 for j, o in enumerate(outs)), "all_to_all")
inp = ember.arange(float(n * 2)) + 100 * rank
out = ember.zeros(n * 2)
dist.all_to_all_single(out, inp)
check(out.tolist() == sum(([100.0 * j + 2 * rank, 100.0 * j + 2 * rank + 1] for j in range(n)), []),
      "all_to_all_single")
in_split = [j + 1 for j in range(n)]                 # rank sends j+1 rows to rank j
out_split = [rank + 1] * n
inp = ember.full((sum(in_split), 2), float(rank), dtype=ember.int32)
out = ember.zeros(sum(out_split), 2, dtype=ember.int32)
dist.all_to_all_single(out, inp, out_split, in_split)
check(out[:, 0].tolist() == sum(([j] * (rank + 1) for j in range(n)), []), f"all_to_all_single uneven {out}")

# non-contiguous tensors
nc = (ember.arange(12.).reshape(3, 4) + rank).t()
dist.all_reduce(nc)
check(nc.tolist() == (ember.arange(12.).reshape(3, 4) * n + sum(range(n))).t().tolist(), "all_reduce non-contiguous")
nc = ember.zeros(4, 3).t()
if rank == 0:
    nc.copy_(ember.arange(12.).reshape(3, 4))
dist.broadcast(nc, src=0)
check(nc.tolist() == ember.arange(12.).reshape(3, 4).tolist(), "broadcast non-contiguous")

# async work
t = ember.ones(1000) * rank
w = dist.all_reduce(t, async_op=True)
check(w.wait() is True and w.is_completed(), "Work.wait")
check(t[0].item() == sum(range(n)), "async all_reduce")

# point to point
if n > 1:
    if rank == 0:
        dist.send(ember.arange(5.), dst=1)
        r = ember.zeros(3, dtype=ember.int64)
        src = dist.recv(r, tag=5)
        check(src == 1 and r.tolist() == [7, 8, 9], "recv any source")
    elif rank == 1:
        r = ember.zeros(5)
        dist.recv(r, src=0)
        check(r.tolist() == [0, 1, 2, 3, 4], "send/recv")
        w = dist.isend(ember.tensor([7, 8, 9]), dst=0, tag=5)
        w.wait()
    nxt, prv = (rank + 1) % n, (rank - 1) % n
    a, b = ember.full((3,), float(rank)), ember.zeros(3)
    ops = [dist.P2POp(dist.isend, a, nxt), dist.P2POp(dist.irecv, b, prv)]
    for w in dist.batch_isend_irecv(ops):
        w.wait()
    check(b.tolist() == [float(prv)] * 3, "batch_isend_irecv ring")

# object collectives (restricted unpickling)
objs = [None] * n
dist.all_gather_object(objs, {"rank": rank, "t": ember.ones(2) * rank, "s": {1, 2}})
check([o["rank"] for o in objs] == list(range(n)) and objs[-1]["t"].tolist() == [n - 1.0] * 2, "all_gather_object")
lst = [f"x{rank}", (1, 2.5), None] if rank == 0 else [None, None, None]
dist.broadcast_object_list(lst, src=0)
check(lst == ["x0", (1, 2.5), None], f"broadcast_object_list {lst}")


class Evil:
    def __reduce__(self):
        return (print, ("pwned",))


lst = [Evil()] if rank == 0 else [None]
if n > 1:
    try:
        dist.broadcast_object_list(lst, src=0)
        check(rank == 0, "evil object unpickled")
    except Exception as e:          # noqa: BLE001
        check("refuses to unpickle builtins.print" in str(e), f"evil object error: {e}")

# groups
if n > 1:
    g = dist.new_group([0, n - 1])
    if rank in (0, n - 1):
        t = ember.ones(1) * (rank + 1)
        dist.all_reduce(t, group=g)
        check(t.item() == 1 + n, "new_group all_reduce")
        check(dist.get_world_size(g) == 2 and dist.get_rank(g) == (0 if rank == 0 else 1), "group rank/size")
        t = ember.ones(1) * rank
        dist.broadcast(t, src=n - 1, group=g)
        check(t.item() == n - 1, "group broadcast with a global src")
    else:
        check(g == dist.GroupMember.NON_GROUP_MEMBER and dist.all_reduce(ember.ones(1), group=g) is None,
              "non-member")
dist.barrier()
# errors
for bad, exc in [(lambda: dist.all_reduce([1]), TypeError), (lambda: dist.broadcast(ember.ones(1), src=n), RuntimeError),
                 (lambda: dist.all_reduce(ember.ones(1), op="sum"), TypeError),
                 (lambda: dist.init_process_group("gloo"), ValueError)]:
    try:
        bad()
        check(False, f"no {exc.__name__}")
    except exc:
        check(True, "")
check(dist.is_initialized() and dist.get_backend() in ("gloo", "mpi"), "state")
dist.destroy_process_group()
check(not dist.is_initialized(), "destroyed")
print(f"CHECKS {checks} FAILURES {failures}", flush=True)
sys.exit(1 if failures else 0)
