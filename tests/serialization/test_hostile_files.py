"""Hostile checkpoints built byte by byte: a weights-only load never lets a file set a tensor's
internal fields (sizes, strides, offset, cached array, storage, __dict__), a deeply nested
safetensors header is a SafetensorError, and corrupted records fail their CRC-32 check."""
import io
import json
import pickle
import struct
import zlib

import numpy as np
import pytest

import ember
from ember.serialization._zip import ZipFormatError
from ember.utils import safetensors as sft

from . import crafted as C


def _load(data: bytes, **kw):
    return ember.load(io.BytesIO(data), **kw)


@pytest.mark.parametrize("name", sorted(C.INTERNAL_FIELD_ATTACKS))
@pytest.mark.parametrize("weights_only", [True, False])
def test_internal_fields_cannot_be_set(name, weights_only):
    data = C.checkpoint(C.pickle_of(C.INTERNAL_FIELD_ATTACKS[name]))
    if not weights_only and name.startswith("build_"):
        pytest.skip("weights_only=False is the full unpickler: BUILD there is Python's own")
    with pytest.raises(pickle.UnpicklingError, match="Weights only load failed"):
        _load(data, weights_only=weights_only)


def test_the_untouched_file_loads():
    # the attacks differ from this one only in the state they add
    t = _load(C.checkpoint(C.pickle_of(C.from_type_v2(C.dict_of()))))
    assert t.shape == (4,) and t.tolist() == [1.0, 2.0, 3.0, 4.0]
    p = _load(C.checkpoint(C.pickle_of(C.parameter_with_state(C.dict_of()))))
    assert isinstance(p, ember.nn.Parameter) and p.tolist() == [1.0, 2.0, 3.0, 4.0]


def test_plain_attributes_and_requires_grad_are_set():
    state = C.dict_of(note=C.text("hello"), scale=C.integer(3), requires_grad=C.TRUE)
    t = _load(C.checkpoint(C.pickle_of(C.from_type_v2(state))))
    assert t.note == "hello" and t.scale == 3 and t.requires_grad
    assert t.shape == (4,) and t.sum().item() == 10.0
    p = _load(C.checkpoint(C.pickle_of(C.parameter_with_state(C.dict_of(tag=C.text("w"))))))
    assert p.tag == "w" and p.shape == (4,)


def test_refusal_names_the_field_and_sets_nothing():
    state = C.dict_of(ok=C.integer(1), _size=C.BIG)
    with pytest.raises(pickle.UnpicklingError, match="'_size'.*internal state"):
        _load(C.checkpoint(C.pickle_of(C.from_type_v2(state))))


def test_every_internal_field_is_protected():
    """All the fields ember keeps on tensors made in many ways are refused as checkpoint state."""
    from ember.serialization._tensors import check_python_attr
    a = ember.randn(3, 4, requires_grad=True)
    a.retain_grad()
    (a * 2).sum().backward()
    lin = ember.nn.Linear(2, 3)
    lin(ember.randn(4, 2)).sum().backward()
    made = [a, a.grad, a[1:], a.t(), a * 2, ember.ones(2, device="meta"), lin.weight,
            lin.weight.grad, ember.nn.BatchNorm1d(3).running_mean, ember.tensor([1, 2]).view(2, 1)]
    fields = set().union(*(vars(t) for t in made))
    fresh = _load(C.checkpoint(C.pickle_of(C.tensor_v2())))
    for name in sorted(fields):
        assert check_python_attr(fresh, name) is not None, name


@pytest.mark.parity
def test_torch_refuses_or_ignores_the_same_files():
    """torch refuses the BUILD forms and the read-only fields; the private names it accepts land
    beside its C++ tensor as plain attributes and leave the sizes alone (ember, which keeps
    its sizes in the Python object, refuses them)."""
    torch = pytest.importorskip("torch")
    refused = {"build_tensor_size", "build_tensor_plain", "build_parameter_size",
               "from_type_dtype", "from_type_grad_fn"}
    for name, obj in C.INTERNAL_FIELD_ATTACKS.items():
        data = C.checkpoint(C.pickle_of(obj))
        if name in refused:
            with pytest.raises(Exception):
                torch.load(io.BytesIO(data), weights_only=True)
            continue
        t = torch.load(io.BytesIO(data), weights_only=True)
        assert tuple(t.shape) == (4,) and torch.Tensor.sum(t).item() == 10.0, name


