"""torch.multiprocessing: spawn / start_processes run fn(i, *args) in child processes and propagate their
failures as torch does (ProcessRaisedException with the child's traceback, ProcessExitedException with the
exit code); tensors sent through Queue or Process arguments arrive intact and share memory (file_descriptor
and file_system strategies)."""
import re

import pytest

import ember
import ember.multiprocessing as mp
from _porting import torch_fixture  # noqa: F401  (the `torch` fixture)
import _mp_workers as W

pytestmark = pytest.mark.timeout(300) if hasattr(pytest.mark, "timeout") else []


def test_spawn_two_processes_writing_shared_memory():
    t = ember.zeros(2, 3)
    mp.spawn(W.fill_row, args=(t, 10.0), nprocs=2)
    assert t.tolist() == [[10.0] * 3, [11.0] * 3]
    assert mp.reductions.is_shared(t.untyped_storage())


def test_spawn_without_join_returns_the_context():
    ctx = mp.spawn(W.fill_row, args=(ember.zeros(1, 1), 0.0), nprocs=1, join=False)
    assert isinstance(ctx, mp.ProcessContext) and len(ctx.pids()) == 1
    while not ctx.join(timeout=30):
        pass


def _failure(t, fn, args, nprocs=2):
    with pytest.raises(Exception) as info:
        t.multiprocessing.spawn(fn, args=args, nprocs=nprocs)
    e = info.value
    return type(e).__name__, e.error_index, getattr(e, "exit_code", None), str(e)


@pytest.mark.parity
def test_child_exception_propagates_as_torch(torch):
    ours = _failure(ember, W.raise_in_one, (1,))
    theirs = _failure(torch, W.raise_in_one, (1,))
    assert ours[:3] == theirs[:3] == ("ProcessRaisedException", 1, None)
    for msg in (ours[3], theirs[3]):
        assert msg.startswith("\n\n-- Process 1 terminated with the following error:\nTraceback")
        assert msg.rstrip().endswith("ValueError: boom from 1")


@pytest.mark.parity
def test_child_exit_code_propagates_as_torch(torch):
    ours = _failure(ember, W.exit_with, (3,), nprocs=1)
    assert ours == _failure(torch, W.exit_with, (3,), nprocs=1)
    assert ours[3] == "process 0 terminated with exit code 3"
    assert issubclass(mp.ProcessExitedException, mp.ProcessException)


@pytest.mark.parametrize("strategy", sorted(mp.get_all_sharing_strategies()))
def test_queue_carries_tensors_intact(strategy):
    prev = mp.get_sharing_strategy()
    mp.set_sharing_strategy(strategy)
    try:
        ctx = mp.get_context("spawn")
        q, ack = ctx.Queue(), ctx.Queue()
        p = ctx.Process(target=W.send_tensors, args=(0, q, ack, "ember"))
        p.start()
        got = q.get(timeout=120)
        assert q.get(timeout=120) == ("done", 0)
        ack.put(True)
        p.join(60)
    finally:
        mp.set_sharing_strategy(prev)
    assert p.exitcode == 0
    assert got["base"].tolist() == [[float(4 * r + c) for c in range(4)] for r in range(3)]
    assert got["base"].dtype == ember.float64 and got["ints"].dtype == ember.int64
    assert got["col"].tolist() == [1.0, 5.0, 9.0] and got["col"].stride() == (4,)
    got["base"][0, 1] = -1                    # one message: the view kept sharing its base's storage
    assert got["col"][0].item() == -1
    assert isinstance(got["param"], ember.nn.Parameter) and got["param"].requires_grad
    assert got["flag"].tolist() == [True, False]


def test_queue_shares_memory_with_the_child():
    ctx = mp.get_context("spawn")
    q_in, q_out = ctx.Queue(), ctx.Queue()
    t = ember.arange(4.0)
    view = t[1:]
    p = ctx.Process(target=W.double_in_place, args=(q_in, q_out))
    p.start()
    q_in.put(t)
    assert q_out.get(timeout=120) == "ok"
    assert t.tolist() == [0.0, 2.0, 4.0, 6.0]        # the child's in-place op is seen here
    assert view.tolist() == [2.0, 4.0, 6.0]          # and through a view made before sharing
    q_in.put("bye")
    assert q_out.get(timeout=60) == "bye"
    p.join(60)


def test_refusals():
    x = ember.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="Cowardly refusing to serialize non-leaf tensor which requires_grad"):
        mp.reductions.reduce_tensor(x * 2)
    with pytest.raises(AssertionError, match="Invalid sharing strategy"):
        mp.set_sharing_strategy("carrier_pigeon")


@pytest.mark.parity
def test_namespace_matches_torch(torch):
    import torch.multiprocessing as tmp
    assert set(tmp.__all__) <= set(dir(mp))
    assert mp.get_all_sharing_strategies() == tmp.get_all_sharing_strategies()
    assert mp.get_sharing_strategy() == tmp.get_sharing_strategy()
    for name in ("spawn", "start_processes", "ProcessContext", "ProcessRaisedException", "ProcessExitedException"):
        assert hasattr(mp, name) and hasattr(tmp, name), name
    assert re.fullmatch(r"<bound method .*Queue.*>", repr(mp.Queue))


@pytest.mark.parametrize("start_method", ["fork", "spawn"])
def test_hogwild_shared_model(start_method):
    """model.share_memory(), then processes updating it in place: the parent sees every update."""
    model = ember.nn.Linear(2, 1)
    with ember.no_grad():
        model.weight.zero_()
        model.bias.zero_()
    view = model.weight[0]
    assert not model.weight.is_shared()
    assert model.share_memory() is model
    assert model.weight.is_shared() and model.bias.is_shared()
    assert model.weight.untyped_storage().is_shared()
    ctx = mp.get_context(start_method)
    procs = [ctx.Process(target=W.hogwild_step, args=(r, model)) for r in range(2)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(120)
    assert [p.exitcode for p in procs] == [0, 0]
    assert model.weight.tolist() == [[3.0, 3.0]] and model.bias.tolist() == [3.0]
    assert view.tolist() == [3.0, 3.0]              # a view made before sharing follows the storage


def test_share_memory_keeps_values_and_refuses_resize():
    t = ember.arange(5.0)
    assert t.share_memory_() is t and t.is_shared()
    assert t.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0]
    t.share_memory_()                               # already shared: nothing changes
    with pytest.raises(RuntimeError):
        t.untyped_storage().resize_(100)
