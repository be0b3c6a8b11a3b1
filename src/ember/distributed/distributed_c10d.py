"""torch.distributed.distributed_c10d: process groups, init_process_group and the collective functions.

The one backend is MPI (``backend="mpi"``); ``"gloo"`` is accepted as the name of ember's CPU backend and runs
the same MPI code, so torch scripts written for gloo run unchanged.  Ranks given to collectives (src, dst) are
global ranks, as torch's; ``group_src``/``group_dst`` take ranks within the group.
"""
from __future__ import annotations

import enum
import os
import uuid
import time
from datetime import timedelta

import numpy as np

from . import _mpi, _object_codec
from ._errors import DistBackendError
from ._store import FileStore, PrefixStore, TCPStore
from .constants import default_pg_timeout
from .rendezvous import rendezvous

__all__ = [
    "Backend",
    "GroupMember",
    "P2POp",
    "ProcessGroup",
    "RedOpType",
    "ReduceOp",
    "Work",
    "all_gather",
    "all_gather_into_tensor",
    "all_gather_object",
    "all_reduce",
    "all_to_all",
    "all_to_all_single",
    "barrier",
    "batch_isend_irecv",
    "broadcast",
    "broadcast_object_list",
    "destroy_process_group",
    "gather",
    "gather_object",
    "get_backend",
    "get_global_rank",
    "get_group_rank",
    "get_process_group_ranks",
    "get_rank",
    "get_world_size",
    "group",
    "init_process_group",
    "irecv",
    "is_available",
    "is_gloo_available",
    "is_initialized",
    "is_mpi_available",
    "is_nccl_available",
    "is_torchelastic_launched",
    "isend",
    "monitored_barrier",
    "new_group",
    "recv",
    "reduce",
    "reduce_scatter",
    "reduce_scatter_tensor",
    "scatter",
    "scatter_object_list",
    "send",
]

Work = _mpi.Work


# =============================================================================================
# names
# =============================================================================================

class Backend(str):
    """torch.distributed.Backend: a lower-case backend name.  ember runs "mpi"; "gloo" is its CPU alias."""

    UNDEFINED = "undefined"
    GLOO = "gloo"
    NCCL = "nccl"
    UCC = "ucc"
    MPI = "mpi"
    XCCL = "xccl"
    backend_list = [UNDEFINED, GLOO, NCCL, XCCL, UCC, MPI]
    default_device_backend_map = {"cpu": GLOO}

    def __new__(cls, name: str):
        if not isinstance(name, str):
            raise ValueError(f"Backend constructor parameter must be string-ish, but got {type(name)}")
        return str.__new__(cls, name.lower())


class RedOpType(enum.Enum):
    SUM = 0
    AVG = 1
    PRODUCT = 2
    MIN = 3
    MAX = 4
    BAND = 5
    BOR = 6
    BXOR = 7
    PREMUL_SUM = 8
    UNUSED = 9

    def __repr__(self):
        return f"<RedOpType.{self.name}: {self.value}>"


class ReduceOp:
    """torch.distributed.ReduceOp: the reduction of all_reduce, reduce and reduce_scatter."""

    RedOpType = RedOpType
    SUM = RedOpType.SUM
    AVG = RedOpType.AVG
    PRODUCT = RedOpType.PRODUCT
    MIN = RedOpType.MIN
    MAX = RedOpType.MAX
    BAND = RedOpType.BAND
    BOR = RedOpType.BOR
    BXOR = RedOpType.BXOR
    PREMUL_SUM = RedOpType.PREMUL_SUM


class GroupMember:
    WORLD = None
    NON_GROUP_MEMBER = -100


class group:
    WORLD = None


class ProcessGroup:
    """torch.distributed.ProcessGroup: a set of ranks and the backend that runs their collectives."""

    def __init__(self, backend_impl, ranks, group_name, backend_name, store):
        self._impl = backend_impl
        self._ranks = list(ranks)
        self.group_name = group_name
        self._backend_name = backend_name
        self._store = store

    def rank(self):
        return self._impl.rank()

    def size(self):
        return self._impl.size()

    def name(self):
        return self._backend_name

    @property
    def group_desc(self):
        return self.group_name

    def __repr__(self):
        return f"<ProcessGroup {self.group_name!r} ranks={self._ranks} backend={self._backend_name}>"