# -- safetensors ---------------------------------------------------------------------------

def _safetensors_with_header(header: bytes) -> bytes:
    return struct.pack("<Q", len(header)) + header


@pytest.mark.parametrize("depth", [100, 100_000])
def test_deeply_nested_safetensors_header(depth, tmp_path):
    header = b'{"a":' + b"[" * depth + b"]" * depth + b"}"
    data = _safetensors_with_header(header)
    with pytest.raises(sft.SafetensorError):
        sft.load(data)
    p = tmp_path / "deep.safetensors"
    p.write_bytes(data)
    with pytest.raises(sft.SafetensorError):
        ember.load(p)


def test_nested_metadata_is_refused():
    header = json.dumps({"__metadata__": {"a": {"b": {}}}}).encode()
    with pytest.raises(sft.SafetensorError):
        sft.load(_safetensors_with_header(header))


# -- CRC-32 --------------------------------------------------------------------------------

def _saved(tmp_path, obj):
    p = tmp_path / "ckpt.pt"
    ember.save(obj, p)
    return p, bytearray(p.read_bytes())


def _flip_in_record(data: bytearray, needle: bytes) -> None:
    i = bytes(data).index(needle)
    data[i] ^= 0x01


def test_pickle_record_crc_is_always_checked(tmp_path):
    p, data = _saved(tmp_path, {"weight": ember.arange(4.0)})
    _flip_in_record(data, b"weight")          # a byte of data.pkl: still a valid pickle
    p.write_bytes(bytes(data))
    with pytest.raises(ZipFormatError, match=r"data\.pkl: CRC-32 mismatch"):
        ember.load(p)
    assert isinstance(ZipFormatError("x"), RuntimeError)


@pytest.mark.parametrize("mmap", [False, True])
def test_verify_crc_catches_a_flipped_data_byte(tmp_path, mmap):
    values = np.arange(1 << 19, dtype=np.float32)         # 2 MB: read by the parallel path
    small = np.arange(8, dtype=np.float32)
    obj = {"big": ember.from_numpy(values), "small": ember.from_numpy(small)}
    for target in (values, small):
        p, data = _saved(tmp_path, obj)
        _flip_in_record(data, target[5:9].tobytes())
        p.write_bytes(bytes(data))
        loaded = ember.load(p, mmap=mmap)                  # the default does not read every CRC
        assert not np.array_equal(loaded["big"].numpy(), values) or \
            not np.array_equal(loaded["small"].numpy(), small)
        with pytest.raises(ZipFormatError, match=r"data/\d: CRC-32 mismatch"):
            ember.load(p, mmap=mmap, verify_crc=True)


def test_verify_crc_accepts_good_files(tmp_path):
    obj = {"a": ember.randn(300, 300), "b": ember.arange(10), "empty": ember.zeros(0)}
    p, _ = _saved(tmp_path, obj)
    for mmap in (False, True):
        out = ember.load(p, verify_crc=True, mmap=mmap)
        assert all(np.array_equal(out[k].numpy(), obj[k].numpy()) for k in obj)
    out = ember.load(io.BytesIO(p.read_bytes()), verify_crc=True)
    assert np.array_equal(out["a"].numpy(), obj["a"].numpy())


def test_crc_in_the_directory_is_what_zlib_computes(tmp_path):
    p, data = _saved(tmp_path, {"x": ember.arange(5.0)})
    import zipfile
    with zipfile.ZipFile(p) as z:
        for info in z.infolist():
            assert info.CRC == zlib.crc32(z.read(info)) & 0xFFFFFFFF
