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


@pytest.mark.parity
def test_torch_version_compares_as_torch(torch):
    from torch.torch_version import TorchVersion as TV
    cases = ["2.1.0", "1.10.0a0", "2.13.0+cpu", "0.1.0"]
    others = ["2.0", "2.1", "1.9.9", "1.10.0", (1, 10), (2, 1, 0), "parrot", "2.13"]
    for v in cases:
        for o in others:
            for op in ("__lt__", "__le__", "__eq__", "__ge__", "__gt__"):
                assert getattr(TorchVersion(v), op)(o) == getattr(TV(v), op)(o), (v, op, o)
    assert isinstance(TorchVersion("1.0"), str) and hash(TorchVersion("1.0")) == hash("1.0")
    assert ember.torch_version.__version__ == ember.version.__version__


@pytest.mark.parity
def test_types_namespace_matches_torch(torch):
    import torch.types as tt
    for name in ("Number", "Device", "FileLike", "Storage", "IntLikeType", "FloatLikeType", "BoolLikeType",
                 "PySymType", "py_sym_types", "_TensorOrTensors", "_size", "_int", "_float", "_bool", "_dtype",
                 "_device", "_Number"):
        assert hasattr(tt, name) and hasattr(ember.types, name), name
    assert ember.types._Number == tt._Number
    assert ember.types._dtype is ember.dtype and ember.types._device is ember.device
    assert set(ember.types.py_sym_types) == {ember.SymInt, ember.SymFloat, ember.SymBool}