class P2POp:
    """torch.distributed.P2POp: one send or receive of batch_isend_irecv."""

    def __init__(self, op, tensor, peer=None, group=None, tag=0, group_peer=None):
        if op not in (isend, irecv):
            raise ValueError("Invalid ``op``. Expected ``op`` to be of type ``torch.distributed.isend`` or "
                             "``torch.distributed.irecv``.")
        self.op, self.tensor, self.peer, self.group, self.tag, self.group_peer = op, tensor, peer, group, tag, group_peer


# =============================================================================================
# the world
# =============================================================================================

class _World:
    default_pg = None
    backend = None
    store = None
    groups = {}                 # ProcessGroup -> global ranks
    group_count = 0
    watchdog = None
    comm = None
    rank = -1
    world_size = -1


def is_available() -> bool:
    return True


def is_mpi_available() -> bool:
    return _mpi.is_mpi_available()


def is_gloo_available() -> bool:
    """ember's "gloo" is its MPI backend."""
    return _mpi.is_mpi_available()


def is_nccl_available() -> bool:
    return False


def is_ucc_available() -> bool:
    return False


def is_initialized() -> bool:
    return _World.default_pg is not None


def is_torchelastic_launched() -> bool:
    return os.getenv("TORCHELASTIC_RUN_ID") is not None


def _store_spec(store):
    """How a helper process reaches `store`: a list of strings, or None when it cannot."""
    prefixes = []
    while isinstance(store, PrefixStore):
        prefixes.insert(0, store._prefix)
        store = store.underlying_store
    secs = str(store.timeout.total_seconds())
    if isinstance(store, TCPStore):
        return ["tcp", store.host or "127.0.0.1", str(store.port), secs] + prefixes
    if isinstance(store, FileStore):
        return ["file", store.path, secs] + prefixes
    return None


def _check_backend(backend):
    name = Backend(backend if backend is not None else "gloo")
    if name.startswith("cpu:"):
        name = Backend(name[4:])
    if name in ("nccl", "xccl", "ucc") or name.startswith("cuda:"):
        raise RuntimeError(f"Backend {name!r} is not available in ember (CPU only): use 'mpi' or 'gloo'")
    if name not in ("mpi", "gloo"):
        raise ValueError(f"Invalid backend: {str(name)!r}; ember runs 'mpi' (also accepted under the name 'gloo')")
    return name


def init_process_group(backend=None, init_method=None, timeout=None, world_size=-1, rank=-1, store=None,
                       group_name="", pg_options=None, device_id=None):
    """torch.distributed.init_process_group: rendezvous, form the MPI world, end with a store-based barrier."""
    if _World.default_pg is not None:
        raise ValueError("trying to initialize the default process group twice!")
    if not (store is None or init_method is None):
        raise AssertionError("Cannot specify both init_method and store.")
    if timeout is None:
        timeout = default_pg_timeout
    if not isinstance(timeout, timedelta):
        raise TypeError(f"Expected timeout argument to be of type datetime.timedelta, got {timeout}")
    name = _check_backend(backend)
    if store is not None:
        if not world_size > 0:
            raise AssertionError("world_size must be positive if using store")
        if not rank >= 0:
            raise AssertionError("rank must be non-negative if using store")
    else:
        if init_method is None:
            init_method = "env://"
        if _mpi.under_process_manager() and "MASTER_ADDR" not in os.environ and init_method == "env://":
            store, rank, world_size = None, rank, world_size      # mpiexec/srun made the world: no store
        else:
            store, rank, world_size = next(rendezvous(init_method, rank, world_size, timeout=timeout))
            store.set_timeout(timeout)
    if store is not None:
        store = PrefixStore("default_pg", store)
    # a name for this MPI job, the same on every rank and different from every other job's
    job = store.compare_set("mpi_job", "", uuid.uuid4().hex[:16]).decode() if store is not None else "local"
    comm = _mpi.init_world(rank if store is not None else None, world_size,
                           _store_spec(store) if store is not None else None, job) \
        if not (store is not None and _store_spec(store) is None and world_size == 1) \
        else _mpi.init_world(rank, world_size, ["local"], job)
    rank, world_size = comm.Get_rank(), comm.Get_size()
    _World.comm = comm
    _World.rank, _World.world_size = rank, world_size
    _World.store = store
    _World.backend = name
    if store is not None:
        _World.watchdog = _mpi.Watchdog(store, rank)
    impl = _mpi.ProcessGroupMPI(comm, range(world_size), "default_pg", timeout, _World.watchdog)
    pg = ProcessGroup(impl, range(world_size), group_name or "default_pg", name, store)
    _mpi._state["default_group"] = impl
    _World.default_pg = pg
    _World.groups = {pg: list(range(world_size))}
    _World.group_count = 0
    GroupMember.WORLD = group.WORLD = pg
    if store is not None:
        _store_based_barrier(store, "default_pg", world_size, timeout)


