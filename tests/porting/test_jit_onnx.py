"""torch.jit and torch.onnx as scripts meet them: decorators on model code, guards on is_scripting(),
imports at the top of a file; what ember cannot do raises NotImplementedError naming the way out."""
import pytest

import ember
from _porting import run_script, torch_fixture  # noqa: F401  (the `torch` fixture)

SCRIPT = """
import math

class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(3, 2)

    @torch.jit.ignore
    def debug(self):
        return "debug"

    @torch.jit.unused
    def unused_path(self):
        return "unused"

    @torch.jit.export
    def exported(self):
        return "exported"

    @torch.jit.ignore(drop=False)
    def ignored_with_args(self):
        return "ignored"

    def forward(self, x):
        if torch.jit.is_scripting() or torch.jit.is_tracing():
            return x
        return self.fc(x)

torch.manual_seed(0)
b = Block()
with torch.no_grad():
    b.fc.weight.copy_(torch.tensor([[1.0, 2.0, 3.0], [0.5, -1.0, 0.0]]))
    b.fc.bias.fill_(0.25)
y = b(torch.ones(1, 3))
result = (b.debug(), b.unused_path(), b.exported(), b.ignored_with_args(), y.tolist(),
          torch.jit.annotate(list, [1, 2]), torch.onnx.is_in_onnx_export())
"""


@pytest.mark.parity
def test_jit_decorated_model_runs_eagerly_like_torch(torch):
    assert run_script(SCRIPT, ember)["result"] == run_script(SCRIPT, torch)["result"]


@pytest.mark.parametrize("call", [lambda: ember.jit.script(ember.nn.Linear(2, 2)),
                                  lambda: ember.jit.trace(ember.nn.Linear(2, 2), ember.ones(1, 2)),
                                  lambda: ember.jit.save(None, "m.pt"), lambda: ember.jit.load("m.pt")])
def test_script_and_trace_point_to_ember_compile(call):
    with pytest.raises(NotImplementedError, match="ember.compile"):
        call()


def test_onnx_export_names_an_op_it_cannot_translate(tmp_path):
    pytest.importorskip("onnx")

    class Odd(ember.nn.Module):
        def forward(self, x):
            return ember.cumsum(x, 0)
    with pytest.raises(NotImplementedError, match="aten.cumsum"):
        ember.onnx.export(Odd(), (ember.ones(3),), str(tmp_path / "m.onnx"))
    assert not (tmp_path / "m.onnx").exists()


@pytest.mark.parity
def test_onnx_producer_is_the_exporting_librarys_own_release(torch):
    """torch stamps its own release into the models it writes; ember stamps ember's (the package version of
    pyproject.toml, not a copy of it that can go stale)."""
    import pathlib
    import re
    assert torch.onnx.producer_version == torch.__version__.split("+")[0]
    pyproject = pathlib.Path(__file__).resolve().parents[2] / "pyproject.toml"
    release = re.search(r'^version = "([^"]+)"', pyproject.read_text(), re.M).group(1)
    assert ember.onnx.producer_name == "ember"
    assert ember.onnx.producer_version == ember.version.ember_version == release
    assert ember.onnx.producer_version is ember.version.ember_version
