"""Memory ops: clone, copy_, _to_copy / to and the dtype shorthands, resize_, fill_, zero_, cat, stack."""
import numpy as np
import pytest

import ember
from _view_helpers import base, parity

DTYPES = ["float32", "float64", "int64", "int32", "uint8", "bool"]


@pytest.mark.parity
@pytest.mark.parametrize("name,shape,fn", [
    ("clone", (2, 3), lambda m, x: x.clone()),
    ("clone_t", (2, 3), lambda m, x: x.t().clone()),
    ("clone_perm_preserve", (2, 3, 4), lambda m, x: x.permute(2, 0, 1).clone()),
    ("clone_strided_preserve", (4, 6), lambda m, x: x[::2, 1::2].clone()),
    ("clone_expanded", (3, 1), lambda m, x: x.expand(3, 4).clone()),
    ("clone_contig_fmt", (2, 3), lambda m, x: x.t().clone(memory_format=m.contiguous_format)),
    ("clone_channels_last", (2, 3, 4, 5), lambda m, x: x.clone(memory_format=m.channels_last)),
    ("to_dtype", (2, 3), lambda m, x: x.to(m.int32)),
    ("to_dtype_t", (2, 3), lambda m, x: x.t().to(m.float64)),
    ("to_expanded", (3, 1), lambda m, x: x.expand(3, 4).to(m.float64)),
    ("to_copy", (2, 3), lambda m, x: x.to(m.float32, copy=True)),
    ("to_kw", (2, 3), lambda m, x: x.to(dtype=m.int64)),
    ("to_device_dtype", (2, 3), lambda m, x: x.to(x.device, m.float16)),
    ("to_other", (2, 3), lambda m, x: x.to(x.new_tensor([1], dtype=m.int8))),
    ("double", (2, 3), lambda m, x: x.double()),
    ("half", (2, 3), lambda m, x: x.half()),
    ("bfloat16", (2, 3), lambda m, x: x.bfloat16().float()),
    ("int", (2, 3), lambda m, x: (x - 2.5).int()),
    ("long", (2, 3), lambda m, x: x.long()),
    ("short", (2, 3), lambda m, x: x.short()),
    ("char", (2, 3), lambda m, x: x.char()),
    ("byte", (2, 3), lambda m, x: x.byte()),
    ("bool", (2, 3), lambda m, x: x.bool()),
    ("type_as", (2, 3), lambda m, x: x.type_as(x.new_tensor([1], dtype=m.int16))),
    ("cat0", (2, 3), lambda m, x: m.cat([x, x * 2])),
    ("cat1", (2, 3), lambda m, x: m.cat((x, x[:, :1]), 1)),
    ("cat_neg", (2, 3), lambda m, x: m.cat([x, x], -1)),
    ("cat_promote", (2, 3), lambda m, x: m.cat([x.int(), x.double()])),
    ("cat_legacy_empty", (2, 3), lambda m, x: m.cat([m.tensor([], dtype=m.int64), x])),
    ("cat_t", (2, 3), lambda m, x: m.cat([x.t(), x.t()])),
    ("stack", (2, 3), lambda m, x: m.stack([x, x + 1])),
    ("stack_dim", (2, 3), lambda m, x: m.stack([x, x], 2)),
    ("stack_neg", (2, 3), lambda m, x: m.stack([x, x], -2)),
    ("hstack", (2, 3), lambda m, x: m.hstack([x, x])),
    ("hstack_1d", (3,), lambda m, x: m.hstack([x, x])),
    ("vstack", (3,), lambda m, x: m.vstack([x, x])),
])
def test_memory_parity(name, shape, fn):
    pytest.importorskip("torch")
    parity(fn, base(shape), view=False)


@pytest.mark.parity
@pytest.mark.parametrize("src_dtype", DTYPES)
@pytest.mark.parametrize("dst_dtype", DTYPES)
def test_copy_dtype_conversion(src_dtype, dst_dtype):
    torch = pytest.importorskip("torch")
    src = np.array([[0, 1.5, -2.7], [3, 250.2, 0.0]]).astype(src_dtype)
    e = ember.from_numpy(np.zeros((2, 3), dst_dtype))
    t = torch.from_numpy(np.zeros((2, 3), dst_dtype))
    e.copy_(ember.from_numpy(src.copy()))
    t.copy_(torch.from_numpy(src.copy()))
    np.testing.assert_array_equal(e.numpy(), t.numpy())


@pytest.mark.parity
def test_copy_broadcast_and_views():
    torch = pytest.importorskip("torch")
    for mod in (ember, torch):
        x = mod.from_numpy(base((3, 4)))
        x[:, 1:3].copy_(mod.from_numpy(np.array([-1.0, -2.0], np.float32)))
        x.t()[0].copy_(mod.from_numpy(np.array([9.0], np.float32)))
        if mod is ember:
            got = x.numpy().copy()
        else:
            np.testing.assert_array_equal(got, x.numpy())


def test_copy_overlapping_shift_matches_numpy_semantics():
    x = ember.from_numpy(base((6,)))
    x[1:].copy_(x[:-1].clone())
    assert x.tolist() == [0, 0, 1, 2, 3, 4]