def _store_based_barrier(store, group_name, world_size, timeout):
    key = f"store_based_barrier_key:{group_name}"
    store.add(key, 1)
    deadline = time.monotonic() + timeout.total_seconds()
    delay = 0.001
    while True:
        arrived = int(store.add(key, 0))
        if arrived >= world_size:
            return
        if time.monotonic() > deadline:
            raise DistBackendError(f"Timed out initializing process group in store based barrier on rank "
                                   f"{_World.rank}, for key: {key} (world_size={world_size}, num_workers_joined="
                                   f"{arrived}, timeout={timeout})")
        time.sleep(delay)
        delay = min(delay * 2, 0.05)


def destroy_process_group(group=None):
    """Destroy one group, or (group=None) every group, finalizing MPI (which cannot be initialised again)."""
    if _World.default_pg is None:
        raise AssertionError("Process group cannot be None")
    if group is None or group is _World.default_pg:
        if _World.watchdog is not None:
            _World.watchdog.stop()
        for pg in list(_World.groups):
            if pg is not _World.default_pg and pg._impl.comm is not None:
                pg._impl.comm.Free()
        _mpi.finalize(_World.default_pg._impl)
        store = _World.store
        while isinstance(store, PrefixStore):
            store = store.underlying_store
        if store is not None and hasattr(store, "close"):
            store.close()
        _World.default_pg = _World.store = _World.watchdog = _World.comm = None
        _World.groups = {}
        GroupMember.WORLD = group_ref().WORLD = None
        return
    if group not in _World.groups:
        raise ValueError("Invalid process group specified")
    if group._impl.comm is not None:
        group._impl.comm.Free()
    del _World.groups[group]


def group_ref():
    return group


def _default():
    if _World.default_pg is None:
        raise ValueError("Default process group has not been initialized, please make sure to call "
                         "init_process_group.")
    return _World.default_pg


def _resolve(g):
    pg = _default()
    if g is None or g is GroupMember.WORLD:
        return pg
    if g == GroupMember.NON_GROUP_MEMBER:
        return None
    if g not in _World.groups:
        raise ValueError(f"Group {g} is not registered, please create group with torch.distributed.new_group API")
    return g


def new_group(ranks=None, timeout=None, backend=None, pg_options=None, use_local_synchronization=False,
              group_desc=None, device_id=None):
    """A group of some ranks; every rank of the default group must call it (as torch requires)."""
    pg = _default()
    world = _World.world_size
    ranks = sorted(range(world) if ranks is None else ranks)
    for r in ranks:
        if not 0 <= r < world:
            raise ValueError("The new group's rank should be within the world_size set by init_process_group")
    if len(set(ranks)) != len(ranks):
        raise ValueError(f"new_group: ranks {ranks} contain duplicates")
    _check_backend(backend or _World.backend)
    _World.group_count += 1
    name = str(_World.group_count)
    MPI = _mpi.mpi_module()
    me = _World.rank
    comm = pg._impl.comm.Split(0 if me in ranks else MPI.UNDEFINED, ranks.index(me) if me in ranks else 0)
    if me not in ranks:
        return GroupMember.NON_GROUP_MEMBER
    impl = _mpi.ProcessGroupMPI(comm, ranks, name, timeout or pg._impl.timeout, _World.watchdog)
    g = ProcessGroup(impl, ranks, name, _World.backend, _World.store)
    _World.groups[g] = ranks
    return g


def get_rank(group=None) -> int:
    g = _resolve(group)
    return -1 if g is None else g.rank() if group is not None else _World.rank


def get_world_size(group=None) -> int:
    g = _resolve(group)
    return -1 if g is None else g.size()


def get_backend(group=None) -> Backend:
    g = _resolve(group)
    if g is None:
        raise ValueError("Invalid process group specified")
    return Backend(g._backend_name)


