"""A seq2seq GRU encoder-decoder with additive attention, in the style of the PyTorch seq2seq tutorials
(Bahdanau attention, a bidirectional encoder over packed sequences), on a synthetic reversal task, run with
`torch` bound to ember and to torch: Embedding with padding_idx, pack_padded_sequence(enforce_sorted=False)
into a bidirectional GRU and pad_packed_sequence(total_length=...) back, attention through cat/tanh/
masked_fill/softmax/bmm, teacher forcing drawn with `random`, CrossEntropyLoss(ignore_index=PAD),
clip_grad_norm_ and Adam, then greedy decoding under eval()/no_grad()."""
import math
import random

import numpy as np
import pytest

import ember
from _porting import WeightSync, run_both, run_script, torch_fixture  # noqa: F401  (the `torch` fixture)

SCRIPT = '''
nn, F = torch.nn, torch.nn.functional
pack_padded_sequence, pad_packed_sequence = torch.nn.utils.rnn.pack_padded_sequence, torch.nn.utils.rnn.pad_packed_sequence
random.seed(0); torch.manual_seed(0)
rs = np.random.RandomState(0)
PAD, SOS, EOS, V, H = 0, 1, 2, 12, 16
B, S = 8, 7
lengths = torch.tensor(rs.randint(3, S + 1, size=B).tolist())
src = torch.from_numpy(rs.randint(3, V, size=(B, S))).long()
src = src.masked_fill(torch.arange(S)[None, :] >= lengths[:, None], PAD)
tgt = torch.flip(src, [1])   # a toy reversal task

class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.embedding = nn.Embedding(V, H, padding_idx=PAD)
        self.gru = nn.GRU(H, H, batch_first=True, bidirectional=True)
        self.fc = nn.Linear(2 * H, H)
    def forward(self, src, lengths):
        embedded = self.embedding(src)
        packed = pack_padded_sequence(embedded, lengths.cpu(), batch_first=True, enforce_sorted=False)
        packed_out, hidden = self.gru(packed)
        outputs, out_lens = pad_packed_sequence(packed_out, batch_first=True, total_length=S)
        hidden = torch.tanh(self.fc(torch.cat((hidden[-2], hidden[-1]), dim=1)))
        return outputs, hidden

class Attention(nn.Module):
    def __init__(self):
        super().__init__()
        self.attn = nn.Linear(3 * H, H)
        self.v = nn.Linear(H, 1, bias=False)
    def forward(self, hidden, enc, mask):
        src_len = enc.shape[1]
        hidden = hidden.unsqueeze(1).repeat(1, src_len, 1)
        energy = torch.tanh(self.attn(torch.cat((hidden, enc), dim=2)))
        scores = self.v(energy).squeeze(2).masked_fill(mask == 0, -1e10)
        return F.softmax(scores, dim=1)

class Decoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.embedding = nn.Embedding(V, H)
        self.attention = Attention()
        self.gru = nn.GRU(3 * H, H)
        self.out = nn.Linear(4 * H, V)
        self.dropout = nn.Dropout(0.0)
    def forward(self, inp, hidden, enc, mask):
        embedded = self.dropout(self.embedding(inp.unsqueeze(0)))
        a = self.attention(hidden, enc, mask).unsqueeze(1)
        weighted = torch.bmm(a, enc).permute(1, 0, 2)
        output, hidden = self.gru(torch.cat((embedded, weighted), dim=2), hidden.unsqueeze(0))
        pred = self.out(torch.cat((output.squeeze(0), weighted.squeeze(0), embedded.squeeze(0)), dim=1))
        return pred, hidden.squeeze(0), a.squeeze(1)

class Seq2Seq(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder, self.decoder = Encoder(), Decoder()
    def forward(self, src, lengths, trg, teacher_forcing_ratio=0.5):
        bsz, tlen = trg.shape
        outputs = torch.zeros(tlen, bsz, V)
        enc, hidden = self.encoder(src, lengths)
        mask = (src != PAD)
        inp = torch.full((bsz,), SOS, dtype=torch.long)
        for t in range(tlen):
            out, hidden, _ = self.decoder(inp, hidden, enc, mask)
            outputs[t] = out
            teacher_force = random.random() < teacher_forcing_ratio
            inp = trg[:, t] if teacher_force else out.argmax(1)
        return outputs

model = Seq2Seq()
sync(model)
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
criterion = nn.CrossEntropyLoss(ignore_index=PAD)
losses, norms = [], []
for it in range(15):
    model.train()
    opt.zero_grad()
    output = model(src, lengths, tgt)
    loss = criterion(output.permute(1, 0, 2).reshape(-1, V), tgt.reshape(-1))
    loss.backward()
    norms.append(float(torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)))
    opt.step()
    losses.append(loss.item())
model.eval()
with torch.no_grad():
    pred = model(src, lengths, tgt, 0.0).argmax(2).t()
'''


def _run(lib, sync):
    return run_script(SCRIPT, lib, np=np, random=random, sync=sync)


def _check(env):
    losses = env["losses"]
    assert len(losses) == 15 and all(math.isfinite(v) for v in losses)
    assert losses[-1] < losses[0] - 0.5
    assert all(0 < n < 10 for n in env["norms"])
    assert tuple(env["pred"].shape) == (8, 7)


def test_seq2seq_trains_with_ember():
    _check(_run(ember, WeightSync()))


@pytest.mark.parity
def test_seq2seq_matches_torch(torch):
    want, got = run_both(_run, torch)
    _check(want)
    _check(got)
    np.testing.assert_allclose(got["losses"], want["losses"], rtol=1e-3, atol=1e-4)
    np.testing.assert_allclose(got["norms"], want["norms"], rtol=1e-3, atol=1e-4)
    assert got["pred"].tolist() == want["pred"].tolist()
