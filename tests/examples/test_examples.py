"""Run each example in its quick mode (a few steps) so CI proves they work end to end."""
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _run(script, *args):
    env = dict(os.environ, EMBER_QUICK="1", PYTHONPATH=os.path.join(ROOT, "src"))
    return subprocess.run([sys.executable, os.path.join(ROOT, "examples", script), *args], env=env,
                          capture_output=True, text=True, timeout=600)


def test_train_digits_quick(tmp_path):
    pytest.importorskip("sklearn")
    r = _run("train_digits.py", "--checkpoint", str(tmp_path / "ckpt.pt"))
    assert r.returncode == 0, r.stderr[-3000:]
    assert "test accuracy" in r.stdout and "reloaded model" in r.stdout
    assert (tmp_path / "ckpt.pt").exists()


def test_char_gpt_quick():
    r = _run("char_gpt.py")
    assert r.returncode == 0, r.stderr[-3000:]
    assert "---- sample ----" in r.stdout


def test_examples_import_and_forward():
    sys.path.insert(0, os.path.join(ROOT, "examples"))
    import ember
    import char_gpt
    m = char_gpt.GPT(char_gpt.GPTConfig(vocab_size=11, n_layer=1, n_head=2, n_embd=8, block_size=6))
    x = ember.randint(0, 11, (2, 6))
    logits, loss = m(x, x)
    assert tuple(logits.shape) == (2, 6, 11) and loss.dim() == 0
    assert tuple(m.generate(x[:, :2], 5).shape) == (2, 7)
    import train_digits
    assert tuple(train_digits.DigitsCNN()(ember.zeros(3, 1, 8, 8)).shape) == (3, 10)
