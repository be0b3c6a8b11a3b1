"""torch.distributed's ProcessGroupMPI: the collectives on MPI (mpi4py + MPICH), Work objects and the watchdog.

MPI is initialised once per process.  Under a real process manager (mpiexec, srun, ember's launcher: PMI_RANK,
PMIX_RANK or OMPI_COMM_WORLD_RANK set) COMM_WORLD is taken as is.  Otherwise the rank starts a helper that serves
PMI-1 from the rendezvous store on a socketpair, sets PMI_FD/PMI_RANK/PMI_SIZE, and calls MPI_Init_thread: the
world forms from the store alone, without mpiexec.

Data-movement collectives send raw bytes, so every dtype travels.  Reductions run natively on integers, float32,
float64 and complex; float16, bfloat16 and float8 reduce through float32 (MPICH has no bfloat16 and aborts on
logical ops for float16); bool maps SUM/MAX/BOR to logical or, PRODUCT/MIN/BAND to logical and, BXOR to logical
xor.  Combinations torch refuses (bitwise ops on floating types, MIN/MAX on complex, AVG on integers) raise
before anything is sent.

MPI collectives cannot time out.  A watchdog thread per process records which collective each group is in and
publishes it to the store; when one passes the group's timeout it prints which collective and which ranks did not
arrive, marks the job aborted in the store, removes this job's /dev/shm segments and ends the process (exit code
1), as torch's watchdog tears down a NCCL job.  A rank that sees another rank's abort mark ends the same way.
"""
from __future__ import annotations

import os
import socket
import sys
import threading
import time

import numpy as np

_MPI = None
_state = {"helper": None, "pmi_sock": None, "finalized": False, "world": None, "watchdog": None}


def mpi_module():
    """Import mpi4py without letting it initialise MPI (so we choose how the world forms)."""
    global _MPI
    if _MPI is None:
        try:
            import mpi4py
        except ImportError as e:
            raise RuntimeError("the MPI backend needs mpi4py and an MPI library: pip install 'ember[distributed]' "
                               "(mpi4py and the mpich wheel)") from e
        mpi4py.rc.initialize = False
        mpi4py.rc.finalize = False
        mpi4py.rc.threads = True
        from mpi4py import MPI
        _MPI = MPI
    return _MPI


def is_mpi_available() -> bool:
    try:
        import mpi4py  # noqa: F401
        return True
    except ImportError:
        return False


def under_process_manager() -> bool:
    return any(v in os.environ for v in ("PMI_RANK", "PMIX_RANK", "OMPI_COMM_WORLD_RANK", "PMI_FD"))


def init_world(rank: int, size: int, store_spec: list | None, job: str):
    """Initialise MPI for this process and return COMM_WORLD (checked against rank and size)."""
    MPI = mpi_module()
    if _state["finalized"]:
        raise RuntimeError("MPI cannot be initialised again after it was finalized (destroy_process_group); "
                           "start a new process")
    if not MPI.Is_initialized():
        if not under_process_manager():
            if store_spec is None:
                raise RuntimeError("the MPI backend forms its world through the rendezvous store; this store type "
                                   "cannot be reached from a helper process (use env://, tcp:// or file://)")
            from ._helpers import start_pmi_server
            mine, theirs = socket.socketpair()
            helper = start_pmi_server(theirs.fileno(), store_spec, rank, size, job)
            theirs.close()
            fd = mine.detach()          # MPICH owns the descriptor now (it talks PMI on it until exit)
            os.set_inheritable(fd, False)
            _state["helper"], _state["pmi_sock"] = helper, fd
            os.environ.update(PMI_FD=str(fd), PMI_RANK=str(rank), PMI_SIZE=str(size))
        MPI.Init_thread(MPI.THREAD_MULTIPLE)   # MPICH's shared-memory path is ~8x slower at 16 MB under SERIALIZED
    world = MPI.COMM_WORLD
    if rank is not None and (world.Get_rank() != rank or world.Get_size() != size):
        raise RuntimeError(f"MPI placed this process at rank {world.Get_rank()} of {world.Get_size()}, but the "
                           f"rendezvous said rank {rank} of {size}")
    _state["world"] = world
    if not _state.get("atexit"):
        # a script that never calls destroy_process_group still finalizes (MPICH removes its /dev/shm segments then)
        import atexit
        atexit.register(lambda: finalize(_state.get("default_group")))
        _state["atexit"] = True
    return world


