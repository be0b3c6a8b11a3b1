"""Functions the multiprocessing tests run in child processes (importable by name, as spawn needs).
Like a script's `import torch.multiprocessing as mp`, importing ember.multiprocessing registers the reducers
that send tensors through shared memory (a spawned child re-imports a script's main module, so a script gets
them there too; a test module run under pytest is not re-imported, hence the import here)."""
import sys

import ember.multiprocessing  # noqa: F401


def fill_row(i, t, value):
    t[i] = value + i                    # in the parent's memory: the tensor arrived through shared memory


def raise_in_one(i, which):
    if i == which:
        raise ValueError(f"boom from {i}")


def exit_with(i, code):
    sys.exit(code)


def send_tensors(i, q, ack, torch_name):
    import importlib
    torch = importlib.import_module(torch_name)
    base = torch.arange(12, dtype=torch.float64).reshape(3, 4)
    q.put({"base": base, "col": base[:, 1], "ints": torch.tensor([1, 2, 3]),
           "param": torch.nn.Parameter(torch.ones(2)), "flag": torch.tensor([True, False])})
    q.put(("done", i))
    ack.get()                           # as with torch: the sender lives until the receiver has the tensors


def double_in_place(q_in, q_out):
    t = q_in.get()
    t.mul_(2)
    q_out.put("ok")
    q_out.put(q_in.get())               # wait until the parent has looked, keeping the storage alive


def hogwild_step(rank, model):
    """One in-place update of a model whose parameters the parent shares (torch's mnist_hogwild pattern)."""
    import ember
    with ember.no_grad():
        for p in model.parameters():
            p.add_(rank + 1)
