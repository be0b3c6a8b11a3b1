"""Generic comparison of a loaded object with a manifest.json node (FORMAT.md section 9)."""
import collections
import math

import numpy as np

import ember
from ember.serialization import _tensors


def _num(v):
    if isinstance(v, str):
        return {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}[v]
    return v


def _same_float(a, b):
    a, b = float(a), float(_num(b))
    if math.isnan(b):
        return math.isnan(a)
    return a == b and math.copysign(1, a) == math.copysign(1, b)


def logical_values(t):
    arr = t.numpy(force=True)
    if arr.dtype.kind == "c":
        return [[float(x.real), float(x.imag)] for x in arr.reshape(-1)]
    if arr.dtype.kind in "iub":
        return [int(x) if arr.dtype.kind != "b" else bool(x) for x in arr.reshape(-1)]
    return [float(x) for x in arr.astype(np.float64).reshape(-1)]


class Checker:
    def __init__(self):
        self.storage_of_key = {}     # manifest storage key -> ember storage object
        self.key_of_storage = {}     # id(storage) -> key

    def check(self, obj, node, path="root"):
        kind = node["type"]
        fn = getattr(self, "_" + kind.replace(".", "_"))
        fn(obj, node, path)

    def _tensor(self, t, node, path):
        assert _tensors.is_tensor(t), f"{path}: expected a tensor, got {type(t)}"
        assert t.dtype.name == node["dtype"], f"{path}: dtype {t.dtype.name} != {node['dtype']}"
        assert list(t.size()) == node["shape"], f"{path}: shape"
        meta = node.get("metadata") or {}
        # a conj / neg view (its metadata) loads as torch's: a view of the shared storage with the bit set
        assert t.is_conj() == bool(meta.get("conj")), f"{path}: is_conj() {t.is_conj()} != {meta}"
        assert t.is_neg() == bool(meta.get("neg")), f"{path}: is_neg() {t.is_neg()} != {meta}"
        assert list(t.stride()) == node["stride"], f"{path}: stride {t.stride()} != {node['stride']}"
        assert t.storage_offset() == node["storage_offset"], f"{path}: storage_offset"
        st = t.untyped_storage()
        key = node["storage"]
        if key in self.storage_of_key:
            assert self.storage_of_key[key] is st, f"{path}: storage {key} not shared"
        else:
            assert id(st) not in self.key_of_storage, f"{path}: storages wrongly merged"
            self.storage_of_key[key] = st
            self.key_of_storage[id(st)] = key
        assert bool(t.requires_grad) == node["requires_grad"], f"{path}: requires_grad"
        got = logical_values(t)
        want = node["values"]
        assert len(got) == len(want), f"{path}: numel"
        for i, (g, w) in enumerate(zip(got, want)):
            if isinstance(w, list):
                assert _same_float(g[0], w[0]) and _same_float(g[1], w[1]), f"{path}[{i}]: {g} != {w}"
            elif isinstance(w, bool) or isinstance(g, bool):
                assert bool(g) == bool(w), f"{path}[{i}]"
            elif isinstance(w, int) and not isinstance(g, float):
                assert g == w, f"{path}[{i}]: {g} != {w}"
            else:
                assert _same_float(g, w), f"{path}[{i}]: {g!r} != {w!r}"

    def _parameter(self, p, node, path):
        if _tensors.parameter_class() is not None:
            assert _tensors.is_parameter(p), f"{path}: expected a Parameter, got {type(p)}"
        assert bool(p.requires_grad) == node["requires_grad"], f"{path}: requires_grad"
        if _tensors.parameter_class() is not None:
            data, inner = _tensors.parameter_data(p), dict(node["data"], requires_grad=False)
        else:  # until ember.nn exists a Parameter loads as a tensor with its requires_grad
            data, inner = p, dict(node["data"], requires_grad=node["requires_grad"])
        self._tensor(data, inner, path + ".data")

    def _mapping(self, obj, node, path, cls):
        assert type(obj) is cls, f"{path}: {type(obj)} is not {cls}"
        items = list(obj.items())
        assert len(items) == len(node["items"]), f"{path}: {len(items)} items != {len(node['items'])}"
        for (k, v), (kn, vn) in zip(items, node["items"]):
            self.check(k, kn, f"{path}.key")
            self.check(v, vn, f"{path}[{k!r}]")
        for attr, an in (node.get("attrs") or {}).items():
            self.check(getattr(obj, attr), an, f"{path}.{attr}")

    def _dict(self, obj, node, path):
        self._mapping(obj, node, path, dict)

    def _OrderedDict(self, obj, node, path):
        self._mapping(obj, node, path, collections.OrderedDict)

    def _Counter(self, obj, node, path):
        self._mapping(obj, node, path, collections.Counter)

    def _seq(self, obj, node, path, cls):
        assert type(obj) is cls, f"{path}: {type(obj)} is not {cls}"
        items = sorted(obj) if cls is set else list(obj)
        assert len(items) == len(node["items"]), f"{path}: length"
        for i, (x, n) in enumerate(zip(items, node["items"])):
            self.check(x, n, f"{path}[{i}]")

    def _list(self, obj, node, path):
        self._seq(obj, node, path, list)

    def _tuple(self, obj, node, path):
        self._seq(obj, node, path, tuple)

    def _set(self, obj, node, path):
        self._seq(obj, node, path, set)

    def _int(self, obj, node, path):
        assert type(obj) is int and obj == node["value"], f"{path}: {obj!r} != {node['value']!r}"

    def _float(self, obj, node, path):
        assert type(obj) is float and _same_float(obj, node["value"]), f"{path}: {obj!r}"

    def _str(self, obj, node, path):
        assert type(obj) is str and obj == node["value"], f"{path}: {obj!r}"

    def _bool(self, obj, node, path):
        assert type(obj) is bool and obj == node["value"], f"{path}"

    def _none(self, obj, node, path):
        assert obj is None, path

    def _complex(self, obj, node, path):
        assert type(obj) is complex, path
        assert _same_float(obj.real, node["value"][0]) and _same_float(obj.imag, node["value"][1]), path

    def _bytes(self, obj, node, path):
        assert type(obj) is bytes and obj.hex() == node["hex"], path

    def _bytearray(self, obj, node, path):
        assert type(obj) is bytearray and obj.hex() == node["hex"], path

    def _torch_Size(self, obj, node, path):
        assert isinstance(obj, ember.Size) and list(obj) == node["value"], path

    def _torch_dtype(self, obj, node, path):
        assert obj is _tensors.dtype_by_name(node["name"]), f"{path}: {obj!r}"

    def _torch_device(self, obj, node, path):
        assert isinstance(obj, ember.device), path
        assert obj.type == node["device_type"] and obj.index == node["index"], path
        assert str(obj) == node["str"], path