def finalize(group=None):
    """MPI_Finalize (under the watchdog when `group` is given: a peer that never arrives ends the job)."""
    MPI = _MPI
    if MPI is None or _state["finalized"] or not MPI.Is_initialized():
        return
    token = group.watchdog.enter(group, group.seq + 1, "finalize") if group is not None and group.watchdog else None
    MPI.Finalize()
    _state["finalized"] = True
    if token is not None:
        group.watchdog.leave(token)
    # The PMI helper stays: MPICH says cmd=finalize to it when the process exits, and the helper ends then (or
    # when this process's end closes its standard input).
    for k in ("PMI_FD", "PMI_RANK", "PMI_SIZE"):
        if _state["pmi_sock"] is not None:
            os.environ.pop(k, None)


def own_shm_segments() -> list[str]:
    """The /dev/shm/mpich_shm_* files this process has mapped (MPICH's shared-memory segments)."""
    out = []
    try:
        with open("/proc/self/maps") as f:
            for line in f:
                i = line.find("/dev/shm/mpich_shm_")
                if i >= 0:
                    p = line[i:].split(" (deleted)")[0].strip()
                    if p not in out:
                        out.append(p)
    except OSError:
        pass
    return out


def remove_shm_segments():
    for p in own_shm_segments():
        try:
            os.unlink(p)
        except OSError:
            pass


# =============================================================================================
# the watchdog
# =============================================================================================

class Watchdog:
    """One thread per process: publishes each group's progress and ends the job when a collective is late."""

    TICK = 0.2

    def __init__(self, store, rank):
        self.store = store
        self.rank = rank
        self.inflight = {}           # id -> (group, seq, name, deadline)
        self.published = {}
        self._lock = threading.Lock()
        self._next = 0
        self._stop = False
        self._thread = threading.Thread(target=self._run, name="ember-dist-watchdog", daemon=True)
        self._thread.start()

    def enter(self, group, seq, name):
        with self._lock:
            self._next += 1
            self.inflight[self._next] = (group, seq, name, time.monotonic() + group.timeout.total_seconds())
            return self._next

    def leave(self, token):
        with self._lock:
            self.inflight.pop(token, None)

    def stop(self):
        self._stop = True

    def _run(self):
        while not self._stop:
            time.sleep(self.TICK)
            try:
                self._tick()
            except Exception:
                if self._stop:
                    return

    def _tick(self):
        with self._lock:
            items = list(self.inflight.values())
        # publish progress: the last sequence number entered, per group
        for g, seq, name, _ in items:
            if self.published.get(g.group_name, -1) < seq:
                self.published[g.group_name] = seq
                self.store.set(f"progress/{g.group_name}/{self.rank}", f"{seq}")
        if self.store.check(["abort"]):
            msg = self.store.get("abort").decode()
            self._die(f"[rank {self.rank}] ember.distributed: job aborted by another rank: {msg}")
        now = time.monotonic()
        for g, seq, name, deadline in items:
            if now > deadline:
                missing = []
                for gr, r in enumerate(g.ranks):
                    key = f"progress/{g.group_name}/{r}"
                    got = int(self.store.get(key)) if self.store.check([key]) else -1
                    if got < seq:
                        missing.append(r)
                secs = g.timeout.total_seconds()
                msg = (f"{name} (collective #{seq} of group {g.group_name!r}) timed out after {secs:g} s; "
                       f"ranks {missing} did not arrive")
                try:
                    self.store.compare_set("abort", "", f"rank {self.rank}: {msg}")
                except Exception:
                    pass
                self._die(f"[rank {self.rank}] ember.distributed: {msg}")

    def _die(self, message):
        sys.stderr.write(message + "\n")
        sys.stderr.flush()
        remove_shm_segments()
        helper = _state["helper"]
        if helper is not None:
            helper.kill()
        os._exit(1)