def get_process_group_ranks(group):
    g = _resolve(group)
    return list(g._ranks)


def get_global_rank(group, group_rank: int) -> int:
    g = _resolve(group)
    if not 0 <= group_rank < len(g._ranks):
        raise ValueError(f"Group rank {group_rank} is not part of group {g}")
    return g._ranks[group_rank]


def get_group_rank(group, global_rank: int) -> int:
    g = _resolve(group)
    if global_rank not in g._ranks:
        raise ValueError(f"Global rank {global_rank} is not part of group {g}")
    return g._ranks.index(global_rank)


# =============================================================================================
# argument checks
# =============================================================================================

def _check_tensor(t, name):
    import ember
    if not isinstance(t, ember.Tensor):
        raise TypeError(f"Invalid function argument. Expected parameter `{name}` of type torch.Tensor\n"
                        f"             but got {type(t)} instead.")
    if t._np is None:
        raise RuntimeError(f"`{name}` is on the meta device: collectives need tensors with data")


def _check_tensor_list(ts, name):
    import ember
    if not isinstance(ts, (list, tuple)) or not all(isinstance(t, ember.Tensor) for t in ts):
        raise TypeError(f"Invalid function argument. Expected parameter `{name}` of type List[torch.Tensor]\n"
                        f"             but got {type(ts)} with elements of type "
                        f"{[type(t) for t in ts] if isinstance(ts, (list, tuple)) else ''} instead.")
    for t in ts:
        _check_tensor(t, name)


def _op_name(op):
    if isinstance(op, RedOpType):
        if op in (RedOpType.PREMUL_SUM, RedOpType.UNUSED):
            raise NotImplementedError(f"ReduceOp.{op.name} is not implemented by ember's MPI backend")
        return op.name
    raise TypeError(f"op must be a torch.distributed.ReduceOp, got {op!r}")


def _root(g, name, src, group_src, what="src"):
    if group_src is not None:
        if src is not None:
            raise ValueError(f"Can not specify both {what} and group_{what}")
        r = group_src
    else:
        if src is None:
            raise ValueError(f"{name}: {what} must be given")
        if src not in g._ranks:
            raise RuntimeError(f"ProcessGroupMPI::{name}: invalid root rank: {src}")
        r = g._ranks.index(src)
    if not 0 <= r < g.size():
        raise RuntimeError(f"ProcessGroupMPI::{name}: invalid root rank: {r}")
    return r


def _same(ts, like, name):
    for t in ts:
        if t.dtype != like.dtype:
            raise TypeError(f"{name}: tensors must all have dtype {like.dtype}, got {t.dtype}")
        if t.numel() != like.numel():
            raise ValueError(f"{name}: tensor sizes must match, got {tuple(t.shape)} and {tuple(like.shape)}")


# =============================================================================================
# collectives
# =============================================================================================

def all_reduce(tensor, op=ReduceOp.SUM, group=None, async_op=False):
    _check_tensor(tensor, "tensor")
    g = _resolve(group)
    if g is None:
        return None
    return g._impl.allreduce(tensor, _op_name(op), async_op)


def broadcast(tensor, src=None, group=None, async_op=False, group_src=None):
    _check_tensor(tensor, "tensor")
    g = _resolve(group)
    if g is None:
        return None
    return g._impl.broadcast(tensor, _root(g, "broadcast", src, group_src), async_op)


def reduce(tensor, dst=None, op=ReduceOp.SUM, group=None, async_op=False, group_dst=None):
    _check_tensor(tensor, "tensor")
    g = _resolve(group)
    if g is None:
        return None
    return g._impl.reduce(tensor, _root(g, "reduce", dst, group_dst, "dst"), _op_name(op), async_op)


def all_gather(tensor_list, tensor, group=None, async_op=False):
    _check_tensor_list(tensor_list, "tensor_list")
    _check_tensor(tensor, "tensor")
    g = _resolve(group)
    if g is None:
        return None
    if len(tensor_list) != g.size():
        raise ValueError(f"all_gather: tensor_list must have {g.size()} tensors (the group's size), "
                         f"got {len(tensor_list)}")
    _same(tensor_list, tensor, "all_gather")
    return g._impl.allgather(list(tensor_list), tensor, async_op)


