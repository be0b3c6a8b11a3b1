"""Train a small CNN on scikit-learn's handwritten digits (8x8 images, 1797 samples, ships with the package)
with ember only -- ordinary PyTorch training code with `import ember as torch`.

    pip install -e .[demo] && python examples/train_digits.py            # full run (about a minute)
    python examples/train_digits.py --quick                              # a few steps (CI); or EMBER_QUICK=1

Shows a progress bar per epoch (rate, ETA; one line per epoch when the output is not a terminal), the
epoch's loss and test accuracy, a sparkline of the loss, and saves train_digits.png: the loss curve and
some test digits with the model's predictions. The model goes through torch.save / torch.load (in memory,
or to --checkpoint) into a fresh model, which must predict the same.
"""
import argparse
import io
import os
import sys
import time

import numpy as np

import ember as torch
import ember.nn as nn
import ember.nn.functional as F
from ember.utils.data import DataLoader, TensorDataset

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from plots import save_digits_report  # noqa: E402
from progress import Progress, sparkline  # noqa: E402


class DigitsCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 16, 3, padding=1)     # (N, 1, 8, 8)  -> (N, 16, 8, 8)
        self.conv2 = nn.Conv2d(16, 32, 3, padding=1)    # (N, 16, 8, 8) -> (N, 32, 8, 8)
        self.pool = nn.MaxPool2d(2)                     #               -> (N, 32, 4, 4)
        self.fc1 = nn.Linear(32 * 4 * 4, 64)
        self.fc2 = nn.Linear(64, 10)

    def forward(self, x):
        x = F.relu(self.conv1(x))
        x = self.pool(F.relu(self.conv2(x)))
        x = torch.flatten(x, 1)
        return self.fc2(F.relu(self.fc1(x)))


def load_data(seed=0):
    try:
        from sklearn.datasets import load_digits
    except ImportError:
        sys.exit("this demo needs scikit-learn: pip install -e .[demo]")
    digits = load_digits()
    x = (digits.images / 16.0).astype(np.float32)[:, None]          # (1797, 1, 8, 8) in [0, 1]
    y = digits.target.astype(np.int64)
    perm = np.random.default_rng(seed).permutation(len(x))
    n_test = len(x) // 5
    test, train = perm[:n_test], perm[n_test:]
    return (TensorDataset(torch.tensor(x[train]), torch.tensor(y[train])),
            TensorDataset(torch.tensor(x[test]), torch.tensor(y[test])))


def evaluate(model, loader):
    model.eval()
    correct = total = 0
    with torch.no_grad():
        for xb, yb in loader:
            pred = model(xb).argmax(dim=1)
            correct += int((pred == yb).sum().item())
            total += yb.shape[0]
    return correct / total


def build_parser():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                 formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    ap.add_argument("--epochs", type=int, default=12, help="passes over the 1437 training images")
    ap.add_argument("--batch-size", type=int, default=32, help="images per optimizer step")
    ap.add_argument("--lr", type=float, default=2e-3, help="Adam's learning rate")
    ap.add_argument("--quick", action="store_true", default=os.environ.get("EMBER_QUICK") == "1",
                    help="one epoch of a few steps (for CI; also EMBER_QUICK=1)")
    ap.add_argument("--checkpoint", default=None,
                    help="save the checkpoint to this path too (default: the round trip stays in memory)")
    ap.add_argument("--plot", default="train_digits.png",
                    help="where to save the PNG (loss curve and predictions); '' for none")
    return ap


def main(argv=None):
    ap = build_parser()
    args = ap.parse_args(argv)
    torch.manual_seed(0)
    train_ds, test_ds = load_data()
    train = DataLoader(train_ds, batch_size=args.batch_size, shuffle=True)
    test = DataLoader(test_ds, batch_size=256)
    model = DigitsCNN()
    opt = torch.optim.Adam(model.parameters(), lr=args.lr)
    epochs = 1 if args.quick else args.epochs
    max_steps = 5 if args.quick else None
    print(model)
    print(f"train {len(train_ds)} / test {len(test_ds)} images, {sum(p.numel() for p in model.parameters())} "
          "parameters", flush=True)
    start = time.time()
    acc = 0.0
    losses, accuracies = [], []
    n = len(train) if max_steps is None else min(max_steps, len(train))
    for epoch in range(1, epochs + 1):
        model.train()
        total, seen = 0.0, 0
        with Progress(n, f"epoch {epoch:2d}/{epochs}") as bar:
            for i, (xb, yb) in enumerate(train, 1):
                loss = F.cross_entropy(model(xb), yb)
                opt.zero_grad()
                loss.backward()
                opt.step()
                losses.append(loss.item())
                total += losses[-1] * yb.shape[0]
                seen += yb.shape[0]
                bar.update(loss=total / seen)
                if i >= n:
                    break
        acc = evaluate(model, test)
        accuracies.append(acc)
        print(f"  train loss {total / seen:.4f} | test accuracy {acc * 100:.2f}% | {time.time() - start:.1f}s",
              flush=True)
    print(f"loss per step (log scale)  {sparkline(np.log(losses))}  {losses[0]:.3f} -> {losses[-1]:.3f}")
    buf = io.BytesIO()
    torch.save({"model": model.state_dict(), "optimizer": opt.state_dict(), "epoch": epochs}, buf)
    if args.checkpoint:
        with open(args.checkpoint, "wb") as f:
            f.write(buf.getvalue())
    buf.seek(0)
    ckpt = torch.load(buf)
    fresh = DigitsCNN()
    fresh.load_state_dict(ckpt["model"])
    reloaded = evaluate(fresh, test)
    assert reloaded == acc, (reloaded, acc)
    where = f"saved to {args.checkpoint}" if args.checkpoint else "in memory; --checkpoint PATH keeps it"
    print(f"checkpoint: {len(buf.getvalue())} bytes ({where}); reloaded model: test accuracy "
          f"{reloaded * 100:.2f}% (same)")
    if args.plot:
        xb, yb = next(iter(test))
        fresh.eval()
        with torch.no_grad():
            pred = fresh(xb).argmax(dim=1).tolist()
        if save_digits_report(args.plot, losses, accuracies, xb[:, 0].numpy(), yb.tolist(), pred, n):
            print(f"saved {args.plot}: the loss curve and 24 test digits with their predictions "
                  "(mistakes first)")
    print(f"done in {time.time() - start:.1f}s")
    return acc


if __name__ == "__main__":
    main()
