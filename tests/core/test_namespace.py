"""The `ember` namespace and the Tensor class: how they are assembled (issue 13).

- `ember.return_types` is a real module: the named tuples ops return pickle and unpickle;
- lazy subpackages exist as attributes exactly when their package does (`hasattr(ember, "fx")` is a bool);
- Tensor's methods come from its class statement: no module assigns attributes to Tensor or ember;
- TensorImpl's constructors make the registered public class, or the subclass they are called on.
"""
import ast
import copy
import importlib.util
import os
import pickle
import subprocess
import sys

import pytest

import ember
from ember._core.tensor_impl import TensorImpl

SRC = os.path.dirname(os.path.dirname(ember.__file__))


def test_return_types_pickle_round_trip():
    x = ember.tensor([[1.0, 5.0, 2.0], [4.0, 0.0, 3.0]])
    r = ember.max(x, 0)
    assert type(r).__module__ == "ember.return_types" and type(r).__name__ == "max"
    assert type(r) is ember.return_types.max
    back = pickle.loads(pickle.dumps(r))
    assert type(back) is ember.return_types.max
    assert back.values.tolist() == [4.0, 5.0, 3.0] and back.indices.tolist() == [1, 0, 1]
    s = ember.sort(x, 1)
    back = pickle.loads(pickle.dumps(s))
    assert back._fields == ("values", "indices") and back.indices.tolist() == [[0, 2, 1], [1, 2, 0]]
    assert copy.deepcopy(s).values.tolist() == s.values.tolist()


def test_return_types_match_torch_names():
    torch = pytest.importorskip("torch")
    for name in ember.return_types.__all__:
        if hasattr(torch.return_types, name):
            assert getattr(torch.return_types, name).n_fields == len(getattr(ember.return_types, name)._fields), name


def test_lazy_submodules_are_attributes_exactly_when_they_exist():
    for name in ember._LAZY_SUBMODULES:
        exists = importlib.util.find_spec(f"ember.{name}") is not None
        assert hasattr(ember, name) is exists, name
        if exists:
            assert getattr(ember, name).__name__ == f"ember.{name}"
            assert name in dir(ember)
    assert hasattr(ember, "no_such_package") is False
    with pytest.raises(AttributeError, match="no attribute 'no_such_package'"):
        ember.no_such_package


def test_hasattr_of_a_missing_torch_package_is_false_in_a_fresh_interpreter():
    code = ("import ember, importlib.util as u\n"
            "for n in ('fx', 'distributed', '_dynamo'):\n"
            "    assert hasattr(ember, n) is (u.find_spec('ember.' + n) is not None), n\n"
            "print('ok')")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       env=dict(os.environ, PYTHONPATH=SRC))
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stderr[-2000:]


def test_functional_names_are_the_namespace_names():
    from ember import functional
    for name in functional.__all__:
        assert getattr(ember, name) is getattr(functional, name), name
    assert ember.split is functional.split and ember.tensor is functional.tensor


def _assigns_attribute_of(tree, names):
    """(line, text) of every `X.attr = ...` or setattr(X, ...) with X in `names`, and sys.modules["ember"] use."""
    out = []
    for node in ast.walk(tree):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(
            node, (ast.AugAssign, ast.AnnAssign)) else []
        for t in targets:
            if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id in names:
                out.append((node.lineno, ast.unparse(t)))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "setattr" and \
                node.args and isinstance(node.args[0], ast.Name) and node.args[0].id in names:
            out.append((node.lineno, ast.unparse(node)))
        if isinstance(node, ast.Subscript) and ast.unparse(node) in ('sys.modules["ember"]', "sys.modules['ember']"):
            out.append((node.lineno, ast.unparse(node)))
    return out


def test_no_module_adds_attributes_to_tensor_or_ember():
    found = []
    for root, _, files in os.walk(os.path.join(SRC, "ember")):
        for f in files:
            if f.endswith(".py"):
                path = os.path.join(root, f)
                tree = ast.parse(open(path, encoding="utf-8").read())
                found += [(os.path.relpath(path, SRC), ln, s)
                          for ln, s in _assigns_attribute_of(tree, {"Tensor", "TensorImpl", "ember", "_ember", "E"})]
    # TensorImpl._tensor_cls is the registration hook's own slot, set in its own module; _tensor.py switches the
    # properties of Tensor's own instance attributes (dtype, grad_fn, _base: named in its class statement or
    # TensorImpl's) in and out while a TorchFunctionMode is pushed (_switch_instance_props)
    found = [x for x in found if x[2] != "TensorImpl._tensor_cls" and not (
        x[0] == os.path.join("ember", "_tensor.py") and x[2] in ("setattr(Tensor, name, prop)", "Tensor.dtype"))]
    assert found == []


def test_tensor_methods_come_from_the_class_statement():
    from ember._tensor import Tensor
    from ember._generated.tensor_methods import TensorMethods
    from ember._indexing import TensorIndexing
    from ember._conversions import TensorConversions
    assert Tensor.__mro__[1:] == (TensorIndexing, TensorConversions, TensorMethods, TensorImpl, object)
    assert Tensor.add is TensorMethods.add and Tensor.__add__ is TensorMethods.add
    assert "split" in Tensor.__dict__ and "__getitem__" in TensorIndexing.__dict__ and "to" in TensorConversions.__dict__
    assert TensorImpl._tensor_cls is Tensor


def test_every_tensor_is_a_public_tensor():
    x = ember.ones(2, 3)
    for t in (x, x + 1, x[0], x.t(), ember.zeros(2, device="meta"), ember.from_numpy(x.numpy()), x.detach(),
              ember.max(x, 1).values, x.split(1)[0], x.float(), pickle.loads(pickle.dumps(x))):
        assert type(t) is ember.Tensor and isinstance(t, TensorImpl)
    p = ember.nn.Parameter(ember.ones(2))
    assert isinstance(p, ember.Tensor) and type(p * 2) is ember.Tensor


def test_subclasses_construct_themselves():
    class Fake(TensorImpl):
        pass

    class MyTensor(ember.Tensor):
        pass

    a = Fake._wrap_fresh(ember.ones(3).numpy().copy(), ember.float32)
    assert type(a) is Fake and not isinstance(a, ember.Tensor)
    b = MyTensor._wrap_np(ember.ones(3).numpy().copy())
    assert type(b) is MyTensor and (b + 1).tolist() == [2.0, 2.0, 2.0]
    assert type(TensorImpl._wrap_np(ember.ones(1).numpy().copy())) is ember.Tensor


def test_register_tensor_class_rejects_a_non_subclass():
    from ember._core.tensor_impl import register_tensor_class
    with pytest.raises(TypeError, match="subclass of TensorImpl"):
        register_tensor_class(int)
