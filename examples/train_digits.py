"""Train a small CNN on scikit-learn's handwritten digits (8x8 images, 1797 samples, ships with the package)
with ember only -- ordinary PyTorch training code with `import ember as torch`.

    pip install -e .[demo] && python examples/train_digits.py            # full run
    python examples/train_digits.py --quick                              # a few steps (CI); or EMBER_QUICK=1

Prints a progress bar per epoch, the epoch's loss and test accuracy, saves a checkpoint with torch.save and
loads it back into a fresh model to check it predicts the same.
"""
import argparse
import os
import sys
import tempfile
import time

import numpy as np

import ember as torch
import ember.nn as nn
import ember.nn.functional as F
from ember.utils.data import DataLoader, TensorDataset


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


def progress(prefix, i, n, loss, width=30):
    done = int(width * i / n)
    bar = "#" * done + "-" * (width - done)
    sys.stdout.write(f"\r{prefix} [{bar}] {i}/{n} loss {loss:.4f}")
    sys.stdout.flush()


def evaluate(model, loader):
    model.eval()
    correct = total = 0
    with torch.no_grad():
        for xb, yb in loader:
            pred = model(xb).argmax(dim=1)
            correct += int((pred == yb).sum().item())
            total += yb.shape[0]
    return correct / total


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--epochs", type=int, default=12)
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--lr", type=float, default=2e-3)
    ap.add_argument("--quick", action="store_true", default=os.environ.get("EMBER_QUICK") == "1",
                    help="a few steps only (for CI)")
    ap.add_argument("--checkpoint", default=None, help="where to save (default: a temp dir)")
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
          "parameters")
    start = time.time()
    acc = 0.0
    for epoch in range(1, epochs + 1):
        model.train()
        total, seen = 0.0, 0
        n = len(train) if max_steps is None else min(max_steps, len(train))
        for i, (xb, yb) in enumerate(train, 1):
            loss = F.cross_entropy(model(xb), yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.item() * yb.shape[0]
            seen += yb.shape[0]
            progress(f"epoch {epoch:2d}/{epochs}", i, n, total / seen)
            if i >= n:
                break
        acc = evaluate(model, test)
        print(f"  | train loss {total / seen:.4f} | test accuracy {acc * 100:.2f}% | {time.time() - start:.1f}s")
    ckpt_dir = None
    path = args.checkpoint
    if path is None:
        ckpt_dir = tempfile.mkdtemp()
        path = os.path.join(ckpt_dir, "digits_cnn.pt")
    torch.save({"model": model.state_dict(), "optimizer": opt.state_dict(), "epoch": epochs}, path)
    ckpt = torch.load(path)
    fresh = DigitsCNN()
    fresh.load_state_dict(ckpt["model"])
    reloaded = evaluate(fresh, test)
    assert reloaded == acc, (reloaded, acc)
    print(f"saved checkpoint to {path} ({os.path.getsize(path)} bytes); reloaded model: test accuracy "
          f"{reloaded * 100:.2f}% (same)")
    print(f"done in {time.time() - start:.1f}s")
    return acc


if __name__ == "__main__":
    main()
