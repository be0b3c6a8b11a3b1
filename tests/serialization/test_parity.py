"""Parity with real PyTorch 2.13 in both directions (skipped when torch is not installed)."""
import collections
import io
import random

import numpy as np
import pytest

import ember
from ember.serialization import load, save

from .torch_mirror import assert_same, to_ember

pytestmark = pytest.mark.parity
torch = pytest.importorskip("torch")


def _state_dict_like(n_layers=3):
    g = torch.Generator().manual_seed(0)
    sd = collections.OrderedDict()
    meta = collections.OrderedDict([("", {"version": 1})])
    for i in range(n_layers):
        sd[f"layers.{i}.weight"] = torch.randn(4, 3, generator=g)
        sd[f"layers.{i}.bias"] = torch.randn(4, generator=g)
        meta[f"layers.{i}"] = {"version": 1}
    sd["bn.running_mean"] = torch.zeros(4)
    sd["bn.num_batches_tracked"] = torch.tensor(7)
    sd._metadata = meta
    return sd


def _optimizer_like():
    g = torch.Generator().manual_seed(1)
    state = {i: {"step": torch.tensor(2.0), "exp_avg": torch.randn(3, generator=g),
                 "exp_avg_sq": torch.rand(3, generator=g)} for i in range(4)}
    return {"state": state,
            "param_groups": [{"lr": 0.01, "betas": (0.9, 0.999), "eps": 1e-08, "weight_decay": 0.01,
                              "amsgrad": False, "maximize": False, "foreach": None,
                              "capturable": False, "differentiable": False, "fused": None,
                              "params": [0, 1, 2, 3]}]}


def _all_dtypes():
    out = {}
    for name in ["float32", "float64", "float16", "bfloat16", "int8", "int16", "int32", "int64",
                 "uint8", "bool", "complex64", "complex128", "float8_e4m3fn", "float8_e5m2",
                 "uint16", "uint32", "uint64"]:
        dt = getattr(torch, name)
        out[name] = (torch.arange(6) % 3).to(dt).reshape(2, 3) if name != "bool" else \
            torch.tensor([[True, False, True], [False, True, False]])
    out["dtype_objs"] = [torch.float16, torch.float8_e4m3fn, torch.float16]
    return out


def _views():
    base = torch.arange(24.0).reshape(4, 6)
    part = torch.arange(100, dtype=torch.int32)
    u16 = torch.arange(10).to(torch.uint16)
    return {"base": base, "t": base.t(), "slice": base[1:, 2:], "step": base[:, ::2],
            "row": base[2], "elem": base[1, 1], "in_list": [base[0], base[3]],
            "in_tuple": (base[:2],), "expanded": torch.arange(3.0).expand(4, 3),
            "partial": part[10:13], "u16_view": u16[2:5], "u16": u16,
            "empty": torch.zeros(0, 3), "empty1": torch.zeros(0), "scalar": torch.tensor(1.5),
            "grad": torch.ones(2, requires_grad=True),
            "size": torch.Size([2, 3]), "dev": [torch.device("cpu"), torch.device("cuda", 0)],
            "same_twice": [base, base]}


def _many(n):
    return {f"t{i}": torch.full((i % 5 + 1,), float(i)) for i in range(n)}


def _random_structure(seed):
    rnd = random.Random(seed)
    pool = [torch.randn(rnd.randint(0, 5), generator=torch.Generator().manual_seed(seed))]

    def tensor():
        if pool and rnd.random() < 0.3:
            b = rnd.choice(pool)
            return b[rnd.randint(0, max(b.numel() - 1, 0)):] if b.dim() == 1 else b
        t = torch.randn(rnd.randint(0, 4), rnd.randint(1, 3)).to(rnd.choice(
            [torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.int64, torch.uint8]))
        pool.append(t.reshape(-1))
        return t

    def value(depth):
        r = rnd.random()
        if depth > 2 or r < 0.4:
            return rnd.choice([tensor, lambda: rnd.randint(-3, 70000), lambda: rnd.random(),
                               lambda: "s" + str(rnd.randint(0, 9)), lambda: None, lambda: True])()
        if r < 0.6:
            return [value(depth + 1) for _ in range(rnd.randint(0, 4))]
        if r < 0.7:
            return tuple(value(depth + 1) for _ in range(rnd.randint(0, 5)))
        if r < 0.85:
            return {f"k{i}": value(depth + 1) for i in range(rnd.randint(0, 4))}
        return collections.OrderedDict((i, value(depth + 1)) for i in range(rnd.randint(0, 3)))
    return {"root": value(0), "extra": tensor()}


