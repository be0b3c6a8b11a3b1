import collections
import os
import time

import numpy as np
import pytest

import ember
from ember.utils.data import (BatchSampler, ChainDataset, ConcatDataset, DataLoader, Dataset, IterableDataset,
                              RandomSampler, SequentialSampler, StackDataset, Subset, SubsetRandomSampler,
                              TensorDataset, WeightedRandomSampler, default_collate, get_worker_info, random_split)


@pytest.fixture
def torch():
    return pytest.importorskip("torch")


class Squares(Dataset):
    def __init__(self, n=10):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        if i >= self.n:
            raise IndexError(i)
        return {"x": np.full(2, i, np.float32), "y": i, "name": f"s{i}"}


class Failing(Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, i):
        if i == 5:
            raise ValueError("bad sample 5")
        return i


class Stream(IterableDataset):
    def __init__(self, n):
        self.n = n

    def __iter__(self):
        info = get_worker_info()
        if info is None:
            return iter(range(self.n))
        return iter(range(info.id, self.n, info.num_workers))

    def __len__(self):
        return self.n


def to_py(x):
    if isinstance(x, ember.Tensor):
        return ("T", x.dtype.name, x.tolist())
    if isinstance(x, dict):
        return {k: to_py(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return type(x).__name__, [to_py(v) for v in x]
    return x


def to_py_torch(x, torch):
    if isinstance(x, torch.Tensor):
        return ("T", str(x.dtype).split(".")[1], x.tolist())
    if isinstance(x, dict):
        return {k: to_py_torch(v, torch) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return type(x).__name__, [to_py_torch(v, torch) for v in x]
    return x


Point = collections.namedtuple("Point", "a b")


def test_default_collate_matches_torch(torch):
    batches = [
        [1, 2, 3], [1.5, 2.5], [True, False], ["a", "b"],
        [np.array([1, 2], np.int32), np.array([3, 4], np.int32)], [np.float64(1.0), np.float64(2.0)],
        [{"a": 1, "b": (np.ones(2, np.float32), "z")}, {"a": 2, "b": (np.zeros(2, np.float32), "w")}],
        [Point(1, 2.0), Point(3, 4.0)], [[1, 2], [3, 4]], [(1, "x"), (2, "y")],
    ]
    from torch.utils.data import default_collate as tdc
    for b in batches:
        got = to_py(default_collate(b))
        want = to_py_torch(tdc(b), torch)
        assert got == want, b
    e = default_collate([ember.tensor([1.0, 2.0]), ember.tensor([3.0, 4.0])])
    assert e.shape == (2, 2)
    assert isinstance(default_collate([Point(1, 2), Point(3, 4)]), Point)
    with pytest.raises(RuntimeError, match="each element in list of batch should be of equal size"):
        default_collate([[1, 2], [3]])
    with pytest.raises(TypeError, match="default_collate: batch must contain tensors, numpy arrays, numbers, dicts "
                                        "or lists; found <class 'object'>"):
        default_collate([object()])


def test_datasets():
    t = TensorDataset(ember.tensor(np.arange(6).reshape(3, 2)), ember.tensor([0, 1, 2]))
    assert len(t) == 3 and t[1][0].tolist() == [2, 3] and t[1][1].item() == 1
    with pytest.raises(AssertionError, match="Size mismatch between tensors"):
        TensorDataset(ember.tensor([1, 2]), ember.tensor([1]))
    c = ConcatDataset([range(3), range(10, 15)])
    assert len(c) == 8 and c[3] == 10 and c[-1] == 14 and c.cumulative_sizes == [3, 8]
    assert list(Subset(range(10), [9, 3])) == [9, 3] if False else [Subset(range(10), [9, 3])[i] for i in range(2)] == [9, 3]
    s = StackDataset(a=range(3), b=range(3, 6))
    assert s[1] == {"a": 1, "b": 4}
    assert list(ChainDataset([Stream(2), Stream(3)])) == [0, 1, 0, 1, 2]
    assert len(Squares(3) + Squares(4)) == 7


def test_random_split():
    g = ember.Generator().manual_seed(0)
    a, b = random_split(range(10), [7, 3], generator=g)
    assert len(a) == 7 and len(b) == 3 and sorted(list(a) + list(b)) == list(range(10))
    parts = random_split(range(10), [0.5, 0.3, 0.2], generator=ember.Generator().manual_seed(0))
    assert [len(p) for p in parts] == [5, 3, 2]
    parts = random_split(range(11), [0.5, 0.5])
    assert [len(p) for p in parts] == [6, 5]
    g1, g2 = ember.Generator().manual_seed(4), ember.Generator().manual_seed(4)
    assert list(random_split(range(10), [5, 5], g1)[0]) == list(random_split(range(10), [5, 5], g2)[0])
    with pytest.raises(ValueError, match="Sum of input lengths does not equal the length of the input dataset!"):
        random_split(range(10), [3, 3])
    with pytest.raises(ValueError, match="Fraction at index 0 is not between 0 and 1"):
        random_split(range(10), [1.5, -0.5])


def test_samplers():
    assert list(SequentialSampler(range(4))) == [0, 1, 2, 3]
    g = ember.Generator().manual_seed(1)
    perm = list(RandomSampler(range(10), generator=g))
    assert sorted(perm) == list(range(10))
    rs = RandomSampler(range(5), replacement=True, num_samples=70, generator=g)
    idx = list(rs)
    assert len(idx) == 70 == len(rs) and all(0 <= i < 5 for i in idx)
    long = list(RandomSampler(range(4), num_samples=10, generator=g))
    assert len(long) == 10 and sorted(long[:4]) == [0, 1, 2, 3]
    with pytest.raises(TypeError, match="replacement should be a boolean value, but got replacement=1"):
        RandomSampler(range(3), replacement=1)
    with pytest.raises(ValueError, match="num_samples should be a positive integer value, but got num_samples=0"):
        RandomSampler(range(3), num_samples=0)
    assert sorted(SubsetRandomSampler([5, 7, 9], generator=g)) == [5, 7, 9]
    w = list(WeightedRandomSampler([0.0, 1.0, 0.0, 3.0], 50, generator=g))
    assert set(w) <= {1, 3} and len(w) == 50
    assert sorted(WeightedRandomSampler([1, 1, 1], 3, replacement=False, generator=g)) == [0, 1, 2]
    with pytest.raises(ValueError, match="weights should be a 1d sequence but given weights have shape \\(1, 2\\)"):
        WeightedRandomSampler([[1, 2]], 2)
    assert list(BatchSampler(range(7), 3, False)) == [[0, 1, 2], [3, 4, 5], [6]]
    assert list(BatchSampler(range(7), 3, True)) == [[0, 1, 2], [3, 4, 5]]
    assert len(BatchSampler(range(7), 3, False)) == 3 and len(BatchSampler(range(7), 3, True)) == 2
    with pytest.raises(ValueError, match="batch_size should be a positive integer value, but got batch_size=0"):
        BatchSampler(range(3), 0, False)
    ember.manual_seed(3)
    a = list(RandomSampler(range(20)))
    ember.manual_seed(3)
    assert list(RandomSampler(range(20))) == a


def test_dataloader_basic_single_process():
    dl = DataLoader(Squares(10), batch_size=4)
    batches = list(dl)
    assert len(dl) == 3 and len(batches) == 3
    b = batches[0]
    assert b["x"].shape == (4, 2) and b["x"].dtype is ember.float32
    assert b["y"].tolist() == [0, 1, 2, 3] and b["y"].dtype is ember.int64 and b["name"] == ["s0", "s1", "s2", "s3"]
    assert batches[-1]["y"].tolist() == [8, 9]
    assert len(list(DataLoader(Squares(10), batch_size=4, drop_last=True))) == 2
    nb = list(DataLoader(Squares(3), batch_size=None))
    assert nb[0]["y"] == 0 and isinstance(nb[0]["x"], ember.Tensor)
    bs = list(DataLoader(Squares(6), batch_sampler=[[5, 0], [1]]))
    assert [b["y"].tolist() for b in bs] == [[5, 0], [1]]
    g = ember.Generator().manual_seed(0)
    order1 = [b["y"].tolist() for b in DataLoader(Squares(10), batch_size=5, shuffle=True, generator=g)]
    assert sorted(sum(order1, [])) == list(range(10)) and order1 != [[0, 1, 2, 3, 4], [5, 6, 7, 8, 9]]
    out = list(DataLoader(Squares(4), batch_size=2, collate_fn=lambda b: [d["y"] for d in b]))
    assert out == [[0, 1], [2, 3]]
    assert [b.tolist() for b in DataLoader(Stream(5), batch_size=2)] == [[0, 1], [2, 3], [4]]
    assert len(DataLoader(Stream(5), batch_size=2)) == 3


def test_dataloader_argument_errors_match_torch(torch):
    cases = [
        dict(num_workers=-1), dict(timeout=-1), dict(prefetch_factor=2), dict(persistent_workers=True),
        dict(sampler=[0, 1], shuffle=True), dict(batch_sampler=[[0]], batch_size=2), dict(batch_size=None, drop_last=True),
    ]
    for kw in cases:
        with pytest.raises(ValueError) as ee:
            DataLoader(Squares(4), **kw)
        with pytest.raises(ValueError) as et:
            torch.utils.data.DataLoader(Squares(4), **kw)
        assert str(ee.value) == str(et.value)
    with pytest.raises(ValueError, match="DataLoader with IterableDataset: expected unspecified shuffle option, but got "
                                         "shuffle=True"):
        DataLoader(Stream(3), shuffle=True)
    dl = DataLoader(Squares(4))
    with pytest.raises(ValueError, match="batch_size attribute should not be set after DataLoader is initialized"):
        dl.batch_size = 3


def _init_fn(worker_id):
    info = get_worker_info()
    assert info.id == worker_id and info.num_workers == 2
    np.random.seed(info.seed % 2 ** 32)


class WhoAmI(Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, i):
        info = get_worker_info()
        return {"i": i, "pid": os.getpid(), "wid": info.id, "seed": info.seed, "t": ember.tensor([float(i)])}


def test_multiprocess_order_and_worker_info():
    dl = DataLoader(WhoAmI(), batch_size=2, num_workers=2, worker_init_fn=_init_fn,
                    generator=ember.Generator().manual_seed(0))
    batches = list(dl)
    assert [b["i"].tolist() for b in batches] == [[0, 1], [2, 3], [4, 5], [6, 7]]
    assert [b["wid"].tolist()[0] for b in batches] == [0, 1, 0, 1]
    pids = {p for b in batches for p in b["pid"].tolist()}
    assert len(pids) == 2 and os.getpid() not in pids
    seeds = {b["wid"].tolist()[0]: b["seed"].tolist()[0] for b in batches}
    assert seeds[1] == seeds[0] + 1
    assert batches[0]["t"].shape == (2, 1) and batches[0]["t"].dtype is ember.float32


def test_multiprocess_matches_single_process():
    single = [b["x"].tolist() for b in DataLoader(Squares(9), batch_size=2)]
    multi = [b["x"].tolist() for b in DataLoader(Squares(9), batch_size=2, num_workers=2, prefetch_factor=1)]
    assert single == multi


class BigElementwise(Dataset):
    """Each item: the worker's thread count and a big float op (split over the pool in a parent with
    more threads) after the parent has used its own pool."""
    def __len__(self):
        return 2

    def __getitem__(self, i):
        x = ember.full((1 << 19,), float(i))
        return {"threads": ember.get_num_threads(), "s": float((x + x).relu().sum())}


def test_workers_run_on_one_thread_after_the_parent_used_its_pool():
    # like torch's worker loop (set_num_threads(1)); the forked child must not touch the parent's pool threads
    old = ember.get_num_threads()
    ember.set_num_threads(2)
    try:
        x = ember.ones(1 << 19)
        assert float((x + x).sum()) == 2.0 * (1 << 19)        # the parent's pool exists now
        out = list(DataLoader(BigElementwise(), batch_size=None, num_workers=1))
        assert [b["threads"] for b in out] == [1, 1]
        assert [b["s"] for b in out] == [0.0, 2.0 * (1 << 19)]
        assert ember.get_num_threads() == 2                   # the parent keeps its setting
    finally:
        ember.set_num_threads(old)


def test_worker_exception_is_reraised_with_traceback():
    dl = DataLoader(Failing(), batch_size=2, num_workers=2)
    it = iter(dl)
    assert next(it).tolist() == [0, 1]
    with pytest.raises(ValueError) as e:
        for _ in it:
            pass
    msg = str(e.value)
    assert msg.startswith("Caught ValueError in DataLoader worker process 0.\nOriginal Traceback (most recent call last):")
    assert "bad sample 5" in msg and "__getitem__" in msg


def test_iterable_dataset_with_workers():
    out = sorted(x for b in DataLoader(Stream(7), batch_size=2, num_workers=2) for x in b.tolist())
    assert out == list(range(7))


def test_persistent_workers_reuse_processes():
    dl = DataLoader(WhoAmI(), batch_size=4, num_workers=2, persistent_workers=True)
    first = {p for b in dl for p in b["pid"].tolist()}
    it = iter(dl)
    next(it)                       # abandon an epoch midway
    second = {p for b in dl for p in b["pid"].tolist()}
    assert first == second and len(first) == 2
    assert [b["i"].tolist() for b in dl] == [[0, 1, 2, 3], [4, 5, 6, 7]]
    dl._iterator._shutdown_workers()


class Slow(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        time.sleep(3)
        return i


def test_timeout():
    with pytest.raises(RuntimeError, match="DataLoader timed out after 0.5 seconds"):
        list(DataLoader(Slow(), num_workers=1, timeout=0.5))
