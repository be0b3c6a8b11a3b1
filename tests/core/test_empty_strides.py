"""Strides of tensors with no elements against torch: every empty tensor is contiguous and non-overlapping
and dense (c10's flags), so empty_like/clone keep an empty input's strides; TensorIterator gives an
elementwise result contiguous strides when every operand has its shape and orders dims by the operands'
strides otherwise (a number or broadcast operand), laying them out with the raw sizes; channels-last
strides multiply raw sizes too (c10's get_channels_last_strides_2d)."""
import itertools

import pytest

import ember

SHAPES = [(0,), (0, 3), (3, 0), (2, 0, 3), (0, 1, 4), (1, 0, 5), (4, 1, 0), (2, 3, 0, 4), (0, 2, 3, 4),
          (2, 0, 1, 1), (1, 1, 0, 1), (2, 3, 4, 0), (2, 0, 3, 1, 2)]


def _ops(lib, e):
    ops = {
        "empty_like": lambda: lib.empty_like(e), "zeros_like": lambda: lib.zeros_like(e),
        "ones_like": lambda: lib.ones_like(e), "clone": lambda: e.clone(), "to64": lambda: e.to(lib.float64),
        "contiguous": lambda: e.contiguous(), "e+1": lambda: e + 1, "e*e": lambda: e * e, "1-e": lambda: 1 - e,
        "add alpha": lambda: lib.add(e, 2, alpha=3), "e>0": lambda: e > 0, "neg": lambda: e.neg(),
        "exp": lambda: e.exp(), "e+0d": lambda: e + lib.tensor(1.0), "int+1": lambda: e.long() + 1,
        "e/2": lambda: e / 2, "pow": lambda: e ** 2, "where": lambda: lib.where(e > 0, e, 0.0),
        "clamp": lambda: e.clamp(0, 1), "e+row": lambda: e + lib.zeros(e.shape[-1]),
        "maximum": lambda: lib.maximum(e, lib.tensor(0.0)),
    }
    if e.dim() >= 2:
        ops["eT+1"] = lambda: e.transpose(0, 1) + 1
        ops["e+eT.T"] = lambda: e + e.transpose(0, 1).contiguous().transpose(0, 1)
    if e.dim() == 4:
        cl = lib.channels_last
        ops.update({"contiguous cl": lambda: e.contiguous(memory_format=cl),
                    "empty_like cl": lambda: lib.empty_like(e, memory_format=cl),
                    "empty cl": lambda: lib.empty(e.shape, memory_format=cl),
                    "clone cl": lambda: e.clone(memory_format=cl), "to cl": lambda: e.to(memory_format=cl)})
    if e.dim() == 5:
        cl3 = lib.channels_last_3d
        ops.update({"contiguous cl3": lambda: e.contiguous(memory_format=cl3),
                    "empty cl3": lambda: lib.empty(e.shape, memory_format=cl3)})
    return ops


def _strides(lib, shape, perm):
    e = lib.empty(shape).permute(*perm)
    out = {"is_contiguous": e.is_contiguous()}
    for name, f in _ops(lib, e).items():
        r = f()
        out[name] = (tuple(r.shape), r.stride())
    if e.dim() == 4:
        out["is_cl"] = e.is_contiguous(memory_format=lib.channels_last)
    return out


@pytest.mark.parity
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_empty_tensor_strides_match_torch(shape):
    torch = pytest.importorskip("torch")
    for perm in itertools.permutations(range(len(shape))):
        assert _strides(ember, shape, perm) == _strides(torch, shape, perm), (shape, perm)


@pytest.mark.parity
def test_empty_like_keeps_strides_of_a_contiguous_tensor_with_odd_size1_strides():
    """A non-empty contiguous tensor whose size-1 dim has an odd stride is dense: torch's empty_like
    keeps its strides (ember gave contiguous ones)."""
    torch = pytest.importorskip("torch")
    for lib in (ember, torch):
        e = lib.empty(2, 1, 3).as_strided((2, 1, 3), (3, 100, 1))
        assert lib.empty_like(e).stride() == (3, 100, 1)
        assert e.clone().stride() == (3, 100, 1)


@pytest.mark.parity
def test_to_memory_format_aliases_by_the_suggested_format_like_torch():
    """torch's to_will_alias compares memory_format with suggest_memory_format(): a transposed matrix
    or an NHWC-permuted tensor `.to(memory_format=contiguous_format)` is returned as it is, a (2, 1, 4, 5)
    contiguous tensor `.to(memory_format=channels_last)` is copied, and so is an empty one."""
    torch = pytest.importorskip("torch")

    def cases(lib):
        cl, cf = lib.channels_last, lib.contiguous_format
        xs = [lib.zeros(3, 4).t(), lib.zeros(2, 3, 4, 5).permute(0, 2, 3, 1), lib.zeros(2, 3, 4, 5),
              lib.zeros(2, 1, 4, 5), lib.zeros(2, 3, 4, 5).transpose(2, 3), lib.zeros(1, 1, 0, 1),
              lib.zeros(2, 3, 1, 1), lib.zeros(2, 3, 1, 1).contiguous(memory_format=cl),
              lib.zeros(1, 3, 1, 4).transpose(1, 3), lib.zeros(2, 3, 4, 5, 6).permute(0, 2, 3, 4, 1)]
        out = []
        for x in xs:
            for mf in (cl, cf, lib.channels_last_3d, lib.preserve_format):
                try:
                    y = x.to(memory_format=mf)
                except RuntimeError as e:
                    out.append(str(e))
                    continue
                out.append((y is x, y.stride()))
        return out
    assert cases(ember) == cases(torch)


@pytest.mark.parity
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("order", ["C", "F"])
def test_from_numpy_of_an_empty_array_has_torch_strides(shape, order):
    """torch.from_numpy gives an empty array all-zero strides (numpy's are its layout's); ops on it follow."""
    torch = pytest.importorskip("torch")
    import numpy as np
    a = np.zeros(shape, np.float32, order=order)
    t, e = torch.from_numpy(a), ember.from_numpy(a)
    assert e.stride() == t.stride()
    assert e.is_contiguous() == t.is_contiguous()
    for f in (lambda x: x + 1, lambda x: x.clone(), lambda x: x.transpose(0, -1)):
        assert f(e).stride() == f(t).stride()
    e.add_(1)       # still a working tensor over the array's (empty) memory
    assert e.shape == t.shape
