"""The examples' progress bar, sparkline and PNGs (examples/progress.py, examples/plots.py)."""
import io
import os
import sys

import pytest

EXAMPLES = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "examples")


@pytest.fixture(autouse=True)
def examples_on_path():
    sys.path.insert(0, EXAMPLES)
    yield
    sys.path.remove(EXAMPLES)


class _Terminal(io.StringIO):
    def isatty(self):
        return True


def test_piped_output_is_one_line_per_bar():
    from progress import Progress
    out = io.StringIO()
    for epoch in (1, 2):
        with Progress(50, f"epoch {epoch}", stream=out) as bar:
            for _ in range(50):
                bar.update(loss=0.5)
    lines = out.getvalue().splitlines()
    assert "\r" not in out.getvalue() and len(lines) == 2
    assert lines[0].startswith("epoch 1: 50/50 [") and "it/s]" in lines[0] and "loss=0.5000" in lines[0]


def test_terminal_output_redraws_one_line_without_tqdm():
    from progress import Progress
    out = _Terminal()
    bar = Progress(3, "train", stream=out, use_tqdm=False)
    for _ in range(3):
        bar.update(loss=1.25)
    bar.close()
    bar.close()                                    # closing twice prints nothing more
    text = out.getvalue()
    assert text.startswith("\r") and text.endswith("\n") and text.count("\n") == 1
    assert "3/3" in text and "<0:00" in text and "|########################|" in text


def test_terminal_output_uses_tqdm_when_installed():
    pytest.importorskip("tqdm")
    from progress import Progress
    out = _Terminal()
    with Progress(4, "train", stream=out) as bar:
        assert bar._tqdm is not None
        for _ in range(4):
            bar.update(loss=2.0)
    assert "4/4" in out.getvalue() and "loss=2.0000" in out.getvalue()


def test_eta_counts_down():
    from progress import Progress
    bar = Progress(10, "x", stream=io.StringIO())
    bar.start -= 2.0                               # 2 s for 1 step: 9 steps to go take 18 s
    bar.update()
    assert "1/10 [0:02<0:18, 0.50it/s]" in bar.line()


def test_sparkline():
    from progress import sparkline
    assert sparkline([1, 2, 3, 4, 5, 6, 7, 8]) == "▁▂▃▄▅▆▇█" or sys.stdout.encoding.lower() == "ascii"
    assert len(sparkline(range(1000), width=40)) == 40
    assert sparkline([]) == ""
    assert sparkline([3.0, 3.0]) == sparkline([1.0, 1.0])
    ascii_out = io.TextIOWrapper(io.BytesIO(), encoding="ascii")
    assert sparkline([0, 1], stream=ascii_out) == "_@"


def test_loss_curve_png(tmp_path):
    pytest.importorskip("matplotlib")
    from plots import save_digits_report, save_loss_curve
    import numpy as np
    p = save_loss_curve(str(tmp_path / "l.png"), [3 - i / 50 for i in range(100)], [(50, 2.5), (100, 2.1)])
    assert open(p, "rb").read(8) == b"\x89PNG\r\n\x1a\n"
    imgs = np.random.default_rng(0).random((30, 8, 8))
    q = save_digits_report(str(tmp_path / "d.png"), [1.0, 0.5], [0.9], imgs, [1] * 30, [1] * 29 + [2], 2)
    assert open(q, "rb").read(8) == b"\x89PNG\r\n\x1a\n"


def test_without_matplotlib_no_png_and_a_message(tmp_path, monkeypatch, capsys):
    from plots import save_loss_curve
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    assert save_loss_curve(str(tmp_path / "l.png"), [1.0, 0.5]) is None
    assert "matplotlib is not installed" in capsys.readouterr().out
    assert not (tmp_path / "l.png").exists()