def test_copy_errors_leave_self_unchanged():
    x = ember.from_numpy(base((2, 3)))
    before = x.numpy().copy()
    with pytest.raises(RuntimeError, match=r"doesn't match the broadcast shape"):
        x.copy_(ember.from_numpy(base((4, 2, 3))))
    with pytest.raises(RuntimeError, match="must match the size"):
        x.copy_(ember.from_numpy(base((2,))))
    with pytest.raises(TypeError):
        x.copy_("3")
    e = ember.from_numpy(base((3, 1))).expand(3, 2)
    with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
        e.copy_(ember.from_numpy(base((3, 2))))
    y = ember.from_numpy(base((6,)))
    with pytest.raises(RuntimeError, match="some elements of the input tensor and the written-to tensor"):
        y[1:].copy_(y[:-1])
    np.testing.assert_array_equal(x.numpy(), before)
    assert y.tolist() == list(range(6))


def test_copy_number_fills():
    # torch's binding lets a number stand for `src` of copy_ (its allow-list of numbers-as-tensors)
    x = ember.from_numpy(base((2, 3)))
    assert x.copy_(3) is x
    assert x.tolist() == [[3.0] * 3] * 2
    i = ember.zeros(2, dtype=ember.int64)
    i.copy_(2.7)
    assert i.tolist() == [2, 2]


def test_copy_meta():
    m = ember.from_numpy(base((2, 3))).to("meta")
    assert m.copy_(ember.from_numpy(base((3,)))) is m
    with pytest.raises(NotImplementedError, match="meta"):
        ember.from_numpy(base((2, 3))).copy_(m)
    with pytest.raises(NotImplementedError, match="meta"):
        m.to("cpu")


def test_to_returns_self_or_copies():
    x = ember.from_numpy(base((2, 3)))
    assert x.to(ember.float32) is x and x.to("cpu") is x and x.float() is x and x.cpu() is x
    assert x.to(x) is x
    c = x.to(ember.float32, copy=True)
    assert c is not x and c.untyped_storage() is not x.untyped_storage()
    m = x.to("meta")
    assert m.is_meta and m.shape == (2, 3) and m.to("meta") is m
    assert x.to(device="meta", dtype=ember.float64).dtype is ember.float64
    t = x.t()       # torch's to_will_alias: the format its strides suggest aliases, contiguous or not
    assert t.to(memory_format=ember.contiguous_format) is t
    with pytest.raises(TypeError):
        x.to(1.5)


def test_resize_grows_storage():
    x = ember.tensor([1.0, 2.0, 3.0])
    st = x.untyped_storage()
    x.resize_(2, 3)
    assert x.shape == (2, 3) and x.stride() == (3, 1)
    assert x.untyped_storage().nbytes() >= 24
    assert x.view(-1)[:3].tolist() == [1.0, 2.0, 3.0]
    x.resize_(2)
    assert x.tolist() == [1.0, 2.0] and x.untyped_storage() is st
    m = x.to("meta").resize_(4, 4)
    assert m.shape == (4, 4) and m.untyped_storage().nbytes() == 64
    with pytest.raises(RuntimeError):
        x.resize_(-1)


@pytest.mark.parity
def test_fill_zero_parity():
    torch = pytest.importorskip("torch")
    out = []
    for mod in (ember, torch):
        x = mod.from_numpy(base((3, 4)).astype("int32"))
        x[1].fill_(7.9)
        x[:, 0].zero_()
        x.t()[3].fill_(mod.tensor(-1))
        mod.fill_(x[2, 1:3], 5)
        out.append(x.numpy().copy())
    np.testing.assert_array_equal(out[0], out[1])
    with pytest.raises(RuntimeError, match="0-dimension value tensor"):
        ember.from_numpy(base((3,))).fill_(ember.tensor([1.0, 2.0]))


def test_fill_meta():
    m = ember.from_numpy(base((3,))).to("meta")
    assert m.fill_(1) is m and m.zero_() is m


def test_version_counter_bumps_on_writes_and_is_shared_with_views():
    x = ember.from_numpy(base((2, 3)))
    v = x[0]
    assert v._base is x and v._version == x._version
    x.fill_(1.0)
    x.copy_(x.clone())
    v.zero_()
    x[1] = 3.0
    assert x._version == 4 and v._version == 4


@pytest.mark.parametrize("fn,exc,msg", [
    (lambda: ember.cat([]), RuntimeError, "expected a non-empty list of Tensors"),
    (lambda: ember.cat([ember.tensor(1.0)]), RuntimeError, "zero-dimensional tensor"),
    (lambda: ember.cat([ember.from_numpy(base((2, 3))), ember.from_numpy(base((2, 2)))]), RuntimeError,
     "Sizes of tensors must match except in dimension 0. Expected size 3 but got size 2 for tensor number 1"),
    (lambda: ember.cat([ember.from_numpy(base((2, 3))), ember.from_numpy(base((3,)))]), RuntimeError,
     "same number of dimensions"),
    (lambda: ember.cat([ember.from_numpy(base((2, 3)))], 2), IndexError, "Dimension out of range"),
    (lambda: ember.stack([ember.from_numpy(base((2,))), ember.from_numpy(base((3,)))]), RuntimeError,
     "stack expects each tensor to be equal size"),
    (lambda: ember.stack([]), RuntimeError, "non-empty TensorList"),
])
def test_cat_stack_errors(fn, exc, msg):
    with pytest.raises(exc, match=msg):
        fn()


def test_cat_out_and_meta():
    a = ember.from_numpy(base((2, 3)))
    out = ember.from_numpy(np.zeros((4, 3), np.float64))
    r = ember.cat([a, a], out=out)
    assert r is out and out.numpy()[2:].tolist() == base((2, 3)).tolist()
    m = ember.cat([a.to("meta"), a.to("meta")], 1)
    assert m.is_meta and m.shape == (2, 6)
    assert ember.stack([a.to("meta")] * 3, 1).shape == (2, 3, 3)
