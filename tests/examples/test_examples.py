"""Run each example in its quick mode (a few steps) so CI proves they work end to end, with their output
piped (one progress line per epoch, no carriage returns), their pictures saved, no debris left behind."""
import os
import subprocess
import sys
import time

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXAMPLES = os.path.join(ROOT, "examples")
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def _env(tmp_path, **extra):
    tmp = tmp_path / "tmpdir"
    tmp.mkdir(exist_ok=True)
    return dict(os.environ, EMBER_QUICK="1", PYTHONPATH=os.path.join(ROOT, "src"), TMPDIR=str(tmp), **extra)


def _run(script, *args, tmp_path):
    return subprocess.run([sys.executable, os.path.join(EXAMPLES, script), *args], env=_env(tmp_path),
                          capture_output=True, text=True, timeout=600, cwd=tmp_path)


def _has_matplotlib():
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return False
    return True


def test_train_digits_quick(tmp_path):
    pytest.importorskip("sklearn")
    r = _run("train_digits.py", "--checkpoint", str(tmp_path / "ckpt.pt"), "--plot", str(tmp_path / "d.png"),
             tmp_path=tmp_path)
    assert r.returncode == 0, r.stderr[-3000:]
    assert "test accuracy" in r.stdout and "reloaded model" in r.stdout
    assert (tmp_path / "ckpt.pt").exists()
    # piped: the epoch's bar is one summary line with its rate and ETA, never redrawn
    assert "\r" not in r.stdout
    bars = [line for line in r.stdout.splitlines() if line.startswith("epoch")]
    assert len(bars) == 1 and "it/s" in bars[0] and "5/5" in bars[0], bars
    assert "loss per step" in r.stdout
    if _has_matplotlib():
        assert (tmp_path / "d.png").read_bytes()[:8] == PNG_MAGIC
    assert os.listdir(tmp_path / "tmpdir") == []                 # no temporary folder left behind


def test_train_digits_default_keeps_the_checkpoint_in_memory(tmp_path):
    pytest.importorskip("sklearn")
    r = _run("train_digits.py", "--plot", "", tmp_path=tmp_path)
    assert r.returncode == 0, r.stderr[-3000:]
    assert "in memory" in r.stdout
    assert sorted(os.listdir(tmp_path)) == ["tmpdir"] and os.listdir(tmp_path / "tmpdir") == []


def test_char_gpt_quick(tmp_path):
    env = _env(tmp_path)
    proc = subprocess.Popen([sys.executable, "-u", os.path.join(EXAMPLES, "char_gpt.py"), "--plot",
                             str(tmp_path / "c.png")], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, cwd=tmp_path)
    t0 = time.monotonic()
    first = proc.stdout.readline()
    first_after = time.monotonic() - t0
    rest, err = proc.communicate(timeout=600)
    assert proc.returncode == 0, err[-3000:]
    assert first.startswith("char_gpt:")          # the banner comes before the corpus and the model
    print(f"first line after {first_after:.2f}s")
    out = first + rest
    assert "---- sample ----" in out and "\r" not in out
    during = [line for line in out.splitlines() if line.startswith("step ")]
    assert len(during) == 2 and all("validation loss" in line for line in during)   # samples while training
    if _has_matplotlib():
        assert (tmp_path / "c.png").read_bytes()[:8] == PNG_MAGIC


def test_demo_help_does_not_run_the_tour(tmp_path):
    r = _run("demo.py", "--help", tmp_path=tmp_path)
    assert r.returncode == 0 and r.stdout.startswith("usage:") and "==" not in r.stdout


@pytest.fixture
def examples_on_path():
    sys.path.insert(0, EXAMPLES)
    yield
    sys.path.remove(EXAMPLES)


def test_every_flag_has_help(examples_on_path):
    import char_gpt
    import demo
    import train_digits
    for module in (char_gpt, demo, train_digits):
        parser = module.build_parser()
        assert parser.description
        for action in parser._actions:
            assert action.help, f"{module.__name__}: {action.option_strings} has no help text"


def test_corpus_is_big_enough_not_to_memorise(examples_on_path):
    import tales
    text = tales.corpus()
    assert len(text) > 40_000
    assert tales.corpus() == text                    # seeded: every run trains on the same text
    paragraphs = text.split("\n\n")
    assert len(set(paragraphs)) == len(paragraphs)   # no tale repeats


def test_examples_import_and_forward(examples_on_path):
    import char_gpt
    import train_digits

    import ember
    m = char_gpt.GPT(char_gpt.GPTConfig(vocab_size=11, n_layer=1, n_head=2, n_embd=8, block_size=6))
    x = ember.randint(0, 11, (2, 6))
    logits, loss = m(x, x)
    assert tuple(logits.shape) == (2, 6, 11) and loss.dim() == 0
    assert tuple(m.generate(x[:, :2], 5).shape) == (2, 7)
    assert tuple(train_digits.DigitsCNN()(ember.zeros(3, 1, 8, 8)).shape) == (3, 10)