# =============================================================================================
# dtype handling
# =============================================================================================

_LOW_FLOATS = ("float16", "bfloat16", "float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz")


def _reduce_plan(op_name, dtype):
    """(mpi op, compute numpy dtype or None) for an all_reduce of `dtype`, or raise as torch does."""
    MPI = mpi_module()
    name = dtype.name if hasattr(dtype, "name") else str(dtype)
    if name == "bool":
        table = {"SUM": MPI.LOR, "MAX": MPI.LOR, "BOR": MPI.LOR, "PRODUCT": MPI.LAND, "MIN": MPI.LAND,
                 "BAND": MPI.LAND, "BXOR": MPI.LXOR}
        if op_name not in table:
            raise RuntimeError(f"ReduceOp.{op_name} is not supported for bool tensors")
        return table[op_name], None
    floating = dtype.is_floating_point
    if op_name in ("BAND", "BOR", "BXOR") and (floating or dtype.is_complex):
        raise RuntimeError(f"Cannot use ReduceOp.{op_name} with {dtype} (bitwise reductions need an integral or "
                           f"bool tensor)")
    if op_name in ("MIN", "MAX") and dtype.is_complex:
        raise RuntimeError(f"Cannot use ReduceOp.{op_name} with complex tensors ({dtype})")
    if op_name == "AVG" and not (floating or dtype.is_complex):
        raise RuntimeError(f"Cannot use ReduceOp.AVG with {dtype}: AVG needs a floating point or complex tensor")
    table = {"SUM": MPI.SUM, "AVG": MPI.SUM, "PRODUCT": MPI.PROD, "MIN": MPI.MIN, "MAX": MPI.MAX,
             "BAND": MPI.BAND, "BOR": MPI.BOR, "BXOR": MPI.BXOR}
    if op_name not in table:
        raise NotImplementedError(f"ReduceOp.{op_name} is not implemented by ember's MPI backend")
    return table[op_name], (np.float32 if name in _LOW_FLOATS else None)


def _as_bytes(a):
    return a.reshape(-1).view(np.uint8)


# =============================================================================================
# Work
# =============================================================================================

class Work:
    """torch.distributed.Work: an operation in flight.  wait() blocks (under the watchdog) and finishes it."""

    def __init__(self, pg, name, requests=(), finish=None, result=None, keep=()):
        self._pg = pg
        self._name = name
        self._reqs = list(requests)
        self._finish = finish
        self._result = result if result is not None else []
        self._keep = keep               # buffers MPI is reading or writing
        self._done = not self._reqs
        self._token = pg._enter(name) if self._reqs else None
        if self._done:
            self._complete()

    def _complete(self):
        self._done = True
        if self._token is not None:
            self._pg._leave(self._token)
            self._token = None
        if self._finish is not None:
            f, self._finish = self._finish, None
            f()
        self._keep = ()

    def wait(self, timeout=None):
        if not self._done:
            for r in self._reqs:
                r.Wait()
            self._complete()
        return True

    def is_completed(self):
        if not self._done and all(r.Test() for r in self._reqs):
            self._complete()
        return self._done

    def is_success(self):
        return self.is_completed()

    def exception(self):
        return None

    def result(self):
        return list(self._result)

    def source_rank(self):
        return getattr(self, "_source", -1)

    def synchronize(self):
        self.wait()

    def get_future(self):
        raise NotImplementedError("Work.get_future: ember's MPI backend has no futures yet (use wait())")

    def __repr__(self):
        return f"<Work {self._name} {'done' if self._done else 'pending'}>"


# =============================================================================================
# the process group's backend
# =============================================================================================

