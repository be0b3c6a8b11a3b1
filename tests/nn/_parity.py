"""Shared helpers for module parity tests: copy ember weights into a torch module and compare."""
import numpy as np


def to_torch(torch, t):
    return torch.from_numpy(np.array(t.numpy(force=True)))


def copy_state(e, t, torch):
    """Load ember module e's state_dict into torch module t (values, via numpy)."""
    sd = {k: to_torch(torch, v) for k, v in e.state_dict().items()}
    t.load_state_dict(sd)


def backward_or_skip(pytest, fn):
    """Run a backward (the nn derivative formulas are in: a failure is a real failure)."""
    fn()
