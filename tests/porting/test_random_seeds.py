"""A fresh random seed per process unless manual_seed is called (as torch), and complex rand/randn
drawing both parts (randn: variance 1/2 each, so the complex variance is 1)."""
import subprocess
import sys

import pytest

import ember
from _porting import torch_fixture  # noqa: F401  (the `torch` fixture)

_PRINT = "import ember; print(ember.initial_seed(), ember.rand(3).tolist())"


def _run(code):
    import os
    env = dict(os.environ)
    src = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "src")
    env["PYTHONPATH"] = src + os.pathsep + env.get("PYTHONPATH", "")
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                          check=True).stdout


def test_each_process_starts_from_a_fresh_seed():
    assert _run(_PRINT) != _run(_PRINT)


def test_manual_seed_makes_processes_agree():
    code = "import ember; ember.manual_seed(7); print(ember.initial_seed(), ember.rand(3).tolist())"
    first = _run(code)
    assert first == _run(code) and first.startswith("7 ")


def test_new_generator_starts_from_torchs_default_seed():
    assert ember.Generator().initial_seed() == 67280421310721


@pytest.mark.parametrize("dtype", [ember.complex64, ember.complex128])
def test_complex_randn_and_rand_draw_both_parts(dtype):
    ember.manual_seed(0)
    z = ember.randn(200_000, dtype=dtype)
    assert z.dtype == dtype
    assert abs(z.real.var().item() - 0.5) < 0.01 and abs(z.imag.var().item() - 0.5) < 0.01
    assert abs((z.real * z.imag).mean().item()) < 0.01                 # independent parts
    u = ember.rand(200_000, dtype=dtype)
    assert 0 <= u.real.min().item() and u.real.max().item() < 1 and 0 <= u.imag.min().item() < 0.01
    assert abs(u.imag.mean().item() - 0.5) < 0.01
    n = ember.empty(200_000, dtype=dtype).normal_(1.0, 2.0)
    assert abs(n.real.mean().item() - 1) < 0.02 and abs(n.imag.mean().item() - 1) < 0.02
    assert abs(n.real.var().item() - 2) < 0.05
    v = ember.empty(200_000, dtype=dtype).uniform_(2.0, 3.0)
    assert 2 <= v.imag.min().item() < 2.01 and v.imag.max().item() < 3
    assert abs(ember.randn_like(z).imag.var().item() - 0.5) < 0.01


@pytest.mark.parity
def test_complex_moments_match_torch(torch):
    """Same distribution as torch (the streams differ): compare the per-part variances."""
    torch.manual_seed(0)
    tz = torch.randn(200_000, dtype=torch.complex64)
    ez = ember.randn(200_000, dtype=ember.complex64)
    for part in ("real", "imag"):
        assert abs(getattr(ez, part).var().item() - getattr(tz, part).var().item()) < 0.02


@pytest.mark.parity
def test_random_module_and_fork_rng_behave_as_torch(torch):
    got = []
    for L in (torch, ember):
        L.random.manual_seed(5)
        first = L.rand(3).tolist()
        L.random.manual_seed(5)
        with L.random.fork_rng():
            inside = L.rand(3).tolist()
        after = L.rand(3).tolist()                      # the state from before the block
        with L.random.fork_rng(enabled=False):
            L.rand(3)
        moved = L.rand(3).tolist() != after
        with L.random.fork_rng(devices=[], device_type="cpu"):
            L.rand(2)
        with L.random.fork_rng(device_type="meta"):
            pass
        state = L.random.get_rng_state()
        L.rand(2)
        L.random.set_rng_state(state)
        got.append((inside == first, after == first, moved, L.random.initial_seed(), L.random.thread_safe_generator(),
                    sorted(L.random.__all__), state.dtype == L.uint8))
    assert got[0] == got[1]