class ProcessGroupMPI:
    """The MPI backend of one process group (a communicator over the group's ranks)."""

    def __init__(self, comm, ranks, group_name, timeout, watchdog):
        self.comm = comm
        self.ranks = list(ranks)
        self.group_name = group_name
        self.timeout = timeout
        self.watchdog = watchdog
        self.seq = 0
        self._rank = comm.Get_rank()
        self._size = comm.Get_size()

    def rank(self):
        return self._rank

    def size(self):
        return self._size

    def _enter(self, name):
        self.seq += 1
        return self.watchdog.enter(self, self.seq, name) if self.watchdog else None

    def _leave(self, token):
        if self.watchdog and token is not None:
            self.watchdog.leave(token)

    def _blocking(self, name, fn):
        token = self._enter(name)
        try:
            return fn()
        finally:
            self._leave(token)

    # ------------------------------------------------------------------ helpers
    @staticmethod
    def _in(t):
        a = t._np
        return a if a.flags.c_contiguous else np.ascontiguousarray(a)

    @staticmethod
    def _out(t):
        """A writable C-contiguous buffer for t and a function that lands it into t."""
        a = t._np
        if a.flags.c_contiguous:
            return a, lambda: None
        buf = np.empty(a.shape, a.dtype)
        return buf, lambda: np.copyto(t._np, buf)

    # ------------------------------------------------------------------ reductions
    def allreduce(self, t, op_name, async_op):
        mpi_op, compute = _reduce_plan(op_name, t.dtype)
        if compute is None:
            buf, land = self._out(t)
            if buf is not t._np:
                np.copyto(buf, t._np)
        else:
            buf = t._np.astype(compute)
        n = self._size

        def finish():
            if op_name == "AVG":
                np.divide(buf, n, out=buf, casting="unsafe")
            if compute is not None:
                np.copyto(t._np, buf.astype(t._np.dtype))
            else:
                land()
        return self._run("all_reduce", async_op, lambda: self.comm.Iallreduce(self.MPI.IN_PLACE, buf, mpi_op),
                         lambda: self.comm.Allreduce(self.MPI.IN_PLACE, buf, mpi_op), finish, [t], (buf,))

    def reduce(self, t, root, op_name, async_op):
        mpi_op, compute = _reduce_plan(op_name, t.dtype)
        src = self._in(t) if compute is None else t._np.astype(compute)
        mine = self._rank == root
        recv = np.empty_like(src) if mine else None
        n = self._size

        def finish():
            if mine:
                if op_name == "AVG":
                    np.divide(recv, n, out=recv, casting="unsafe")
                np.copyto(t._np, recv.astype(t._np.dtype, copy=False))
        return self._run("reduce", async_op, lambda: self.comm.Ireduce(src, recv, mpi_op, root),
                         lambda: self.comm.Reduce(src, recv, mpi_op, root), finish, [t], (src, recv))

    def reduce_scatter(self, output, inputs, op_name, async_op):
        mpi_op, compute = _reduce_plan(op_name, output.dtype)
        cdt = compute or output._np.dtype
        send = np.concatenate([np.ascontiguousarray(i._np, dtype=cdt).reshape(-1) for i in inputs])
        recv = np.empty(output._np.size, cdt)
        counts = [i.numel() for i in inputs]
        n = self._size

        def finish():
            if op_name == "AVG":
                np.divide(recv, n, out=recv, casting="unsafe")
            np.copyto(output._np, recv.reshape(output._np.shape).astype(output._np.dtype, copy=False))
        return self._run("reduce_scatter", async_op, lambda: self.comm.Ireduce_scatter(send, recv, counts, mpi_op),
                         lambda: self.comm.Reduce_scatter(send, recv, counts, mpi_op), finish, [output],
                         (send, recv))

    # ------------------------------------------------------------------ data movement (bytes)
    def broadcast(self, t, root, async_op):
        buf, land = self._out(t)
        if buf is not t._np and self._rank == root:
            np.copyto(buf, t._np)
        b = _as_bytes(buf)
        return self._run("broadcast", async_op, lambda: self.comm.Ibcast(b, root), lambda: self.comm.Bcast(b, root),
                         land, [t], (buf,))

    def allgather(self, outs, t, async_op):
        src = _as_bytes(self._in(t))
        recv = np.empty(src.size * self._size, np.uint8)

        def finish():
            for i, o in enumerate(outs):
                np.copyto(o._np, recv[i * src.size:(i + 1) * src.size].view(o._np.dtype).reshape(o._np.shape))
        return self._run("all_gather", async_op, lambda: self.comm.Iallgather(src, recv),
                         lambda: self.comm.Allgather(src, recv), finish, outs, (src, recv))

    def allgather_into(self, out, t, async_op):
        src = _as_bytes(self._in(t))
        dst, land = self._out(out)
        rb = _as_bytes(dst)
        return self._run("all_gather_into_tensor", async_op, lambda: self.comm.Iallgather(src, rb),
                         lambda: self.comm.Allgather(src, rb), land, [out], (src, dst))

    def gather(self, outs, t, root, async_op):
        src = _as_bytes(self._in(t))
        mine = self._rank == root
        recv = np.empty(src.size * self._size, np.uint8) if mine else None

        def finish():
            if mine:
                for i, o in enumerate(outs):
                    np.copyto(o._np, recv[i * src.size:(i + 1) * src.size].view(o._np.dtype).reshape(o._np.shape))
        return self._run("gather", async_op, lambda: self.comm.Igather(src, recv, root),
                         lambda: self.comm.Gather(src, recv, root), finish, outs if mine else [], (src, recv))

    def scatter(self, out, ins, root, async_op):
        dst, land = self._out(out)
        rb = _as_bytes(dst)
        send = np.concatenate([_as_bytes(self._in(i)) for i in ins]) if self._rank == root else None
        return self._run("scatter", async_op, lambda: self.comm.Iscatter(send, rb, root),
                         lambda: self.comm.Scatter(send, rb, root), land, [out], (send, dst))

    def alltoall_v(self, name, send, scounts, recv, rcounts, finish, outs, async_op):
        sd = np.concatenate([[0], np.cumsum(scounts)[:-1]]).astype(np.int64).tolist()
        rd = np.concatenate([[0], np.cumsum(rcounts)[:-1]]).astype(np.int64).tolist()
        M = self.MPI
        sspec = [send, (list(map(int, scounts)), sd), M.BYTE]
        rspec = [recv, (list(map(int, rcounts)), rd), M.BYTE]
        return self._run(name, async_op, lambda: self.comm.Ialltoallv(sspec, rspec),
                         lambda: self.comm.Alltoallv(sspec, rspec), finish, outs, (send, recv))

    def barrier(self, async_op):
        return self._run("barrier", async_op, lambda: self.comm.Ibarrier(), lambda: self.comm.Barrier(), None, [], ())

    # ------------------------------------------------------------------ point to point
    def send(self, t, dst, tag):
        src = _as_bytes(self._in(t))
        return Work(self, "send", [self.comm.Isend(src, dst, tag)], None, [t], (src,))

    def recv(self, t, src, tag):
        buf, land = self._out(t)
        b = _as_bytes(buf)
        M = self.MPI
        status = M.Status()
        req = self.comm.Irecv(b, M.ANY_SOURCE if src is None else src, tag)
        work = Work.__new__(Work)

        def finish():
            land()
            work._source = status.Get_source() if src is None else src
        # Irecv's status is only known after the wait: keep a status-filling wait
        Work.__init__(work, self, "recv", [_StatusRequest(req, status)], finish, [t], (buf,))
        return work

    # ------------------------------------------------------------------ running
    @property
    def MPI(self):
        return mpi_module()

    def _run(self, name, async_op, start_nb, run_blocking, finish, result, keep):
        if async_op:
            return Work(self, name, [start_nb()], finish, result, keep)
        self._blocking(name, run_blocking)
        if finish is not None:
            finish()
        return None


class _StatusRequest:
    """A receive whose Wait/Test fill a Status (so Work.source_rank can say who sent)."""

    def __init__(self, req, status):
        self.req = req
        self.status = status

    def Wait(self):
        self.req.Wait(self.status)

    def Test(self):
        return self.req.Test(self.status)
