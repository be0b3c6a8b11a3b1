"""torch's `python_module:` placement: an op torch binds only in torch._C._nn / torch._C._linalg is not a public
`ember.<name>` function; it is reachable as ember._nn.<name> / ember._linalg.<name> (and through ember.nn.functional,
ember.linalg and ember.ops.aten)."""
import os
import sys

import pytest

import ember
from ember._generated import functions, linalg_functions, nn_functions

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MODULES = {"nn": nn_functions, "linalg": linalg_functions}
# not python_module ops: torch leaves these out of its Python bindings altogether (gen_python_functions' skip list),
# ember keeps them public as functions for now
NOT_BOUND_BY_TORCH = {"alias", "slice", "index", "unique_dim", "_to_copy"}


def _ember_entries():
    sys.path.insert(0, ROOT)
    try:
        from tools.codegen.model import load_native_functions
    finally:
        sys.path.remove(ROOT)
    return load_native_functions()


def _torch_python_modules():
    yaml = pytest.importorskip("yaml")
    torchgen = pytest.importorskip("torchgen")
    path = os.path.join(os.path.dirname(torchgen.__file__), "packaged", "ATen", "native", "native_functions.yaml")
    with open(path) as f:
        entries = yaml.safe_load(f)
    return {e["func"].split("(")[0]: e.get("python_module", "") for e in entries}


@pytest.mark.parity
def test_yaml_marks_python_module_like_torch():
    theirs = _torch_python_modules()
    wrong = [(str(f.func.name), f.python_module, theirs[str(f.func.name)]) for f in _ember_entries()
             if str(f.func.name) in theirs and f.python_module != theirs[str(f.func.name)]]
    assert not wrong


def test_python_module_ops_are_not_public_functions():
    for module, gen in MODULES.items():
        assert gen.__all__, module
        for name in gen.__all__:
            assert not hasattr(ember, name), name
            assert getattr(getattr(ember, "_" + module), name) is getattr(gen, name)


@pytest.mark.parity
def test_public_names_match_torch():
    torch = pytest.importorskip("torch")
    for name in functions.__all__:
        if name not in NOT_BOUND_BY_TORCH:
            assert hasattr(torch, name), f"ember.{name} is public but torch.{name} does not exist"
    for name in nn_functions.__all__:
        assert not hasattr(torch, name) and hasattr(torch._C._nn, name), name
    for name in linalg_functions.__all__:
        assert not hasattr(torch, name) and hasattr(torch._C._linalg, name), name


@pytest.mark.parity
def test_nn_bindings_check_types_like_torch():
    torch = pytest.importorskip("torch")
    x, tx = ember.ones(2, 3), torch.ones(2, 3)
    with pytest.raises(TypeError) as te:
        torch._C._nn.elu(tx, "a")
    with pytest.raises(TypeError) as ee:
        ember._nn.elu(x, "a")
    assert str(ee.value) == str(te.value)
    assert ember._nn.elu(x, 1.0).tolist() == torch._C._nn.elu(tx, 1.0).tolist()
    A = ember.eye(3) * 2
    assert ember._linalg.linalg_det(A).item() == 8.0
