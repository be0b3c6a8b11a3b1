"""Build ember objects that mirror torch objects exactly: same containers, same key objects,
one ember storage per torch storage (views stay views), same offsets/strides/dtypes."""
import collections

import numpy as np

import ember
from ember.serialization import _tensors


def to_ember(obj, torch, _memo=None, _storages=None):
    memo = {} if _memo is None else _memo
    storages = {} if _storages is None else _storages
    if id(obj) in memo:
        return memo[id(obj)]
    if isinstance(obj, torch.Tensor):
        st = obj.untyped_storage()
        key = st._cdata
        if key not in storages:
            raw = np.frombuffer(bytearray(bytes(st)), dtype=np.uint8) if st.nbytes() else np.zeros(0, np.uint8)
            storages[key] = ember.UntypedStorage._from_numpy(raw)
        out = ember.Tensor._from_storage(storages[key], obj.storage_offset(), tuple(obj.size()),
                                         tuple(obj.stride()), _tensors.dtype_by_name(str(obj.dtype)[6:]))
        if obj.requires_grad:
            out.requires_grad_(True)
    elif isinstance(obj, torch.Size):
        out = ember.Size(tuple(obj))
    elif isinstance(obj, torch.dtype):
        out = _tensors.dtype_by_name(str(obj)[6:])
    elif isinstance(obj, torch.device):
        out = ember.device(obj.type, obj.index)
    elif type(obj) is dict:
        out = {to_ember(k, torch, memo, storages): to_ember(v, torch, memo, storages) for k, v in obj.items()}
    elif type(obj) is collections.OrderedDict:
        out = collections.OrderedDict(
            (to_ember(k, torch, memo, storages), to_ember(v, torch, memo, storages)) for k, v in obj.items())
        for a, v in vars(obj).items():
            setattr(out, a, to_ember(v, torch, memo, storages))
    elif type(obj) is list:
        out = [to_ember(v, torch, memo, storages) for v in obj]
    elif type(obj) is tuple:
        out = tuple(to_ember(v, torch, memo, storages) for v in obj)
    else:
        out = obj
    memo[id(obj)] = out
    return out


def assert_same(e, t, torch, path="root"):
    """ember object ``e`` equals torch object ``t`` (tensors: dtype, geometry, values)."""
    if isinstance(t, torch.Tensor):
        assert _tensors.is_tensor(e), path
        assert e.dtype.name == str(t.dtype)[6:], path
        assert tuple(e.size()) == tuple(t.size()) and tuple(e.stride()) == tuple(t.stride()), path
        assert e.storage_offset() == t.storage_offset(), path
        assert bool(e.requires_grad) == t.requires_grad, path
        a = e.numpy(force=True)
        if t.dtype in (torch.bfloat16, torch.float8_e4m3fn, torch.float8_e5m2):
            b = t.detach().float().numpy().astype(a.dtype)
        else:
            b = t.detach().numpy()
        np.testing.assert_array_equal(a.view(np.uint8) if a.dtype.itemsize == 1 and a.dtype.kind not in "biu"
                                      else a, b.view(np.uint8) if b.dtype.itemsize == 1 and b.dtype.kind not in "biu" else b)
    elif isinstance(t, (dict, collections.OrderedDict)):
        assert type(e) is type(t) and list(e) == list(t), path
        for k in t:
            assert_same(e[k], t[k], torch, f"{path}[{k!r}]")
    elif isinstance(t, torch.Size):
        assert isinstance(e, ember.Size) and tuple(e) == tuple(t), path
    elif isinstance(t, (list, tuple)):
        assert type(e) is type(t) and len(e) == len(t), path
        for i, (x, y) in enumerate(zip(e, t)):
            assert_same(x, y, torch, f"{path}[{i}]")
    elif isinstance(t, torch.dtype):
        assert e.name == str(t)[6:], path
    elif isinstance(t, torch.device):
        assert str(e) == str(t), path
    elif isinstance(t, float) and t != t:
        assert e != e, path
    else:
        assert e == t and type(e) is type(t), path
