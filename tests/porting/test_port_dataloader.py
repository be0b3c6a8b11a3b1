"""A DataLoader program in the style of the official examples, run with `torch` bound to ember and to torch: a
custom map-style Dataset, a batch Sampler bucketing by length, a collate_fn padding with pad_sequence and
returning a dict, num_workers=2 with worker_init_fn, persistent workers and get_worker_info, random_split,
ConcatDataset of Subsets, an IterableDataset split across workers, default_collate of nested structures. The
batches do not depend on the random stream, so they are compared whole."""
import ember
from _porting import run_script, torch_fixture  # noqa: F401  (the `torch` fixture)

SCRIPT = '''
tud = torch.utils.data

class SeqDataset(tud.Dataset):
    def __init__(self, n):
        self.items = [(torch.arange(i % 5 + 1, dtype=torch.float32), i % 3, {"id": i}) for i in range(n)]
    def __len__(self):
        return len(self.items)
    def __getitem__(self, idx):
        info = tud.get_worker_info()
        x, y, meta = self.items[idx]
        return x * 2, y, dict(meta, worker=-1 if info is None else info.id)

class BucketSampler(tud.Sampler):
    def __init__(self, data_source, batch_size):
        self.data_source, self.batch_size = data_source, batch_size
    def __iter__(self):
        order = sorted(range(len(self.data_source)), key=lambda i: (len(self.data_source.items[i][0]), i))
        for k in range(0, len(order), self.batch_size):
            yield order[k:k + self.batch_size]
    def __len__(self):
        return (len(self.data_source) + self.batch_size - 1) // self.batch_size

def collate(batch):
    xs, ys, metas = zip(*batch)
    return {"x": torch.nn.utils.rnn.pad_sequence(xs, batch_first=True, padding_value=-1.0),
            "len": torch.tensor([len(x) for x in xs]), "y": torch.tensor(ys), "ids": [m["id"] for m in metas],
            "workers": sorted({m["worker"] for m in metas})}

init_calls = []
def worker_init(wid):
    info = tud.get_worker_info()
    assert info.id == wid and info.num_workers == 2

ds = SeqDataset(23)
runs = {}
for nw in (0, 2):
    dl = tud.DataLoader(ds, batch_sampler=BucketSampler(ds, 4), collate_fn=collate, num_workers=nw,
                        worker_init_fn=worker_init if nw else None, persistent_workers=bool(nw),
                        prefetch_factor=2 if nw else None)
    out, workers = [], set()
    for epoch in range(2):
        for b in dl:
            out.append((tuple(b["x"].shape), b["x"].tolist(), b["len"].tolist(), b["y"].tolist(), b["ids"]))
            workers.update(b["workers"])
    runs[nw] = (len(dl), out, sorted(workers))
    del dl
tr, va = tud.random_split(ds, [0.8, 0.2], generator=torch.Generator().manual_seed(0))
split = (len(tr), len(va), type(tr).__name__)
dl2 = tud.DataLoader(tud.ConcatDataset([tud.Subset(ds, [0, 1, 2]), tud.Subset(ds, [3])]), batch_size=2,
                     num_workers=2, drop_last=True,
                     collate_fn=lambda b: tud.default_collate([(x.sum(), y) for x, y, _ in b]))
concat = [tuple(t.tolist() for t in b) for b in dl2]

class Stream(tud.IterableDataset):
    def __iter__(self):
        info = tud.get_worker_info()
        start, step = (0, 1) if info is None else (info.id, info.num_workers)
        return iter(range(start, 10, step))
streamed = sorted(int(v) for b in tud.DataLoader(Stream(), batch_size=3, num_workers=2) for v in b)
nested = tud.default_collate([{"a": torch.ones(2), "b": (1, 2.5)}, {"a": torch.zeros(2), "b": (3, 4.5)}])
nested = (nested["a"].tolist(), [t.tolist() for t in nested["b"]], [str(t.dtype).split(".")[1] for t in nested["b"]])
'''


def test_dataloader_program_like_torch(torch):
    envs = [run_script(SCRIPT, lib) for lib in (torch, ember)]
    for env in envs:
        assert env["runs"][0][1] == env["runs"][2][1]          # workers give the single-process batches
        assert env["runs"][0][2] == [-1] and env["runs"][2][2] == [0, 1]
    for key in ("runs", "split", "concat", "streamed", "nested"):
        assert envs[1][key] == envs[0][key], key
