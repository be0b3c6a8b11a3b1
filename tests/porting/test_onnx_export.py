"""torch.onnx.export: models traced by ember.fx, translated to ONNX, checked with onnx.checker, and run
with onnxruntime against eager ember and against torch eager with the same weights."""
import numpy as np
import pytest

import ember
from _porting import torch_fixture  # noqa: F401  (the `torch` fixture)

onnx = pytest.importorskip("onnx")


def _mlp(t):
    t.manual_seed(0)
    return t.nn.Sequential(t.nn.Linear(4, 8), t.nn.GELU(), t.nn.Linear(8, 8), t.nn.Tanh(), t.nn.Linear(8, 3),
                           t.nn.LogSoftmax(-1))


def _cnn(t):
    class CNN(t.nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = t.nn.Conv2d(1, 4, 3, padding=1)
            self.bn = t.nn.BatchNorm2d(4)
            self.pool = t.nn.MaxPool2d(2)
            self.avg = t.nn.AvgPool2d(2)
            self.fc = t.nn.Linear(4 * 2 * 2, 5)
            self.ln = t.nn.LayerNorm(5)
            self.drop = t.nn.Dropout(0.5)

        def forward(self, x):
            x = self.avg(self.pool(t.relu(self.bn(self.conv(x)))))
            return self.ln(self.drop(self.fc(t.flatten(x, 1)))).sigmoid() * 2 - 1
    return CNN()


def _copy_weights(src, dst):
    import torch
    with torch.no_grad():
        for (_, p), (_, q) in zip(src.state_dict().items(), dst.state_dict().items()):
            q.copy_(torch.tensor(p.numpy()))


@pytest.mark.parametrize("build,shape", [(_mlp, (2, 4)), (_cnn, (2, 1, 8, 8))])
def test_export_checks_and_runs_like_eager(tmp_path, build, shape):
    ort = pytest.importorskip("onnxruntime")
    model = build(ember)
    x = ember.randn(*shape)
    path = str(tmp_path / "model.onnx")
    assert ember.onnx.export(model, (x,), path, input_names=["x"], output_names=["y"]) is None
    proto = onnx.load(path)
    onnx.checker.check_model(proto, full_check=True)
    assert [i.name for i in proto.graph.input] == ["x"] and [o.name for o in proto.graph.output] == ["y"]
    assert model.training                      # exported in eval mode, training mode restored
    model.eval()
    got = ort.InferenceSession(path).run(None, {"x": x.numpy()})[0]
    np.testing.assert_allclose(got, model(x).detach().numpy(), rtol=1e-5, atol=1e-5)


@pytest.mark.parity
def test_exported_model_matches_torch_eager(torch, tmp_path):
    ort = pytest.importorskip("onnxruntime")
    em, tm = _cnn(ember), _cnn(torch)
    _copy_weights(em, tm)
    x = np.random.default_rng(0).standard_normal((2, 1, 8, 8)).astype(np.float32)
    ember.onnx.export(em, (ember.tensor(x),), str(tmp_path / "e.onnx"))
    tm.eval()
    want = tm(torch.tensor(x)).detach().numpy()
    got = ort.InferenceSession(str(tmp_path / "e.onnx")).run(None, {"input": x})[0]
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