def all_gather_into_tensor(output_tensor, input_tensor, group=None, async_op=False):
    _check_tensor(output_tensor, "output_tensor")
    _check_tensor(input_tensor, "input_tensor")
    g = _resolve(group)
    if g is None:
        return None
    if output_tensor.dtype != input_tensor.dtype:
        raise TypeError(f"all_gather_into_tensor: output dtype {output_tensor.dtype} differs from input dtype "
                        f"{input_tensor.dtype}")
    if output_tensor.numel() != input_tensor.numel() * g.size():
        raise ValueError(f"output tensor size must be equal to world_size times input tensor size "
                         f"({output_tensor.numel()} != {g.size()} * {input_tensor.numel()})")
    return g._impl.allgather_into(output_tensor, input_tensor, async_op)


def gather(tensor, gather_list=None, dst=None, group=None, async_op=False, group_dst=None):
    _check_tensor(tensor, "tensor")
    g = _resolve(group)
    if g is None:
        return None
    if dst is None and group_dst is None:
        dst = 0 if g is _World.default_pg else g._ranks[0]
    root = _root(g, "gather", dst, group_dst, "dst")
    if g.rank() == root:
        _check_tensor_list(gather_list or [], "gather_list")
        if gather_list is None or len(gather_list) != g.size():
            raise ValueError(f"gather: the destination needs a gather_list of {g.size()} tensors")
        _same(gather_list, tensor, "gather")
    elif gather_list:
        raise ValueError("Argument ``gather_list`` must NOT be specified on non-destination ranks.")
    return g._impl.gather(list(gather_list or []), tensor, root, async_op)


def scatter(tensor, scatter_list=None, src=None, group=None, async_op=False, group_src=None):
    _check_tensor(tensor, "tensor")
    g = _resolve(group)
    if g is None:
        return None
    if src is None and group_src is None:
        src = 0 if g is _World.default_pg else g._ranks[0]
    root = _root(g, "scatter", src, group_src)
    if g.rank() == root:
        _check_tensor_list(scatter_list or [], "scatter_list")
        if scatter_list is None or len(scatter_list) != g.size():
            raise ValueError(f"scatter: the source needs a scatter_list of {g.size()} tensors")
        _same(scatter_list, tensor, "scatter")
    elif scatter_list:
        raise ValueError("Argument ``scatter_list`` must NOT be specified on non-source ranks.")
    return g._impl.scatter(tensor, list(scatter_list or []), root, async_op)


def reduce_scatter(output, input_list, op=ReduceOp.SUM, group=None, async_op=False):
    _check_tensor(output, "output")
    _check_tensor_list(input_list, "input_list")
    g = _resolve(group)
    if g is None:
        return None
    if len(input_list) != g.size():
        raise ValueError(f"reduce_scatter: input_list must have {g.size()} tensors, got {len(input_list)}")
    _same(input_list, output, "reduce_scatter")
    return g._impl.reduce_scatter(output, list(input_list), _op_name(op), async_op)


def reduce_scatter_tensor(output, input, op=ReduceOp.SUM, group=None, async_op=False):
    _check_tensor(output, "output")
    _check_tensor(input, "input")
    g = _resolve(group)
    if g is None:
        return None
    if input.numel() != output.numel() * g.size():
        raise ValueError(f"input tensor must be the same size as output size times world size "
                         f"({input.numel()} != {output.numel()} * {g.size()})")
    if input.dtype != output.dtype:
        raise TypeError(f"reduce_scatter_tensor: input dtype {input.dtype} differs from output dtype {output.dtype}")
    chunks = list(input.reshape(g.size(), -1).unbind(0))
    return g._impl.reduce_scatter(output, chunks, _op_name(op), async_op)


