"""A word-level language model in the style of pytorch/examples/word_language_model, run with `torch` bound to
ember and to torch: nn.Embedding + a 2-layer nn.LSTM with dropout + a tied decoder, NLLLoss over log_softmax,
truncated BPTT (hidden states detached), clip_grad_norm_, a manual SGD update at the scheduler's lr (StepLR),
evaluation under no_grad, and a state_dict saved and loaded again. Random streams differ by design, so the
run is compared by what it must do: shapes, the lr schedule, finite norms and losses, a loss that falls, and
the reloaded model giving the same validation loss."""
import io
import math

import ember
from _porting import run_script, torch_fixture  # noqa: F401  (the `torch` fixture)

SCRIPT = '''
words = ("the cat sat on the mat and the dog ate the bone while a bird sang " * 16).split()
vocab = {w: i for i, w in enumerate(sorted(set(words)))}
ids = torch.tensor([vocab[w] for w in words], dtype=torch.long)

def batchify(data, bsz):
    nbatch = data.size(0) // bsz
    return data.narrow(0, 0, nbatch * bsz).view(bsz, -1).t().contiguous()

class RNNModel(torch.nn.Module):
    def __init__(self, ntoken, ninp, nhid, nlayers, dropout=0.2):
        super().__init__()
        self.drop = torch.nn.Dropout(dropout)
        self.encoder = torch.nn.Embedding(ntoken, ninp)
        self.rnn = torch.nn.LSTM(ninp, nhid, nlayers, dropout=dropout)
        self.decoder = torch.nn.Linear(nhid, ntoken)
        self.decoder.weight = self.encoder.weight           # tied weights
        torch.nn.init.uniform_(self.encoder.weight, -0.1, 0.1)
        torch.nn.init.zeros_(self.decoder.bias)
        self.nhid, self.nlayers = nhid, nlayers

    def forward(self, input, hidden):
        emb = self.drop(self.encoder(input))
        output, hidden = self.rnn(emb, hidden)
        decoded = self.decoder(self.drop(output)).view(-1, self.decoder.out_features)
        return torch.nn.functional.log_softmax(decoded, dim=1), hidden

    def init_hidden(self, bsz):
        weight = next(self.parameters())
        return (weight.new_zeros(self.nlayers, bsz, self.nhid), weight.new_zeros(self.nlayers, bsz, self.nhid))

def repackage_hidden(h):
    return h.detach() if isinstance(h, torch.Tensor) else tuple(repackage_hidden(v) for v in h)

def get_batch(source, i, bptt=10):
    seq_len = min(bptt, len(source) - 1 - i)
    return source[i:i + seq_len], source[i + 1:i + 1 + seq_len].reshape(-1)

torch.manual_seed(0)
train_data, val_data = batchify(ids[:200], 4), batchify(ids[200:], 2)
model = RNNModel(len(vocab), 16, 16, 2)
criterion = torch.nn.NLLLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=5.0)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=0.5)

def evaluate(data_source):
    model.eval()
    total, hidden = 0., model.init_hidden(2)
    with torch.no_grad():
        for i in range(0, data_source.size(0) - 1, 10):
            data, targets = get_batch(data_source, i)
            output, hidden = model(data, hidden)
            hidden = repackage_hidden(hidden)
            total += len(data) * criterion(output, targets).item()
    return total / (len(data_source) - 1)

first = evaluate(val_data)
lrs, norms, val_losses, shapes = [], [], [], None
for epoch in range(3):
    model.train()
    hidden = model.init_hidden(4)
    for i in range(0, train_data.size(0) - 1, 10):
        data, targets = get_batch(train_data, i)
        hidden = repackage_hidden(hidden)
        model.zero_grad()
        output, hidden = model(data, hidden)
        shapes = (tuple(output.shape), tuple(hidden[0].shape), tuple(hidden[1].shape))
        criterion(output, targets).backward()
        norms.append(float(torch.nn.utils.clip_grad_norm_(model.parameters(), 0.25)))
        for p in model.parameters():
            p.data.add_(p.grad, alpha=-scheduler.get_last_lr()[0])
    lrs.append(scheduler.get_last_lr()[0])
    val_losses.append(evaluate(val_data))
    optimizer.step()
    scheduler.step()
before_save = evaluate(val_data)
buf = io.BytesIO()
torch.save(model.state_dict(), buf)
buf.seek(0)
model.load_state_dict(torch.load(buf))
reloaded = evaluate(val_data)
tied = model.decoder.weight is model.encoder.weight
'''


def test_word_language_model_trains_like_torch(torch):
    got = {}
    for lib in (torch, ember):
        env = run_script("import io\n" + SCRIPT, lib)
        got[lib.__name__] = env
        assert env["lrs"] == [5.0, 2.5, 1.25]
        assert env["shapes"] == ((36, 13), (2, 4, 16), (2, 4, 16))
        assert all(math.isfinite(n) and n > 0 for n in env["norms"])
        assert env["val_losses"][-1] < env["first"]
        assert env["reloaded"] == env["before_save"]
        assert env["tied"]
    # the untrained model's validation loss is log(vocabulary) give or take: both start from the same place
    assert abs(got["ember"]["first"] - got["torch"]["first"]) < 0.05


def test_lstm_projection_warns_once_like_torch(torch):
    """torch says once per process that LSTM projections leave oneDNN (float32 input); ember says it too."""
    import subprocess
    import sys
    code = ("import warnings, {m} as torch\n"
            "with warnings.catch_warnings(record=True) as w:\n"
            "    warnings.simplefilter('always')\n"
            "    lstm = torch.nn.LSTM(4, 6, proj_size=3)\n"
            "    lstm(torch.randn(2, 1, 4)); lstm(torch.randn(2, 1, 4))\n"
            "    torch.nn.LSTM(4, 6, proj_size=2).double()(torch.randn(2, 1, 4).double())\n"
            "print([(str(x.message).split(' (Triggered internally')[0], x.category.__name__, x.filename.endswith('rnn.py')) for x in w])\n")
    out = [subprocess.run([sys.executable, "-c", code.format(m=m)], capture_output=True, text=True, timeout=120,
                          env=dict(__import__("os").environ, PYTHONPATH=":".join(sys.path))).stdout
           for m in ("torch", "ember")]
    assert out[0] == out[1] and "oneDNN" in out[0]