CASES = {
    "state_dict": _state_dict_like,
    "optimizer": _optimizer_like,
    "dtypes": _all_dtypes,
    "views": _views,
    "many_12": lambda: _many(12),
    "many_40": lambda: _many(40),
    "many_300": lambda: _many(300),
    **{f"random_{s}": (lambda s=s: _random_structure(s)) for s in range(12)},
}


def _torch_bytes(obj):
    b = io.BytesIO()
    torch.save(obj, b)
    return b.getvalue()


def _ember_bytes(obj):
    b = io.BytesIO()
    save(obj, b)
    return b.getvalue()


@pytest.mark.parametrize("case", sorted(CASES))
def test_ember_save_is_byte_identical_to_torch(case):
    obj = CASES[case]()
    assert _ember_bytes(to_ember(obj, torch)) == _torch_bytes(obj)


def test_byte_identical_when_saving_to_paths(tmp_path):
    obj = _state_dict_like()
    (tmp_path / "t").mkdir()
    (tmp_path / "e").mkdir()
    torch.save(obj, tmp_path / "t" / "net.v1.pt")
    save(to_ember(obj, torch), tmp_path / "e" / "net.v1.pt")
    assert (tmp_path / "e" / "net.v1.pt").read_bytes() == (tmp_path / "t" / "net.v1.pt").read_bytes()


@pytest.mark.parametrize("case", sorted(CASES))
def test_torch_loads_ember_files_weights_only(case):
    obj = CASES[case]()
    back = torch.load(io.BytesIO(_ember_bytes(to_ember(obj, torch))), weights_only=True)
    assert_same(to_ember(back, torch), obj, torch)


@pytest.mark.parametrize("case", sorted(CASES))
def test_ember_loads_torch_files(case):
    obj = CASES[case]()
    data = _torch_bytes(obj)
    back = load(io.BytesIO(data))
    assert_same(back, obj, torch)


def test_ember_loads_torch_mmap_and_legacy(tmp_path):
    obj = _state_dict_like()
    p = tmp_path / "m.pt"
    torch.save(obj, p)
    assert_same(load(p, mmap=True), obj, torch)
    legacy = tmp_path / "legacy.pt"
    torch.save(_optimizer_like(), legacy, _use_new_zipfile_serialization=False)
    assert_same(load(legacy), _optimizer_like(), torch)


def test_shared_storage_survives_both_directions():
    obj = _views()
    back = load(io.BytesIO(_torch_bytes(obj)))
    st = back["base"].untyped_storage()
    for k in ("t", "slice", "step", "row", "elem"):
        assert back[k].untyped_storage() is st, k
    assert back["same_twice"][0] is back["same_twice"][1]
    tb = torch.load(io.BytesIO(_ember_bytes(back)), weights_only=True)
    assert tb["t"].untyped_storage().data_ptr() == tb["base"].untyped_storage().data_ptr()


def test_big_endian_records_are_swapped():
    obj = {"a": torch.arange(5, dtype=torch.int32), "h": torch.tensor([1.5, -2.0]).half(),
           "c": torch.tensor([1 + 2j], dtype=torch.complex64)}
    data = _torch_bytes(obj)
    # rewrite the archive as a big-endian machine would: byteorder 'big', storages swapped
    from ember.serialization import _zip
    r = _zip.ZipReader(io.BytesIO(data))
    out = io.BytesIO()
    w = _zip.ZipWriter(out, r.archive_name)
    widths = {"data/0": 4, "data/1": 2, "data/2": 4}
    for name in list(r.records):
        raw = r.read(name)
        if name == "byteorder":
            raw = b"big"
        elif name in widths:
            raw = np.frombuffer(raw, dtype=f"<u{widths[name]}").astype(f">u{widths[name]}").tobytes()
        w.write_record(name, raw)
    w.finish()
    back = load(io.BytesIO(out.getvalue()))
    assert_same(back, obj, torch)
