"""torch.__version__ in ember: a TorchVersion naming the torch release ember implements (ember's own release as
the local label), so the version gates scripts put before their first tensor op take torch 2.13's branch."""
import os
import re
import subprocess
import sys

import pytest

import ember
from ember.torch_version import TorchVersion
from _porting import run_script, torch_fixture  # noqa: F401  (the `torch` fixture)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_version_is_a_torch_version_naming_torch_and_ember():
    v = ember.__version__
    assert type(v) is TorchVersion and isinstance(v, str)
    assert v == "2.13.0+ember0.1.0" and str(v) == "2.13.0+ember0.1.0"
    assert v is ember.torch_version.__version__ and v == ember.version.__version__
    assert ember.version.torch_release == "2.13.0" and v.split("+") == ["2.13.0", "ember" + ember.version.ember_version]
    assert ember.version.cuda is None and ember.version.hip is None


def test_ember_version_is_the_package_version():
    with open(os.path.join(ROOT, "pyproject.toml")) as f:
        declared = re.search(r'^version = "([^"]+)"', f.read(), re.M).group(1)
    assert ember.version.ember_version == declared


def test_from_import_and_import_stays_light():
    code = (f"import sys; sys.path.insert(0, {os.path.join(ROOT, 'src')!r}); import ember; "
            "print('packaging.version' in sys.modules, 'ember.torch_version' in sys.modules); "
            "from ember import __version__; print(type(__version__).__name__, __version__)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split("\n")[:2] == ["False False", "TorchVersion 2.13.0+ember0.1.0"]


SCRIPT = '''
from packaging import version
checks = {
    "ge_1_8": torch.__version__ >= "1.8",
    "ge_2": torch.__version__ >= "2.0.0",
    "lt_1_10": torch.__version__ < "1.10",
    "ge_tuple": torch.__version__ >= (1, 12),
    "lt_2_14": torch.__version__ < (2, 14),
    "eq_plain": torch.__version__ == "2.13.0",
    "gt_plain": torch.__version__ > "2.13.0",
    "parsed_ge": version.parse(torch.__version__) >= version.parse("2.0"),
    "parsed_release": version.parse(torch.__version__).release,
    "base_version": version.parse(torch.__version__).base_version,
    "major_minor": tuple(int(p) for p in torch.__version__.split("+")[0].split(".")[:2]),
    "prefix": torch.__version__[:4],
    "startswith_2": torch.__version__.startswith("2."),
    "version_mod": torch.version.__version__ == torch.__version__,
    "cuda": torch.version.cuda,
    "is_str": isinstance(torch.__version__, str),
    "compile_gate": hasattr(torch, "compile") and version.parse(torch.__version__) >= version.parse("2.0"),
}
'''


@pytest.mark.parity
def test_scripts_version_gates_take_torchs_branch(torch):
    pytest.importorskip("packaging")
    assert torch.__version__.split("+")[0] == ember.version.torch_release, "ember implements the installed torch"
    e = run_script(SCRIPT, ember)["checks"]
    t = run_script(SCRIPT, torch)["checks"]
    assert e == t
    assert e["ge_1_8"] and e["parsed_ge"] and not e["lt_1_10"] and e["major_minor"] == (2, 13)


@pytest.mark.parity
def test_comparisons_match_torchs_version_object(torch):
    others = ["1.8", "2.0", "2.13", "2.13.0", "2.13.1", "2.14.0a0", "3", (2, 13), (2, 13, 0), (1, 10), "parrot"]
    for o in others:
        for op in ("__lt__", "__le__", "__eq__", "__ge__", "__gt__"):
            assert getattr(ember.__version__, op)(o) == getattr(torch.__version__, op)(o), (op, o)
    assert hash(ember.__version__) == hash("2.13.0+ember0.1.0")
