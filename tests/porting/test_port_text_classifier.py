"""The text-classification tutorial (torchtext's AG_NEWS example) on synthetic token lists, run with `torch`
bound to ember and to torch: nn.EmbeddingBag with offsets in mode "mean" and in mode "sum" with
per_sample_weights, an IterableDataset through a DataLoader with the tutorial's collate_fn (offsets by
cumsum), SGD with clip_grad_norm_, StepLR, accuracy from argmax; EmbeddingBag "max" on 2-d input and
F.embedding_bag with padding_idx."""
import math

import numpy as np
import pytest

import ember
from _porting import WeightSync, run_both, run_script, torch_fixture  # noqa: F401  (the `torch` fixture)

SCRIPT = '''
nn = torch.nn
F = torch.nn.functional
DataLoader, IterableDataset = torch.utils.data.DataLoader, torch.utils.data.IterableDataset
torch.manual_seed(0)
rs = np.random.RandomState(0)
VOCAB, EMB, NCLS = 50, 16, 4
docs = [(int(rs.randint(NCLS)), rs.randint(VOCAB, size=rs.randint(3, 12)).tolist()) for _ in range(96)]

class Stream(IterableDataset):
    def __init__(self, items): self.items = items
    def __iter__(self):
        for label, toks in self.items:
            yield label, toks

def collate_batch(batch):
    label_list, text_list, offsets = [], [], [0]
    for _label, _text in batch:
        label_list.append(_label)
        processed_text = torch.tensor(_text, dtype=torch.int64)
        text_list.append(processed_text)
        offsets.append(processed_text.size(0))
    label_list = torch.tensor(label_list, dtype=torch.int64)
    offsets = torch.tensor(offsets[:-1]).cumsum(dim=0)
    text_list = torch.cat(text_list)
    return label_list, text_list, offsets

class TextClassificationModel(nn.Module):
    def __init__(self, vocab_size, embed_dim, num_class, mode):
        super().__init__()
        self.embedding = nn.EmbeddingBag(vocab_size, embed_dim, sparse=False, mode=mode)
        self.fc = nn.Linear(embed_dim, num_class)
        self.init_weights()
    def init_weights(self):
        initrange = 0.5
        self.embedding.weight.data.uniform_(-initrange, initrange)
        self.fc.weight.data.uniform_(-initrange, initrange)
        self.fc.bias.data.zero_()
    def forward(self, text, offsets, psw=None):
        embedded = self.embedding(text, offsets, per_sample_weights=psw)
        return self.fc(embedded)

losses, accs = [], []
for mode in ("mean", "sum"):
    model = TextClassificationModel(VOCAB, EMB, NCLS, mode)
    sync(model)
    criterion = torch.nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=2.0)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, 1, gamma=0.1)
    dl = DataLoader(Stream(docs), batch_size=16, collate_fn=collate_batch)
    for epoch in range(3):
        model.train()
        total_acc, total_count = 0, 0
        for idx, (label, text, offsets) in enumerate(dl):
            optimizer.zero_grad()
            psw = None
            if mode == "sum":
                psw = torch.linspace(0.5, 1.5, text.numel())
            predicted_label = model(text, offsets, psw)
            loss = criterion(predicted_label, label)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 0.1)
            optimizer.step()
            total_acc += (predicted_label.argmax(1) == label).sum().item()
            total_count += label.size(0)
            losses.append(loss.item())
        accs.append(total_acc / total_count)
        scheduler.step()
    model.eval()
    with torch.no_grad():
        lab, text, off = collate_batch(docs[:8])
        pred = model(text, off, torch.ones(text.numel()) if mode == "sum" else None).argmax(1)
lr_last = scheduler.get_last_lr()
bag = nn.EmbeddingBag(10, 3, mode="max")
sync(bag)
mx = bag(torch.tensor([[1, 2, 3], [4, 5, 6]]))
mx2 = F.embedding_bag(torch.tensor([1, 2, 4, 5, 4, 3, 2, 9]), bag.weight, torch.tensor([0, 4]), mode="sum", include_last_offset=False, padding_idx=2)
'''


def _values(v):
    return v.detach().numpy() if hasattr(v, "detach") else np.asarray(v, dtype=np.float64)


def _check(env):
    assert len(env["losses"]) == 36 and all(math.isfinite(v) for v in env["losses"])
    assert all(0 <= a <= 1 for a in env["accs"])
    assert tuple(env["mx"].shape) == (2, 3) and tuple(env["mx2"].shape) == (2, 3)


def test_text_classifier_runs_with_ember():
    _check(run_script(SCRIPT, ember, np=np, sync=WeightSync()))


@pytest.mark.parity
def test_text_classifier_matches_torch(torch):
    want, got = run_both(lambda lib, sync: run_script(SCRIPT, lib, np=np, sync=sync), torch)
    _check(want)
    _check(got)
    for key in ('accs', 'lr_last'):
        assert got[key] == want[key], key
    for key, rtol, atol in (('losses', 1e-05, 1e-06), ('pred', 0, 0), ('mx', 1e-06, 1e-07), ('mx2', 1e-06, 1e-06)):
        np.testing.assert_allclose(_values(got[key]), _values(want[key]), rtol=rtol, atol=atol, err_msg=key)