def all_to_all(output_tensor_list, input_tensor_list, group=None, async_op=False):
    _check_tensor_list(output_tensor_list, "output_tensor_list")
    _check_tensor_list(input_tensor_list, "input_tensor_list")
    g = _resolve(group)
    if g is None:
        return None
    n = g.size()
    if len(output_tensor_list) != n or len(input_tensor_list) != n:
        raise ValueError(f"all_to_all: both tensor lists must have {n} tensors")
    dt = input_tensor_list[0].dtype
    for t in list(output_tensor_list) + list(input_tensor_list):
        if t.dtype != dt:
            raise TypeError(f"all_to_all: tensors must all have dtype {dt}, got {t.dtype}")
    send = np.concatenate([np.ascontiguousarray(t._np).reshape(-1).view(np.uint8) for t in input_tensor_list])
    scounts = [t.numel() * t.element_size() for t in input_tensor_list]
    rcounts = [t.numel() * t.element_size() for t in output_tensor_list]
    recv = np.empty(sum(rcounts), np.uint8)

    def finish():
        pos = 0
        for t, c in zip(output_tensor_list, rcounts):
            np.copyto(t._np, recv[pos:pos + c].view(t._np.dtype).reshape(t._np.shape))
            pos += c
    return g._impl.alltoall_v("all_to_all", send, scounts, recv, rcounts, finish, list(output_tensor_list),
                              async_op)


