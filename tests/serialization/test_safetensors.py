"""safetensors: byte-exact writer, validating zero-copy reader."""
import numpy as np
import pytest

import ember
from ember.utils import safetensors as sft

from .manifest_check import Checker


def test_fixture_loads_and_rewrites_byte_for_byte(fixtures_dir, manifest, tmp_path):
    entry = manifest["fixtures"]["model_state_dict.safetensors"]
    path = fixtures_dir / "model_state_dict.safetensors"
    sd = sft.load_file(path)
    for k, node in entry["tensors"].items():
        Checker()._tensor(sd[k], dict(node, storage=k), k)
    # zero-copy: the tensors view a map of the file
    assert isinstance(sd["emb.weight"].untyped_storage()._data, np.memmap)
    # same content in a different insertion order -> the same bytes as safetensors 0.8.0
    shuffled = {k: sd[k] for k in reversed(list(sd))}
    assert sft.save(shuffled, metadata={"format": "pt"}) == path.read_bytes()
    out = tmp_path / "again.safetensors"
    sft.save_file(shuffled, out, metadata={"format": "pt"})
    assert out.read_bytes() == path.read_bytes()
    with sft.safe_open(path) as f:
        assert f.metadata() == {"format": "pt"}
        assert sorted(f.keys()) == sorted(entry["tensors"])
        assert f.get_tensor("bn.num_batches_tracked").dtype is ember.int64


def test_roundtrip_dtypes(tmp_path):
    tensors = {
        "f32": ember.tensor([[1.0, 2.0], [3.0, 4.0]]),
        "i64": ember.tensor([1, 2, 3]),
        "bf16": ember.tensor([1.5, -2.0], dtype=ember.bfloat16),
        "u8": ember.tensor([1, 255], dtype=ember.uint8),
        "b": ember.tensor([True, False]),
        "scalar": ember.tensor(3.5, dtype=ember.float64),
        "empty": ember.tensor(np.zeros((0, 3), np.float32)),
    }
    p = tmp_path / "x.safetensors"
    sft.save_file(tensors, p)
    back = ember.load(p)    # .safetensors dispatch
    for k, t in tensors.items():
        assert back[k].dtype is t.dtype and tuple(back[k].size()) == tuple(t.size())
        np.testing.assert_array_equal(back[k].numpy(force=True), t.numpy(force=True))
    assert sft.load(sft.save(tensors)).keys() == back.keys()


def test_refuses_shared_and_non_contiguous():
    base = ember.tensor([[1.0, 2.0], [3.0, 4.0]])
    st = base.untyped_storage()
    view = ember.Tensor._from_storage(st, 0, (2, 2), (1, 2), ember.float32)
    with pytest.raises(sft.SafetensorError, match="non contiguous"):
        sft.save({"v": view})
    row = ember.Tensor._from_storage(st, 2, (2,), (1,), ember.float32)
    with pytest.raises(sft.SafetensorError, match="share memory"):
        sft.save({"a": base, "b": row})


@pytest.mark.parametrize("mutate", [
    lambda b: b[:4],
    lambda b: (10**9).to_bytes(8, "little") + b[8:],
    lambda b: b[:8] + b"x" + b[9:],
    lambda b: b[:-1],
    lambda b: b + b"\x00",
    lambda b: b.replace(b'"F32"', b'"X32"'),
    lambda b: b.replace(b"[0,16]", b"[0,17]"),
])
def test_malformed_files_raise(mutate, tmp_path):
    good = sft.save({"a": ember.tensor([1.0, 2.0]), "b": ember.tensor([1, 2])})
    bad = mutate(good)
    with pytest.raises(sft.SafetensorError):
        sft.load(bad)
    p = tmp_path / "bad.safetensors"
    p.write_bytes(bad)
    with pytest.raises(sft.SafetensorError):
        ember.serialization.load(p)


@pytest.mark.parity
def test_parity_with_safetensors_package(tmp_path):
    torch = pytest.importorskip("torch")
    st_torch = pytest.importorskip("safetensors.torch")
    sd = {"w": torch.randn(3, 4), "n": torch.tensor(7), "h": torch.randn(5).half()}
    p = tmp_path / "t.safetensors"
    st_torch.save_file(sd, str(p))
    back = sft.load_file(p)
    for k in sd:
        np.testing.assert_array_equal(back[k].numpy(force=True), sd[k].numpy())
    assert sft.save(back) == p.read_bytes()
