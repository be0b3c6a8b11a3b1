"""The parts of torch's namespace ember does not implement yet: a script touching one gets torch's
exception type and text (AttributeError "module ... has no attribute ...", ModuleNotFoundError "No
module named ...") plus which torch name ember lacks, never a bare or confusing error. torch's public
names per namespace are committed in ember/_core/torch_names.py by tools/torch_surface.py; a parity
test keeps that file equal to the installed torch's."""
import importlib
import os
import sys

import pytest

import ember
from ember._core.torch_names import NAMES, TORCH_VERSION
from _porting import run_script, torch_fixture  # noqa: F401  (the `torch` fixture)

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tools"))
import torch_surface  # noqa: E402


def _ember_module(torch_namespace):
    return importlib.import_module("ember" + torch_namespace[len("torch"):])


def _lacking(torch_namespace):
    mod = _ember_module(torch_namespace)
    out = {}
    for name in sorted(NAMES[torch_namespace]):
        try:
            getattr(mod, name)
        except AttributeError as e:
            assert isinstance(e, NotImplementedError), name     # a missing feature, not a typo
            out[name] = str(e)
        except ImportError:
            pass        # ember has it, behind an optional package that is not installed (utils.tensorboard)
    return out


@pytest.mark.parity
def test_committed_torch_names_match_the_installed_torch(torch):
    version, names = torch_surface.torch_names()
    if version != TORCH_VERSION:
        pytest.skip(f"torch_names.py is from torch {TORCH_VERSION}, the oracle is {version}")
    assert {k: sorted(v) for k, v in NAMES.items()} == names, "run `python tools/torch_surface.py`"


@pytest.mark.parametrize("namespace", sorted(NAMES))
def test_missing_torch_names_raise_attribute_error_naming_them(namespace):
    module_name = "ember" + namespace[len("torch"):]
    for name, message in _lacking(namespace).items():
        assert message == (f"module '{module_name}' has no attribute '{name}': ember does not implement "
                           f"{namespace}.{name} yet")
        assert not hasattr(_ember_module(namespace), name)


def test_missing_torch_submodules_raise_module_not_found_naming_them():
    for namespace in ("torch", "torch.nn", "torch.utils"):
        parent = _ember_module(namespace)
        for name in _lacking(namespace):
            if importlib.util.find_spec(f"torch.{name}" if namespace == "torch" else f"{namespace}.{name}") is None:
                continue            # not a torch module (a function or class)
            full = f"{parent.__name__}.{name}"
            with pytest.raises(ModuleNotFoundError) as e:
                importlib.import_module(full)
            assert str(e.value) == f"No module named '{full}': ember does not implement torch{full[5:]} yet"
            assert e.value.name == full and isinstance(e.value, NotImplementedError)


def test_names_torch_lacks_keep_the_plain_messages():
    with pytest.raises(AttributeError, match=r"^module 'ember' has no attribute 'not_a_torch_name'$") as e:
        ember.not_a_torch_name
    assert type(e.value) is AttributeError
    with pytest.raises(AttributeError, match=r"^module 'ember.nn' has no attribute 'Linearr'$"):
        ember.nn.Linearr
    with pytest.raises(ModuleNotFoundError, match=r"^No module named 'ember.not_a_module'$"):
        importlib.import_module("ember.not_a_module")
    assert importlib.util.find_spec("ember.not_a_module") is None


SCRIPT = """
import importlib
results = []
for attempt in (lambda: torch.quantize_per_tensor, lambda: torch.nn.LinearCrossEntropyLoss,
                lambda: importlib.import_module(torch.__name__ + ".sparse")):
    try:
        attempt()
    except Exception as e:
        results.append([c.__name__ for c in (AttributeError, ModuleNotFoundError, NotImplementedError)
                        if isinstance(e, c)])
"""


@pytest.mark.parity
def test_a_script_gets_the_exception_types_torch_would_raise_for_a_missing_name(torch):
    # torch has these (so its script runs on); ember raises what torch raises for a name it lacks
    assert run_script(SCRIPT, torch)["results"] == []
    # ... which is also a NotImplementedError, as for every torch name ember lacks
    assert run_script(SCRIPT, ember)["results"] == [["AttributeError", "NotImplementedError"]] * 2 + [
        ["ModuleNotFoundError", "NotImplementedError"]]