def all_to_all_single(output, input, output_split_sizes=None, input_split_sizes=None, group=None,
                      async_op=False):
    _check_tensor(output, "output")
    _check_tensor(input, "input")
    g = _resolve(group)
    if g is None:
        return None
    n = g.size()
    if output.dtype != input.dtype:
        raise TypeError(f"all_to_all_single: output dtype {output.dtype} differs from input dtype {input.dtype}")
    row_in = input.numel() // input.shape[0] * input.element_size() if input.dim() and input.shape[0] else 0
    row_out = output.numel() // output.shape[0] * output.element_size() if output.dim() and output.shape[0] else 0

    def splits(sizes, t, what):
        if sizes is None or len(sizes) == 0:
            if t.shape[0] % n:
                raise ValueError(f"all_to_all_single: {what} dim 0 ({t.shape[0]}) is not divisible by the group "
                                 f"size {n}; give {what}_split_sizes")
            return [t.shape[0] // n] * n
        sizes = list(sizes)
        if len(sizes) != n or sum(sizes) != t.shape[0]:
            raise ValueError(f"all_to_all_single: {what}_split_sizes {sizes} must have {n} entries summing to "
                             f"{t.shape[0]}")
        return sizes
    si = splits(input_split_sizes, input, "input")
    so = splits(output_split_sizes, output, "output")
    send = np.ascontiguousarray(input._np).reshape(-1).view(np.uint8)
    recv = np.empty(output.numel() * output.element_size(), np.uint8)

    def finish():
        np.copyto(output._np, recv.view(output._np.dtype).reshape(output._np.shape))
    return g._impl.alltoall_v("all_to_all_single", send, [s * row_in for s in si], recv, [s * row_out for s in so],
                              finish, [output], async_op)


def barrier(group=None, async_op=False, device_ids=None):
    g = _resolve(group)
    if g is None:
        return None
    return g._impl.barrier(async_op)


def monitored_barrier(group=None, timeout=None, wait_all_ranks=False):
    """A barrier (the watchdog reports ranks that do not arrive within the group's timeout)."""
    barrier(group)


def _peer(g, peer, group_peer, name):
    if group_peer is not None:
        if peer is not None:
            raise ValueError(f"Can not specify both {name} and group_{name}")
        return group_peer
    if peer is None:
        return None
    if peer not in g._ranks:
        raise ValueError(f"{name} rank {peer} is not part of group {g}")
    return g._ranks.index(peer)


def isend(tensor, dst=None, group=None, tag=0, group_dst=None):
    _check_tensor(tensor, "tensor")
    g = _resolve(group)
    if g is None:
        return None
    p = _peer(g, dst, group_dst, "dst")
    if p is None:
        raise ValueError("isend: dst must be given")
    if p == g.rank():
        raise ValueError("Invalid destination rank: destination rank should not be the same as the rank of the "
                         "current process.")
    return g._impl.send(tensor, p, tag)


def irecv(tensor, src=None, group=None, tag=0, group_src=None):
    _check_tensor(tensor, "tensor")
    g = _resolve(group)
    if g is None:
        return None
    p = _peer(g, src, group_src, "src")
    if p is not None and p == g.rank():
        raise ValueError("Invalid source rank: source rank should not be the same as the rank of the current "
                         "process.")
    return g._impl.recv(tensor, p, tag)


def send(tensor, dst=None, group=None, tag=0, group_dst=None):
    w = isend(tensor, dst, group, tag, group_dst)
    if w is not None:
        w.wait()


def recv(tensor, src=None, group=None, tag=0, group_src=None):
    """Receive into tensor; returns the sender's global rank (-1 when not a member)."""
    w = irecv(tensor, src, group, tag, group_src)
    if w is None:
        return -1
    w.wait()
    g = _resolve(group)
    return g._ranks[w.source_rank()]


def batch_isend_irecv(p2p_op_list):
    if not isinstance(p2p_op_list, list) or not all(isinstance(p, P2POp) for p in p2p_op_list):
        raise ValueError("Invalid ``p2p_op_list``. Each op is expected to to be of type ``torch.distributed.P2POp``.")
    return [p.op(p.tensor, p.peer, p.group, p.tag) for p in p2p_op_list]


# =============================================================================================
# object collectives (restricted unpickling: see _object_codec)
# =============================================================================================

def _obj_to_tensor(obj):
    import ember
    data = _object_codec.dumps(obj)
    return ember.from_numpy(np.frombuffer(bytearray(data), np.uint8)), len(data)


def _tensor_to_obj(t, size):
    return _object_codec.loads(np.ascontiguousarray(t._np[:size]).tobytes())


def _gather_sizes(g, n):
    import ember
    local = ember.tensor([n], dtype=ember.int64)
    sizes = [ember.zeros(1, dtype=ember.int64) for _ in range(g.size())]
    all_gather(sizes, local, group=g)
    return [int(s.item()) for s in sizes]


def all_gather_object(object_list, obj, group=None):
    g = _resolve(group)
    if g is None:
        return
    import ember
    t, n = _obj_to_tensor(obj)
    sizes = _gather_sizes(g, n)
    m = max(sizes)
    padded = ember.zeros(m, dtype=ember.uint8)
    padded[:n] = t
    outs = [ember.zeros(m, dtype=ember.uint8) for _ in range(g.size())]
    all_gather(outs, padded, group=g)
    for i, (o, s) in enumerate(zip(outs, sizes)):
        object_list[i] = _tensor_to_obj(o, s)


def gather_object(obj, object_gather_list=None, dst=None, group=None, group_dst=None):
    g = _resolve(group)
    if g is None:
        return
    import ember
    root = _root(g, "gather_object", dst if dst is not None or group_dst is not None else g._ranks[0], group_dst,
                 "dst")
    t, n = _obj_to_tensor(obj)
    sizes = _gather_sizes(g, n)
    m = max(sizes)
    padded = ember.zeros(m, dtype=ember.uint8)
    padded[:n] = t
    outs = [ember.zeros(m, dtype=ember.uint8) for _ in range(g.size())] if g.rank() == root else None
    gather(padded, outs, group=g, group_dst=root)
    if g.rank() == root:
        for i, (o, s) in enumerate(zip(outs, sizes)):
            object_gather_list[i] = _tensor_to_obj(o, s)


def broadcast_object_list(object_list, src=None, group=None, device=None, group_src=None):
    g = _resolve(group)
    if g is None:
        return
    import ember
    root = _root(g, "broadcast_object_list", src if src is not None or group_src is not None else g._ranks[0],
                 group_src)
    if g.rank() == root:
        parts = [_object_codec.dumps(o) for o in object_list]
        sizes = ember.tensor([len(p) for p in parts], dtype=ember.int64)
    else:
        sizes = ember.zeros(len(object_list), dtype=ember.int64)
    broadcast(sizes, group=g, group_src=root)
    total = int(sizes.sum().item())
    if g.rank() == root:
        buf = ember.from_numpy(np.frombuffer(bytearray(b"".join(parts)), np.uint8).copy())
    else:
        buf = ember.zeros(total, dtype=ember.uint8)
    broadcast(buf, group=g, group_src=root)
    if g.rank() != root:
        raw = np.ascontiguousarray(buf._np).tobytes()
        pos = 0
        for i, s in enumerate(sizes.tolist()):
            object_list[i] = _object_codec.loads(raw[pos:pos + s])
            pos += s


def scatter_object_list(scatter_object_output_list, scatter_object_input_list=None, src=None, group=None,
                        group_src=None):
    g = _resolve(group)
    if g is None:
        return
    root = _root(g, "scatter_object_list", src if src is not None or group_src is not None else g._ranks[0],
                 group_src)
    objs = list(scatter_object_input_list) if g.rank() == root else [None] * g.size()
    broadcast_object_list(objs, group=g, group_src=root)
    scatter_object_output_list[0] = objs[g.rank()]



