"""utils.tensorboard.SummaryWriter: the event files ember writes read back, through tensorboard's own
reader, with the same scalars, histograms and text as the files torch's SummaryWriter writes."""
import numpy as np
import pytest

import ember
from _porting import torch_fixture  # noqa: F401  (the `torch` fixture)

pytest.importorskip("tensorboard")


def _log(t, SummaryWriter, log_dir):
    with SummaryWriter(log_dir=str(log_dir)) as w:
        for step in range(3):
            w.add_scalar("loss", t.tensor(1.0 / (step + 1)), step)
            w.add_scalar("lr", 0.1 * step, global_step=step)
        w.add_scalars("run", {"train": 1.5, "val": 2.5}, 0)
        w.add_histogram("weights", t.tensor(np.linspace(-1, 1, 101).astype(np.float32)), 0)
        w.add_text("note", "hello", 0)


def _read(log_dir):
    from tensorboard.backend.event_processing.event_multiplexer import EventMultiplexer
    mux = EventMultiplexer().AddRunsFromDirectory(str(log_dir))
    mux.Reload()
    out = {}
    for run, tags in mux.Runs().items():
        name = run.replace("\\", "/").split("/")[-1] if run != "." else "."
        acc = mux.GetAccumulator(run)
        for tag in tags.get("scalars", []):
            out[(name, tag)] = [(e.step, round(e.value, 6)) for e in acc.Scalars(tag)]
        for tag in tags.get("histograms", []):
            h = acc.Histograms(tag)[0].histogram_value
            out[(name, tag)] = (h.min, h.max, h.num, round(h.sum, 4), round(h.sum_squares, 4), len(h.bucket_limit))
        for tag in tags.get("tensors", []):
            out[(name, tag)] = [e.tensor_proto.string_val for e in acc.Tensors(tag)]
    return out


@pytest.mark.parity
def test_summary_writer_events_match_torch(torch, tmp_path):
    from torch.utils.tensorboard import SummaryWriter as TorchWriter
    from ember.utils.tensorboard import SummaryWriter
    _log(ember, SummaryWriter, tmp_path / "ember")
    _log(torch, TorchWriter, tmp_path / "torch")
    got, want = _read(tmp_path / "ember"), _read(tmp_path / "torch")
    assert got == want
    assert (".", "loss") in got and ("run_train", "run") in got and ("run_val", "run") in got


def test_unbuilt_summaries_say_so(tmp_path):
    from ember.utils.tensorboard import SummaryWriter
    w = SummaryWriter(log_dir=str(tmp_path))
    with pytest.raises(NotImplementedError, match="add_image"):
        w.add_image("img", ember.zeros(3, 4, 4))
    w.close()
