"""Shared helpers for the views/indexing/copy tests: run the same function on ember and torch."""
import numpy as np

import ember


def base(shape, dtype="float32"):
    n = int(np.prod(shape))
    return np.arange(n, dtype=dtype).reshape(shape)


def to_list(r):
    return list(r) if isinstance(r, (list, tuple)) else [r]


def same_meta(a, b):
    """ember tensor `a` matches torch tensor `b` in shape, strides, offset and dtype name."""
    assert tuple(a.shape) == tuple(b.shape), (a.shape, b.shape)
    if a.numel() > 1:
        assert a.stride() == b.stride(), (a.stride(), b.stride())
    assert a.storage_offset() == b.storage_offset(), (a.storage_offset(), b.storage_offset())
    assert str(a.dtype).split(".")[-1] == str(b.dtype).split(".")[-1], (a.dtype, b.dtype)


def parity(fn, arr, *, view=None, meta=True):
    """fn(module, tensor) on ember and torch: same values and geometry; views share storage;
    the same call on device meta gives the same geometry as on cpu."""
    import torch
    e = ember.from_numpy(arr.copy())
    t = torch.from_numpy(arr.copy())
    re, rt = to_list(fn(ember, e)), to_list(fn(torch, t))
    assert len(re) == len(rt)
    for a, b in zip(re, rt):
        same_meta(a, b)
        np.testing.assert_array_equal(np.asarray(a.numpy()), b.numpy())
        if view is True:
            assert a.untyped_storage() is e.untyped_storage()
        elif view is False:
            assert a.untyped_storage() is not e.untyped_storage()
    if meta:
        m = ember.from_numpy(arr.copy()).to("meta")
        rm = to_list(fn(ember, m))
        for a, b in zip(rm, re):
            assert a.device.type == "meta"
            assert tuple(a.shape) == tuple(b.shape) and a.dtype is b.dtype
            if a.numel() > 1:
                assert a.stride() == b.stride()
            assert a.storage_offset() == b.storage_offset()
    return re
